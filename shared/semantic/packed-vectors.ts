/**
 * Word vectors packed into one buffer that needs no per-word work to use: the rows, then an open-addressing hash
 * table of row numbers keyed by the words, then the words themselves (UTF-16 code units, as JS strings hold them).
 * `id(word)` hashes the word's code units and compares them with the stored ones, so nothing is built up front
 * (a Map of 100k words took ~35–50 ms of CPU per process, and its list of words ~25 ms more to parse and check).
 *
 * The binary cache (vector-cache.ts) is this buffer behind a small header, read in one go; a pool's worker threads
 * get the same buffer (a SharedArrayBuffer) from the thread that loaded it, again without per-word work.
 *
 * Layout, each part 4-byte aligned (lengths in the descriptor):
 *   rows    Float32 × count·dims   unit rows, row-major, in row order
 *   table   Uint32 × slots         row + 1 of the word hashed to (or probed past) the slot; 0: empty
 *   starts  Uint32 × (count + 1)   where each word's code units start in `chars` (the last: their total)
 *   chars   Uint16 × chars         the words' UTF-16 code units, in row order
 * The hash (FNV-1a over code units, then a final mix) and the layout are part of the cache format: changing either
 * needs a new cache version.
 */
import * as zlib from "node:zlib";

/** node ≥ 20.15 */
const crc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

/** What locates the parts in the buffer; posted to worker threads with the buffer. */
export interface PackedVectors {
  buffer: ArrayBuffer | SharedArrayBuffer;
  dims: number;
  count: number;
  /** hash table size, a power of two above `count` */
  slots: number;
  /** UTF-16 code units of all words */
  chars: number;
}

const align4 = (n: number) => (n + 3) & ~3;

/** Byte offsets of the parts, and the buffer's whole length. */
export function packedLayout(p: Omit<PackedVectors, "buffer">): { table: number; starts: number; chars: number; bytes: number } {
  const table = p.count * p.dims * 4;
  const starts = table + p.slots * 4;
  const chars = starts + (p.count + 1) * 4;
  return { table, starts, chars, bytes: align4(chars + p.chars * 2) };
}

