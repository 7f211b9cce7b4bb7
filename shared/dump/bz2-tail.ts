/**
 * Bytes after a bz2 stream that start no other, found the same whatever decoder ran. The JS block
 * decoder reads them (a gap of kind "trailing", counted as dump.trailing_bytes, or damage when
 * blocks follow); lbzip2 and bzip2 skip them and every stream after them silently and exit 0,
 * having read the whole input when little follows. So after a binary succeeds, the input is checked
 * again for where its streams end (block headers only, no decoding), and the block decoder reads on
 * from there. The last bytes alone cannot tell: garbage between two streams leaves a normal end
 * behind it. The check runs beside the binary (`scanStreamsEnd`), where it takes cycles from the
 * decoder on a 2-core machine: a quick pass (`streamsFillInput`, ~5 ms of CPU per 9 MB with the
 * read, once compiled; the layout scan ~20 ms) proves the usual answer, "clean"; anything else is
 * found by the layout scan (`layoutStreamsEnd`), which reads the input again.
 */
import { read32At } from "./bz2-blocks.ts";
import { bz2Jobs, MAX_COMPRESSED_BLOCK, type StreamsEnd } from "./bz2-parallel.ts";

/** How findStreamsEnd reached its answers (for tests): the quick pass alone, or the layout scan after it. */
export const streamsEndChecks = { quick: 0, layout: 0 };

/**
 * Where the bz2 streams of the input `open` opens end, from their layout (no block is decoded):
 * "clean" when they fill the input; the first byte after the last complete stream with the rest of
 * the input when something else follows; null when the layout breaks inside a stream (damage: the
 * caller decodes again from the start), or when cancelled. The input is opened once when the quick
 * pass proves it clean (the usual case), else twice: the layout scan reads it again from the start.
 */
export async function findStreamsEnd(open: () => AsyncIterable<Buffer>, cancelled: () => boolean = () => false): Promise<StreamsEnd | "clean" | null> {
  if (await streamsFillInput(open(), cancelled)) {
    streamsEndChecks.quick++;
    return "clean";
  }
  if (cancelled()) return null;
  streamsEndChecks.layout++;
  return layoutStreamsEnd(open(), cancelled);
}

/** findStreamsEnd's answer from the layout scan alone (bz2-parallel.ts's bz2Jobs), on a source read once. */
export async function layoutStreamsEnd(src: AsyncIterable<Buffer>, cancelled: () => boolean = () => false): Promise<StreamsEnd | "clean" | null> {
  const jobs = bz2Jobs(src);
  for (;;) {
    const r = await jobs.next();
    if (r.done) return "clean";
    if (cancelled()) {
      await jobs.return(undefined);
      return null;
    }
    if (!("stop" in r.value)) continue;
    // the rest is read through the source the suspended layout scan holds (closed by the rest)
    if (r.value.after) return r.value.after;
    await jobs.return(undefined);
    return null;
  }
}

/**
 * True when the layout scan would find `src` clean, proven in one pass at a few ms per 9 MB; false
 * when it would not, or might not, or when cancelled (the source is closed then). Reads `src` to its
 * end only when it answers true.
 *
 * Why the answer is the layout scan's. The scan reads the input as: a stream header "BZh1".."BZh9"
 * at a byte boundary (or the input's end); a magic exactly 32 bits after it (a block's, or the
 * end-of-stream's: an empty stream); after a block magic at bit b, the first magic of either kind at
 * or after b + 48 (findMagic), which ends the block; 80 bits held after each magic met (the magic and
 * the 32-bit CRC); at an end-of-stream magic, the stream's CRC equal to the combined block CRCs, then
 * padding (not looked at) to the byte, where the next header is due. This pass finds every magic of
 * the input, at every bit offset, in order (see CleanCheck.scan), and walks them with those very
 * rules, skipping the magics the scan steps over; so it meets the same magics and makes the same
 * checks. It gives up wherever a check fails, and where the scan's answer could depend on how the
 * input is cut into chunks (a block's end further than MAX_COMPRESSED_BLOCK from its start, which
 * real blocks never are). Hence: a header-like pattern inside compressed data is never read as a
 * header (a magic in it ends the block for both, and the CRCs then fail for both); garbage between
 * streams fails the header check however it ends; a truncated input ends inside a stream or a header.
 * Looking only at headers and at what precedes them would not do: a damaged block CRC, or a stray
 * magic inside a block, makes the scan answer null (damage) where headers and stream ends still
 * line up. Every failure only means "not proven": the layout scan then gives the answer.
 */
export async function streamsFillInput(src: AsyncIterable<Buffer>, cancelled: () => boolean = () => false): Promise<boolean> {
  const it = src[Symbol.asyncIterator]();
  const check = new CleanCheck();
  try {
    for (;;) {
      const r = await it.next();
      if (cancelled()) return false;
      if (r.done) return check.end();
      if (!check.push(r.value)) return false;
    }
  } finally {
    await it.return?.();
  }
}

