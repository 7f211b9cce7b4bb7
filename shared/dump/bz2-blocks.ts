/**
 * A block-level bz2 decoder that survives damage. Each block's output is held until its CRC is
 * verified, so no unverified byte ever reaches the XML reader; a block that fails (bad Huffman
 * data, CRC mismatch, cut off) is lost on its own, and decoding resumes at the next block header,
 * found at any bit offset by its 48-bit magic as bzip2recover does. Each loss is told as a gap.
 *
 * Written here because no installed library resynchronises: unbzip2-stream ends at the first
 * damage and emits a block's bytes before checking its CRC. The decoding steps (Huffman/MTF, the
 * inverse BWT with its run-length stage) follow bzip2 1.0's decompress.c, with its limits.
 */

/** What was lost: one or more adjacent damaged blocks, or a truncated or garbled tail. */
export interface InputGap {
  /** offset of the gap in the decoded output (the bytes before it are all delivered) */
  at: number;
  /** byte offset in the compressed input where the damage starts */
  compressedAt: number;
  /** compressed bytes skipped (to the next block found, or to the end) */
  skippedBytes: number;
  /** blocks lost (0 when the input only ends without its end-of-stream marker) */
  blocks: number;
  /** the decoder's reason for the first block lost */
  reason: string;
  /**
   * damaged: blocks were lost; truncated: the input ends inside a stream; trailing: bytes after
   * the last complete stream that hold no block (garbage appended to the file: nothing is lost)
   */
  kind: "damaged" | "truncated" | "trailing";
}

/** Collects the gaps of one decoded stream as they happen (the reader splits its input at them). */
export class DamageLog {
  readonly gaps: InputGap[] = [];
}

const BLOCK_MAGIC_HI = 0x314159;
const BLOCK_MAGIC_LO = 0x265359;
const EOS_MAGIC_HI = 0x177245;
const EOS_MAGIC_LO = 0x385090;
const MAX_BLOCK = 900_000;
const MAX_CODE_LEN = 20;
const MAX_ALPHA = 258;
const GROUP_SIZE = 50;
/** The longest a compressed block can be (900k symbols of at most 20 bits, plus tables). */
const MAX_COMPRESSED_BLOCK = (MAX_BLOCK * MAX_CODE_LEN) / 8 + 64 * 1024;