/** Hash of a string's UTF-16 code units (FNV-1a, then murmur3's final mix so the low bits spread). */
export function wordHash(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A table at most half full: unknown words (most of a text's rare tokens) end their probe soon. */
function tableSlots(count: number): number {
  let slots = 8;
  while (slots < count * 2) slots *= 2;
  return slots;
}

/** Packs `words` (row order) and their rows; the words must be distinct. */
export function packVectors(dims: number, words: readonly string[], unit: Float32Array, shared: boolean): PackedVectors {
  const count = words.length;
  if (unit.length !== dims * count) throw new Error(`word vectors: ${count} words need ${dims * count} numbers, got ${unit.length}`);
  let chars = 0;
  for (const w of words) chars += w.length;
  const slots = tableSlots(count);
  const layout = packedLayout({ dims, count, slots, chars });
  const buffer = shared ? new SharedArrayBuffer(layout.bytes) : new ArrayBuffer(layout.bytes);
  new Float32Array(buffer, 0, count * dims).set(unit);
  const table = new Uint32Array(buffer, layout.table, slots);
  const starts = new Uint32Array(buffer, layout.starts, count + 1);
  const codes = new Uint16Array(buffer, layout.chars, chars);
  const packed: PackedVectors = { buffer, dims, count, slots, chars };
  const index = new PackedWords(packed);
  let at = 0;
  for (let row = 0; row < count; row++) {
    const w = words[row]!;
    starts[row] = at;
    for (let i = 0; i < w.length; i++) codes[at++] = w.charCodeAt(i);
    starts[row + 1] = at;
    if (index.find(w) >= 0) throw new Error(`word vectors: "${w}" is listed twice`);
    let s = wordHash(w) & (slots - 1);
    while (table[s] !== 0) s = (s + 1) & (slots - 1);
    table[s] = row + 1;
  }
  return packed;
}

/**
 * Whether a packed buffer (read from a file) has the sizes its descriptor says. Its contents are vouched for by the
 * checksum below; lookups stay safe even in a damaged one (a probe ends after `slots` steps, a row number out of
 * range matches nothing), so there is no scan of the table here.
 */
export function packedIsSound(p: PackedVectors): boolean {
  const counts = [p.dims, p.count, p.slots, p.chars];
  if (!counts.every((n) => Number.isSafeInteger(n) && n >= 0) || p.slots <= p.count || (p.slots & (p.slots - 1)) !== 0) return false;
  const layout = packedLayout(p);
  if (p.buffer.byteLength !== layout.bytes) return false;
  const starts = new Uint32Array(p.buffer, layout.starts, p.count + 1);
  return starts[0] === 0 && starts[p.count] === p.chars;
}

/** CRC-32 of the index (table, starts and words), stored in the cache header to catch a damaged index (~1 ms for 100k words). */
export function packedIndexChecksum(p: PackedVectors): number {
  const layout = packedLayout(p);
  const index = new Uint8Array(p.buffer, layout.table, layout.bytes - layout.table);
  if (typeof crc32 === "function") return crc32(index);
  let h = 0; // node before 20.15 has no zlib.crc32: a plain hash then (a copy written by the other kind fails the check, and is made again)
  for (let i = 0; i < index.length; i++) h = (Math.imul(h, 31) + index[i]!) | 0;
  return h >>> 0;
}

/** Words looked up and remembered per thread before the memo starts over (bounds its memory on a long run's rare tokens). */
const SEEN_MAX = 1 << 18;

/** Row lookup of a vocabulary: a Map (vectors parsed in word-vectors.ts) or the packed hash table here. */
export interface WordIndex {
  readonly size: number;
  /** row of `word`, or -1 */
  id(word: string): number;
  /** the words in row order */
  words(): string[];
}

/**
 * Row lookup straight from a packed buffer. The words a thread has looked up are remembered in a Map (V8 keeps a
 * string's hash in the string, so a repeated word costs a Map lookup as before, ~40 ns, where hashing and comparing
 * its code units again costs ~75 ns): the Map holds what the run uses, not the whole vocabulary.
 */
export class PackedWords implements WordIndex {
  private readonly seen = new Map<string, number>();
  private readonly table: Uint32Array;
  private readonly starts: Uint32Array;
  private readonly codes: Uint16Array;
  private readonly mask: number;
  readonly size: number;

  constructor(p: PackedVectors) {
    const layout = packedLayout(p);
    this.table = new Uint32Array(p.buffer, layout.table, p.slots);
    this.starts = new Uint32Array(p.buffer, layout.starts, p.count + 1);
    this.codes = new Uint16Array(p.buffer, layout.chars, p.chars);
    this.mask = p.slots - 1;
    this.size = p.count;
  }

  id(word: string): number {
    let row = this.seen.get(word);
    if (row === undefined) {
      row = this.find(word);
      if (this.seen.size >= SEEN_MAX) this.seen.clear();
      this.seen.set(word, row);
    }
    return row;
  }

  /** `id` without the memo: hashes and compares code units */
  find(word: string): number {
    const { table, starts, codes, mask } = this;
    const n = word.length;
    for (let s = wordHash(word) & mask, probes = 0; probes <= mask; s = (s + 1) & mask, probes++) {
      const e = table[s]!;
      if (e === 0) return -1;
      const row = e - 1;
      const from = starts[row]!;
      if (starts[row + 1]! - from !== n) continue;
      let i = 0;
      while (i < n && codes[from + i] === word.charCodeAt(i)) i++;
      if (i === n) return row;
    }
    return -1;
  }

  words(): string[] {
    const out = new Array<string>(this.size);
    for (let row = 0; row < this.size; row++) out[row] = this.word(row);
    return out;
  }

  private word(row: number): string {
    const from = this.starts[row]!, to = this.starts[row + 1]!;
    let s = "";
    for (let at = from; at < to; at += 4096) s += String.fromCharCode(...this.codes.subarray(at, Math.min(to, at + 4096)));
    return s;
  }
}