/**
 * Where a magic holding a given pair of bytes can start. A 48-bit magic at bit shift s holds 5
 * whole bytes (6 when s is 0); any 5 consecutive bytes hold a pair whose first byte is at an offset
 * divisible by 4 from anywhere, so looking at every 4th pair of bytes finds every magic. For each of
 * the 64 pairs (2 magics, 8 shifts, pairs 0..3 of the 5 bytes), STARTS holds the magic's first bit
 * relative to the pair's first byte; PAIRS maps the pair, read as a platform-order 16-bit word, to
 * its list (0: no magic holds it). A pair 0 or 1 of some magic is one only if the next 2 bytes are
 * pair 2 or 3 of some magic (NEXT); a pair 2 or 3 only if the 2 bytes before are pair 0 or 1 (PREV):
 * this rules out nearly all of the pairs that are in the table by chance (1 in 1000 of compressed
 * data) before a magic is looked for bit by bit.
 */
const PAIRS = new Uint8Array(65536);
const STARTS: number[][] = [[]];
/** bit 1: the word is pair 0 or 1 of some magic; bit 2: pair 2 or 3 */
const PLACE = new Uint8Array(65536);
const NEXT = new Uint8Array(65536);
const PREV = new Uint8Array(65536);
{
  const pair = new Uint8Array(2);
  const word = new Uint16Array(pair.buffer);
  for (const magic of [0x314159265359n, 0x177245385090n]) {
    for (let s = 0; s < 8; s++) {
      // the magic s bits into 7 bytes: bytes 1..5 are whole (0..5 when s is 0)
      const window = magic << BigInt(8 - s);
      const bytes = Array.from({ length: 7 }, (_, k) => Number((window >> BigInt(8 * (6 - k))) & 0xffn));
      const lead = s === 0 ? 0 : 1;
      for (let j = 0; j < 4; j++) {
        pair[0] = bytes[lead + j]!;
        pair[1] = bytes[lead + j + 1]!;
        const w = word[0]!;
        // the pair is j bytes into the whole bytes, which start `lead` bytes after the magic's first byte
        const start = s - (lead + j) * 8;
        let e = PAIRS[w]!;
        if (e === 0) {
          e = STARTS.length;
          STARTS.push([]);
          PAIRS[w] = e;
        }
        STARTS[e]!.push(start);
        PLACE[w]! |= j < 2 ? 1 : 2;
        if (j < 2) PREV[w] = 1;
        else NEXT[w] = 1;
      }
    }
  }
  // in increasing order, so that magics are met in order
  for (const l of STARTS) l.sort((a, b) => a - b);
}

/**
 * The first even index from `k` (even) below `end` of a 16-bit word of `words` that may be part of
 * a magic, or `end`: the pass's only loop over every byte, kept small so that it is compiled at once
 * and cheaply. A neighbour word past either end of `words` rules nothing out.
 */
function nextPair(words: Uint16Array, k: number, end: number): number {
  for (; k < end; k += 2) {
    const w = words[k]!;
    if (PAIRS[w] === 0) continue;
    const place = PLACE[w]!;
    if (place & 1 && (k + 1 >= end || NEXT[words[k + 1]!] !== 0)) return k;
    if (place & 2 && (k === 0 || PREV[words[k - 1]!] !== 0)) return k;
  }
  return end;
}

const BLOCK = 0x314159265359;
const EOS = 0x177245385090;

/** BLOCK or EOS when that magic starts at bit `bit` of w (its 48 bits held), else 0. */
function magicAt(w: Uint8Array, bit: number): number {
  // both compares run on every candidate, so they are compiled with the feedback they need
  const v = bits24(w, bit) * 0x1000000 + bits24(w, bit + 24);
  return v === BLOCK ? BLOCK : v === EOS ? EOS : 0;
}

/** The 24 bits at bit `bit` of w (bytes past its end read as 0). */
function bits24(w: Uint8Array, bit: number): number {
  const i = Math.floor(bit / 8);
  const x = (w[i]! << 24) | (w[i + 1]! << 16) | ((w[i + 2] ?? 0) << 8) | (w[i + 3] ?? 0);
  return (x << (bit & 7)) >>> 8;
}

/** Bytes kept from one chunk for the next: a magic with its CRC (80 bits) starting in them, or a stream header. */
const KEEP = 16;

/** The walk of streamsFillInput over one input, fed chunk by chunk. */
class CleanCheck {
  /** unsettled bytes of the chunks before, then the latest chunk; 16-bit aligned (own buffer) */
  private work = new Uint8Array(0);
  private words = new Uint16Array(0);
  private len = 0;
  /** input byte of work[0] */
  private base = 0;
  /** the input byte where a stream header is due, or -1 inside a stream */
  private header = 0;
  /** inside a stream: input bit where the layout scan looks for the next magic */
  private want = 0;
  /** that magic must start at `want` (the first one after a header), else at the first magic at or after it */
  private exact = false;
  /** combined CRC of the stream's blocks so far */
  private combined = 0;
  private ok = true;