const CRC_TABLE = new Int32Array(256);
for (let i = 0; i < 256; i++) {
  let c = i << 24;
  for (let k = 0; k < 8; k++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
  CRC_TABLE[i] = c;
}

/** Damage found while decoding a block. */
class BlockDamage extends Error {}
/** The block runs past the bytes buffered so far. */
class NeedMore extends Error {}
const NEED_MORE = new NeedMore("need more input");

/** Big-endian bit reader over one buffer; `limit` is the number of bytes that may be read. */
class Bits {
  p = 0;
  constructor(
    readonly buf: Uint8Array,
    readonly limit: number,
  ) {}

  /** The next n bits (1 ≤ n ≤ 24). */
  read(n: number): number {
    const p = this.p;
    if (p + n > this.limit * 8) throw NEED_MORE;
    const b = this.buf;
    const i = p >>> 3;
    const w = (b[i]! << 24) | ((b[i + 1] ?? 0) << 16) | ((b[i + 2] ?? 0) << 8) | (b[i + 3] ?? 0);
    this.p = p + n;
    return (w << (p & 7)) >>> (32 - n);
  }

  read32(): number {
    return ((this.read(16) << 16) | this.read(16)) >>> 0;
  }
}

/** Reusable working memory of one decoder (a block needs up to 3.6 MB of it). */
export class Workspace {
  readonly tt = new Int32Array(MAX_BLOCK);
  out = new Uint8Array(1 << 20);
  readonly counts = new Int32Array(256);
  readonly mtf = new Uint8Array(256);
  readonly seqToUnseq = new Uint8Array(256);
  readonly selectors = new Uint8Array(32768);
  readonly lens = new Uint8Array(MAX_ALPHA);
  readonly limit = Array.from({ length: 6 }, () => new Int32Array(MAX_CODE_LEN + 2));
  readonly base = Array.from({ length: 6 }, () => new Int32Array(MAX_CODE_LEN + 2));
  readonly perm = Array.from({ length: 6 }, () => new Int32Array(MAX_ALPHA));
  readonly minLen = new Int32Array(6);
  readonly maxLen = new Int32Array(6);
}

function damage(why: string): never {
  throw new BlockDamage(why);
}

/**
 * Decodes the block whose magic the reader has just passed; returns its output (a view of the
 * workspace, valid until the next call) once its CRC is verified, and its stored CRC.
 */
function decodeBlock(r: Bits, ws: Workspace): { data: Uint8Array; crc: number } {
  const storedCrc = r.read32();
  if (r.read(1)) damage("randomised block (bzip2 0.9.0 and earlier) is not supported");
  const origPtr = r.read(24);

  // the byte values used, in 16 ranges of 16
  const used16 = r.read(16);
  let nInUse = 0;
  const seqToUnseq = ws.seqToUnseq;
  for (let i = 0; i < 16; i++) {
    if (used16 & (0x8000 >>> i)) {
      const w = r.read(16);
      for (let j = 0; j < 16; j++) if (w & (0x8000 >>> j)) seqToUnseq[nInUse++] = i * 16 + j;
    }
  }
  if (nInUse === 0) damage("block uses no byte values");
  const alphaSize = nInUse + 2;

  const nGroups = r.read(3);
  if (nGroups < 2 || nGroups > 6) damage(`bad Huffman group count ${nGroups}`);
  const nSelectors = r.read(15);
  if (nSelectors < 1) damage("no selectors");
  const groupMtf = [0, 1, 2, 3, 4, 5];
  const selectors = ws.selectors;
  for (let i = 0; i < nSelectors; i++) {
    let j = 0;
    while (r.read(1)) if (++j >= nGroups) damage("bad selector");
    const v = groupMtf[j]!;
    for (; j > 0; j--) groupMtf[j] = groupMtf[j - 1]!;
    groupMtf[0] = v;
    selectors[i] = v;
  }

  // Huffman tables: code lengths as deltas, then canonical limit/base/perm per length
  const lens = ws.lens;
  for (let g = 0; g < nGroups; g++) {
    let curr = r.read(5);
    let minLen = 32;
    let maxLen = 0;
    for (let s = 0; s < alphaSize; s++) {
      for (;;) {
        if (curr < 1 || curr > MAX_CODE_LEN) damage("bad Huffman code length");
        if (!r.read(1)) break;
        curr += r.read(1) ? -1 : 1;
      }
      lens[s] = curr;
      if (curr < minLen) minLen = curr;
      if (curr > maxLen) maxLen = curr;
    }
    const limit = ws.limit[g]!;
    const base = ws.base[g]!;
    const perm = ws.perm[g]!;
    let pp = 0;
    for (let len = minLen; len <= maxLen; len++) for (let s = 0; s < alphaSize; s++) if (lens[s] === len) perm[pp++] = s;
    // code = first code of each length; limit = last code of each length; base maps a code to perm
    let code = 0;
    let index = 0;
    for (let len = minLen; len <= maxLen; len++) {
      let count = 0;
      for (let s = 0; s < alphaSize; s++) if (lens[s] === len) count++;
      base[len] = index - code;
      code += count;
      index += count;
      limit[len] = code - 1;
      code <<= 1;
    }
    ws.minLen[g] = minLen;
    ws.maxLen[g] = maxLen;
  }

  // MTF + run-length (RUNA/RUNB) symbols into tt
  const tt = ws.tt;
  const counts = ws.counts;
  counts.fill(0);
  const mtf = ws.mtf;
  for (let i = 0; i < 256; i++) mtf[i] = i;
  const EOB = nInUse + 1;
  let nblock = 0;
  let groupPos = 0;
  let groupNo = -1;
  let limit = ws.limit[0]!;
  let base = ws.base[0]!;
  let perm = ws.perm[0]!;
  let minLen = 0;
  let maxLen = 0;
  let runLength = 0;
  let runWeight = 0;
  for (;;) {
    if (groupPos === 0) {
      if (++groupNo >= nSelectors) damage("ran out of selectors");
      const g = selectors[groupNo]!;
      if (g >= nGroups) damage("bad selector");
      groupPos = GROUP_SIZE;
      limit = ws.limit[g]!;
      base = ws.base[g]!;
      perm = ws.perm[g]!;
      minLen = ws.minLen[g]!;
      maxLen = ws.maxLen[g]!;
    }
    groupPos--;
    let len = minLen;
    let code = r.read(len);
    while (code > limit[len]!) {
      if (++len > maxLen) damage("bad Huffman code");
      code = (code << 1) | r.read(1);
    }
    const idx = code + base[len]!;
    if (idx < 0 || idx >= alphaSize) damage("bad Huffman code");
    const sym = perm[idx]!;
    if (sym <= 1) {
      // RUNA / RUNB: a run of the front symbol, its length in bijective base 2
      if (runWeight === 0) runWeight = 1;
      runLength += (sym + 1) * runWeight;
      runWeight <<= 1;
      if (runWeight > MAX_BLOCK) damage("run too long");
      continue;
    }
    if (runWeight !== 0) {
      if (nblock + runLength > MAX_BLOCK) damage("block too long");
      const uc = seqToUnseq[mtf[0]!]!;
      counts[uc] = counts[uc]! + runLength;
      tt.fill(uc, nblock, nblock + runLength);
      nblock += runLength;
      runLength = 0;
      runWeight = 0;
    }
    if (sym === EOB) break;
    if (nblock >= MAX_BLOCK) damage("block too long");
    const m = sym - 1;
    const v = mtf[m]!;
    mtf.copyWithin(1, 0, m);
    mtf[0] = v;
    const uc = seqToUnseq[v]!;
    counts[uc] = counts[uc]! + 1;
    tt[nblock++] = uc;
  }
  if (origPtr >= nblock) damage("BWT origin outside the block");

  // inverse BWT: tt[i] gets the index of its successor in its upper 24 bits
  let sum = 0;
  for (let i = 0; i < 256; i++) {
    const c = counts[i]!;
    counts[i] = sum;
    sum += c;
  }
  for (let i = 0; i < nblock; i++) {
    const k = counts[tt[i]! & 0xff]!++;
    tt[k] = tt[k]! | (i << 8);
  }

  // walk the BWT, undo the initial run-length stage (4 equal bytes then a count), CRC as we go
  let out = ws.out;
  let o = 0;
  let crc = -1;
  let pos = tt[origPtr]! >>> 8;
  let previous = -1;
  let run = 0;
  for (let left = nblock; left > 0; left--) {
    const t = tt[pos]!;
    const ch = t & 0xff;
    pos = t >>> 8;
    if (o + 256 > out.length) {
      const bigger = new Uint8Array(out.length * 2);
      bigger.set(out.subarray(0, o));
      out = ws.out = bigger;
    }
    if (run === 4) {
      for (let k = 0; k < ch; k++) {
        out[o++] = previous;
        crc = (crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ previous) & 0xff]!;
      }
      run = 0;
      previous = -1;
      continue;
    }
    out[o++] = ch;
    crc = (crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ ch) & 0xff]!;
    run = ch === previous ? run + 1 : 1;
    previous = ch;
  }
  const got = ~crc >>> 0;
  if (got !== storedCrc) damage(`block CRC mismatch (stored ${storedCrc.toString(16)}, computed ${got.toString(16)})`);
  return { data: out.subarray(0, o), crc: storedCrc };
}