  /** Takes the next chunk; false once the input cannot be proven clean. */
  push(chunk: Buffer): boolean {
    const need = this.len + chunk.length;
    if (need > this.work.length) {
      const work = new Uint8Array(new ArrayBuffer(need + 64));
      work.set(this.work.subarray(0, this.len));
      this.work = work;
      this.words = new Uint16Array(work.buffer, 0, work.length >>> 1);
    }
    this.work.set(chunk, this.len);
    this.len = need;
    this.scan(false);
    return this.ok;
  }

  /** At the end of the input: true when its streams end exactly there. */
  end(): boolean {
    this.scan(true);
    return this.ok && this.header === this.base + this.len;
  }

  /**
   * Walks the magics starting in the settled bits of the bytes held: all of them at the end of the
   * input, else all but the last KEEP bytes' (which are kept for the next chunk, so that every magic
   * met has its 80 bits and every header its 4 bytes here). Each magic is found exactly once, in
   * order: its 5 whole bytes lie in the bytes held when it starts in the settled bits, and hold a
   * pair starting at a multiple of 4 from work[0], which is looked up.
   */
  private scan(final: boolean): void {
    const len = this.len;
    const w = this.work.subarray(0, len);
    const settled = (final ? len : Math.max(0, len - KEEP)) * 8;
    this.atHeader(w);
    const words = this.words;
    const pairs = len >>> 1;
    for (let k = nextPair(words, 0, pairs); k < pairs && this.ok; k = nextPair(words, k + 2, pairs)) {
      for (const start of STARTS[PAIRS[words[k]!]!]!) {
        // the pair's first byte is work[2k]
        const bit = k * 16 + start;
        if (bit < 0 || bit >= settled || bit + 48 > len * 8) continue;
        const kind = magicAt(w, bit);
        if (kind !== 0) this.magic(w, bit, kind === EOS);
      }
    }
    if (final || !this.ok) return;
    const from = settled / 8;
    this.work.copyWithin(0, from, len);
    this.len = len - from;
    this.base += from;
  }

  /** A magic at bit `bit` of w: what the layout scan does with it. */
  private magic(w: Uint8Array, bit: number, eos: boolean): void {
    const at = this.base * 8 + bit;
    if (this.header >= 0) {
      // before a header not yet read (its bytes were not there): the scan does not look at it
      if (at < this.header * 8) return;
      return this.fail();
    }
    // inside a magic the scan stepped over, a CRC, padding or a header: not looked at either
    if (at < this.want) return;
    // not where the first block must start; or beyond the scan's reach, where its answer depends on chunks
    if (this.exact ? at !== this.want : at + 48 - this.want > MAX_COMPRESSED_BLOCK * 8) return this.fail();
    // the scan stops where a magic has no 32-bit CRC after it
    if (bit + 80 > w.length * 8) return this.fail();
    const crc = read32At(w, bit + 48);
    if (!eos) {
      this.combined = (((this.combined << 1) | (this.combined >>> 31)) ^ crc) >>> 0;
      this.want = at + 48;
      this.exact = false;
      return;
    }
    if (crc !== this.combined) return this.fail();
    this.header = Math.ceil((at + 80) / 8);
    this.atHeader(w);
  }

  private fail(): void {
    this.ok = false;
  }

  /** Reads a due stream header if its bytes are held (at the end of the input, `end` sees whether it is due at its very end). */
  private atHeader(w: Uint8Array): void {
    if (this.header < 0) return;
    const h = this.header - this.base;
    if (h + 4 > w.length) return;
    if (w[h] !== 0x42 || w[h + 1] !== 0x5a || w[h + 2] !== 0x68 || w[h + 3]! < 0x31 || w[h + 3]! > 0x39) return this.fail();
    this.want = (this.header + 4) * 8;
    this.exact = true;
    this.combined = 0;
    this.header = -1;
  }
}

/** A layout scan started before its answer is needed; `cancel` ends it and closes what it holds. */
export interface StreamsEndScan {
  /** the answer of findStreamsEnd; never rejects when `cancel` is called first */
  readonly end: Promise<StreamsEnd | "clean" | null>;
  /** stops the scan (its answer is then not wanted) and closes its input, also the rest it may hold */
  cancel(): Promise<void>;
}

/** Starts findStreamsEnd on the input `open` opens now, so it runs while the caller decodes the same input. */
export function scanStreamsEnd(open: () => AsyncIterable<Buffer>): StreamsEndScan {
  let cancelled = false;
  const end = findStreamsEnd(open, () => cancelled);
  // a failure is seen by whoever awaits `end`; one after cancel is nobody's
  end.catch(() => undefined);
  return {
    end,
    async cancel() {
      cancelled = true;
      const r = await end.catch(() => null);
      // the suspended scan holding the rest closes its input when the rest is closed after a first read
      if (r !== null && r !== "clean") {
        const it = r.rest[Symbol.asyncIterator]();
        try {
          await it.next();
        } catch {
          // closing is all that is wanted
        }
        await it.return?.();
      }
    },
  };
}