/**
 * Decodes one block on its own (bz2-parallel.ts): the block whose magic starts at bit `at` of
 * buf[0..limit). Returns its CRC-verified bytes (a view of the workspace, valid until its next use),
 * its stored CRC and the bit just after it, or why it cannot be decoded.
 */
export function decodeBlockAt(buf: Uint8Array, at: number, limit: number, ws: Workspace): { data: Uint8Array; crc: number; end: number } | { damage: string } {
  const r = new Bits(buf, limit);
  r.p = at;
  try {
    if (r.read(24) !== BLOCK_MAGIC_HI || r.read(24) !== BLOCK_MAGIC_LO) return { damage: "no block header where a block should start" };
    const { data, crc } = decodeBlock(r, ws);
    return { data, crc, end: r.p };
  } catch (err) {
    if (err instanceof NeedMore) return { damage: "the block runs past its end" };
    if (err instanceof BlockDamage) return { damage: err.message };
    throw err;
  }
}

/** Which magic starts at bit `bit` of buf: a block's, the end of stream's, or none. */
export function magicKind(buf: Uint8Array, bit: number): "block" | "eos" | null {
  if (bit + 48 > buf.length * 8) return null;
  const r = new Bits(buf, buf.length);
  r.p = bit;
  const hi = r.read(24);
  const lo = r.read(24);
  if (hi === BLOCK_MAGIC_HI && lo === BLOCK_MAGIC_LO) return "block";
  if (hi === EOS_MAGIC_HI && lo === EOS_MAGIC_LO) return "eos";
  return null;
}

/** The 32 bits at bit `bit` of buf (a stored CRC), unsigned. */
export function read32At(buf: Uint8Array, bit: number): number {
  const r = new Bits(buf, buf.length);
  r.p = bit;
  return r.read32();
}

/**
 * Bit offset of the first block or end-of-stream magic at or after bit `from` in buf[0..n), or -1.
 * Each of the 8 bit alignments of the two 48-bit magics has 5 whole bytes fixed: found with
 * Buffer.indexOf (memchr speed), then checked bit by bit.
 */
export function findMagic(buf: Buffer, from: number, n = buf.length): number {
  let best = -1;
  for (const [hi, lo] of MAGICS) {
    for (let s = 0; s < 8; s++) {
      const needle = NEEDLES.get(`${hi}:${s}`)!;
      // the needle's first byte is the magic's byte at offset `lead` (1 when the magic starts mid-byte)
      const lead = s === 0 ? 0 : 1;
      let i = Math.max(0, Math.floor(from / 8) + lead - 1);
      for (;;) {
        const at = buf.indexOf(needle, i);
        if (at < 0 || at + needle.length > n) break;
        const bit = (at - lead) * 8 + s;
        if (best >= 0 && bit >= best) break;
        if (bit >= from && bit + 48 <= n * 8 && magicAt(buf, bit, hi, lo)) {
          best = bit;
          break;
        }
        i = at + 1;
      }
    }
  }
  return best;
}

const MAGICS: ReadonlyArray<readonly [number, number]> = [
  [BLOCK_MAGIC_HI, BLOCK_MAGIC_LO],
  [EOS_MAGIC_HI, EOS_MAGIC_LO],
];

/** For each magic and bit shift, 5 bytes that any occurrence at that shift contains. */
const NEEDLES = new Map<string, Buffer>();
for (const [hi, lo] of MAGICS) {
  const magic = (BigInt(hi) << 24n) | BigInt(lo);
  for (let s = 0; s < 8; s++) {
    // the magic placed s bits into a 7-byte window
    const window = magic << BigInt(56 - 48 - s);
    const bytes = Buffer.alloc(7);
    for (let k = 0; k < 7; k++) bytes[k] = Number((window >> BigInt(8 * (6 - k))) & 0xffn);
    NEEDLES.set(`${hi}:${s}`, s === 0 ? bytes.subarray(0, 5) : bytes.subarray(1, 6));
  }
}

function magicAt(buf: Buffer, bit: number, hi: number, lo: number): boolean {
  const r = new Bits(buf, buf.length);
  r.p = bit;
  return r.read(24) === hi && r.read(24) === lo;
}

/** Output of the block decoder: verified bytes, or a gap where damaged data was skipped. */
export type Bz2Piece = Buffer | InputGap;

/**
 * Decodes bz2 (single or multi-stream) from any byte source, block by block, yielding each
 * verified block's bytes (copied) and a InputGap for each run of damaged input. Never throws on
 * damaged data; only the source's own errors propagate.
 */
export async function* bz2Blocks(src: AsyncIterable<Buffer>): AsyncGenerator<Bz2Piece> {
  const ws = new Workspace();
  const it = src[Symbol.asyncIterator]();
  let buf: Buffer = Buffer.alloc(0);
  /** absolute input offset of buf[0] */
  let base = 0;
  let ended = false;
  /** bit position in buf */
  let p = 0;
  let decoded = 0;
  // the gap being built (adjacent damaged blocks make one gap), yielded before the next good bytes
  const open: { gap: InputGap | null } = { gap: null };

  const pending: Buffer[] = [];
  /** Buffers at least `bytes` past bit p, unless the input ends first (one copy per call). */
  const ensure = async (bytes: number): Promise<void> => {
    let have = buf.length - (p >>> 3);
    while (have < bytes && !ended) {
      const r = await it.next();
      if (r.done) ended = true;
      else {
        pending.push(r.value);
        have += r.value.length;
      }
    }
    if (pending.length > 0) {
      const keep = p >>> 3;
      buf = Buffer.concat([buf.subarray(keep), ...pending]);
      pending.length = 0;
      base += keep;
      p -= keep * 8;
    }
  };
  /** Reads on by at least one chunk; false at the end of the input. */
  const pull = async (): Promise<boolean> => {
    const had = base + buf.length;
    await ensure(buf.length - (p >>> 3) + 1);
    return base + buf.length > had;
  };
  const lose = (fromBit: number, toBit: number, blocks: number, reason: string, kind: InputGap["kind"] = "damaged"): void => {
    const skipped = Math.ceil(toBit / 8) - Math.floor(fromBit / 8);
    const gap = open.gap;
    if (gap !== null && gap.at === decoded) {
      gap.skippedBytes = base + Math.ceil(toBit / 8) - gap.compressedAt;
      gap.blocks += blocks;
      if (kind === "truncated") gap.kind = kind;
    } else {
      open.gap = { at: decoded, compressedAt: base + Math.floor(fromBit / 8), skippedBytes: skipped, blocks, reason, kind };
    }
  };
  /** Moves p to the next magic at or after bit `from` (reading on as needed); false at the end. */
  const resync = async (from: number, blocks: number, reason: string, atEnd: InputGap["kind"] = "damaged"): Promise<boolean> => {
    const fromAbs = base * 8 + from;
    for (;;) {
      const at = findMagic(buf, fromAbs - base * 8);
      if (at >= 0) {
        lose(fromAbs - base * 8, at, blocks, reason);
        p = at;
        return true;
      }
      // keep the last 6 bytes: a magic may straddle the chunk boundary
      p = Math.max(p, Math.max(0, buf.length - 6) * 8, fromAbs - base * 8);
      if (!(await pull())) {
        lose(fromAbs - base * 8, buf.length * 8, blocks, reason, atEnd);
        p = buf.length * 8;
        return false;
      }
    }
  };
  const flushGap = function* (): Generator<Bz2Piece> {
    if (open.gap !== null) {
      yield open.gap;
      open.gap = null;
    }
  };

  let inStream = false;
  for (;;) {
    if (!inStream) {
      // a stream header "BZh1".."BZh9" at a byte boundary, or the end of the input
      p = Math.ceil(p / 8) * 8;
      await ensure(4);
      const i = p >>> 3;
      if (buf.length - i === 0 && ended) break;
      if (buf.length - i >= 4 && buf[i] === 0x42 && buf[i + 1] === 0x5a && buf[i + 2] === 0x68 && buf[i + 3]! >= 0x31 && buf[i + 3]! <= 0x39) {
        p += 32;
        inStream = true;
        continue;
      }
      // not a stream header: garbage, or a damaged header with blocks after it
      if (!(await resync(p, 0, "bytes after the end of the last bz2 stream", "trailing"))) break;
      inStream = true;
      continue;
    }
    await ensure(MAX_COMPRESSED_BLOCK);
    const limit = buf.length;
    const r = new Bits(buf, limit);
    r.p = p;
    let hi: number;
    let lo: number;
    try {
      hi = r.read(24);
      lo = r.read(24);
    } catch {
      // the input ends without an end-of-stream marker
      lose(p, limit * 8, 0, "the input ends inside a bz2 stream (truncated?)", "truncated");
      yield* flushGap();
      break;
    }
    if (hi === EOS_MAGIC_HI && lo === EOS_MAGIC_LO) {
      // the stream's combined CRC is not checked: every block was checked on its own
      p = Math.min(r.p + 32, limit * 8);
      inStream = false;
      continue;
    }
    const start = p;
    if (hi !== BLOCK_MAGIC_HI || lo !== BLOCK_MAGIC_LO) {
      if (!(await resync(start + 1, 1, "no block header where a block should start"))) {
        yield* flushGap();
        break;
      }
      continue;
    }
    let block: Uint8Array | null = null;
    let why = "";
    try {
      block = decodeBlock(r, ws).data;
    } catch (err) {
      if (err instanceof NeedMore) why = ended ? "the input ends inside a block (truncated?)" : "block longer than bz2 allows";
      else if (err instanceof BlockDamage) why = err.message;
      else throw err;
    }
    if (block === null) {
      if (!(await resync(start + 1, 1, why, ended && why.startsWith("the input ends") ? "truncated" : "damaged"))) {
        yield* flushGap();
        break;
      }
      continue;
    }
    yield* flushGap();
    p = r.p;
    decoded += block.length;
    if (block.length > 0) yield Buffer.from(block);
  }
  yield* flushGap();
}
