/**
 * Revision text kept as the dump's UTF-8 bytes until someone reads it.
 *
 * Turning wikitext into a JS string (UTF-8 decoding, entity decoding) is most of what reading a
 * dump costs once the XML is scanned, so the reader does not do it: a PageRevision from readPages
 * has a lazy `text` (an ordinary enumerable property: JSON, spreading, structured clone and zod all
 * see the string). A runner that hands revisions to worker threads packs them with packRevisions:
 * the still-encoded texts travel as one byte array and are decoded in the workers, in parallel,
 * instead of on the thread that reads the dump. Entities were validated when the text was read, so
 * decoding cannot fail later.
 */
import type { PageRevision } from "../core/records.ts";
import { chunkHolds, holdChunk, releaseChunk } from "./chunk-pool.ts";

const EMPTY = Buffer.alloc(0);
const AMP = 0x26;
const SEMI = 0x3b;
const CR = 0x0d;
const LF = 0x0a;

/** Entity names are short; "&" without ";" within this many bytes is malformed. */
const MAX_ENTITY = 32;

/** The raw (still encoded) text of lazily decoded revisions. */
const rawTexts = new WeakMap<object, Buffer>();

/**
 * A PageRevision whose text is decoded from `raw` (XML character data, UTF-8) on first read. A view
 * of a pooled chunk (chunk-pool.ts) is held until the text is decoded, set, or released.
 */
export function lazyRevision(title: string, ns: number, pageId: number, revisionId: number, timestamp: string | null, redirect: boolean, raw: Buffer): PageRevision {
  let text: string | null = null;
  const drop = () => {
    rawTexts.delete(rev);
    releaseChunk(raw);
    raw = EMPTY;
  };
  const rev = {
    title,
    ns,
    pageId,
    revisionId,
    timestamp,
    redirect,
    get text(): string {
      if (text === null) {
        // (neither decoded nor set, and no raw text: released)
        if (!rawTexts.has(rev)) throw new Error(`the text of revision ${revisionId} was read after its reader released it (releaseRevisionText)`);
        text = decodeCharBytes(raw);
        drop();
      }
      return text;
    },
    set text(value: string) {
      if (text === null && rawTexts.has(rev)) drop();
      text = value;
    },
  };
  holdChunk(raw);
  rawTexts.set(rev, raw);
  return rev;
}

/**
 * The caller is done with `rev`'s text and no one reads it after (the extract stage, once a streamed
 * revision's references are out; holders of its raw bytes took their own hold, holdRawText): a
 * still-encoded text lets go of the chunk it views, which can then be reused. Reading the text
 * afterwards throws. Does nothing to anything else: a revision whose text is decoded, was never raw,
 * or is not a view of a pooled chunk (so texts of other readers stay readable), or another document.
 */
export function releaseRevisionText(rev: unknown): void {
  if (typeof rev !== "object" || rev === null) return;
  const raw = rawTexts.get(rev);
  // (texts of other memory stay readable: only a chunk's reuse needs the text let go)
  if (raw === undefined || chunkHolds(raw) === 0) return;
  rawTexts.delete(rev);
  releaseChunk(raw);
}

/** A raw text (rawText) is kept beyond the revision it came from: its chunk is held until releaseRawText. */
export function holdRawText(raw: Buffer): void {
  holdChunk(raw);
}

/** Gives back holdRawText's hold. */
export function releaseRawText(raw: Buffer): void {
  releaseChunk(raw);
}

/** The still-encoded bytes of a revision's text; undefined once it is decoded (or when it never was raw). */
export function rawText(rev: PageRevision): Buffer | undefined {
  return rawTexts.get(rev);
}

/** Size of a revision's text without decoding it: encoded bytes if still raw, else UTF-16 units. */
export function textSize(rev: PageRevision): number {
  const raw = rawTexts.get(rev);
  return raw === undefined ? rev.text.length : raw.length;
}

/** Revisions ready for postMessage: metadata, and texts either decoded or as a span of `bytes`. */
export interface PackedRevisions {
  revisions: Array<Omit<PageRevision, "text"> & { text: string | null }>;
  /** the raw texts, back to back; its own ArrayBuffer (so a structured clone copies no more) */
  bytes: Uint8Array;
  /** end offset in `bytes` of each revision's raw text (unused where `text` is a string) */
  ends: number[];
}

export function packRevisions(revs: readonly PageRevision[]): PackedRevisions {
  let total = 0;
  const raws: Array<Buffer | undefined> = revs.map((r) => {
    const raw = rawTexts.get(r);
    if (raw !== undefined) total += raw.length;
    return raw;
  });
  const bytes = new Uint8Array(total);
  const ends: number[] = [];
  let at = 0;
  const revisions = revs.map((r, i) => {
    const raw = raws[i];
    if (raw !== undefined) {
      bytes.set(raw, at);
      at += raw.length;
    }
    ends.push(at);
    return { title: r.title, ns: r.ns, pageId: r.pageId, revisionId: r.revisionId, timestamp: r.timestamp, redirect: r.redirect, text: raw === undefined ? r.text : null };
  });
  return { revisions, bytes, ends };
}

export function unpackRevisions(packed: PackedRevisions): PageRevision[] {
  const all = Buffer.from(packed.bytes.buffer, packed.bytes.byteOffset, packed.bytes.byteLength);
  let start = 0;
  return packed.revisions.map((r, i) => {
    const end = packed.ends[i]!;
    const raw = all.subarray(start, end);
    start = end;
    return r.text !== null ? { ...r, text: r.text } : lazyRevision(r.title, r.ns, r.pageId, r.revisionId, r.timestamp, r.redirect, raw);
  });
}

/** Why character data is malformed, and where (index in the bytes); null if it is fine. */
export interface CharDataProblem {
  message: string;
  index: number;
}

/**
 * Checks the entities of XML character data: the five predefined ones and character references
 * to XML characters (what decodeCharBytes accepts).
 */
export function checkCharBytes(b: Buffer): CharDataProblem | null {
  let amp = b.indexOf(AMP);
  while (amp >= 0) {
    const end = entityEnd(b, amp);
    if (end < 0) return { message: `malformed entity near "${preview(b, amp)}"`, index: amp };
    if (entityCode(b, amp + 1, end) < 0) {
      const name = b.toString("utf8", amp + 1, end);
      return { message: name === "" ? "empty entity name." : name.startsWith("#") ? `malformed character entity: &${name};` : `undefined entity: ${name}.`, index: amp };
    }
    amp = nextAmp(b, end + 1);
  }
  return null;
}

/**
 * checkCharBytes(b), given a text `known` that checkCharBytes passed, whose first `p` and last `s`
 * bytes are b's (p + s ≤ both lengths). The check is local: text passes iff every "&" starts an entity
 * decodeCharBytes accepts, and that is decided by the MAX_ENTITY bytes from the "&" on (entityEnd;
 * near the end, by the bytes up to the end, which the common suffix shares too). So only an "&" whose
 * window is not all in the common prefix, and that is not in the common suffix, is looked at; a
 * problem is then reported exactly as checkCharBytes does (the whole text is checked again: rare).
 */
export function checkCharBytesFrom(b: Buffer, p: number, s: number): CharDataProblem | null {
  const stop = b.length - s;
  let amp = b.indexOf(AMP, Math.max(0, p - MAX_ENTITY));
  while (amp >= 0 && amp < stop) {
    const end = entityEnd(b, amp);
    if (end < 0 || entityCode(b, amp + 1, end) < 0) return checkCharBytes(b);
    amp = nextAmp(b, end + 1);
  }
  return null;
}

/**
 * What the dump reader learnt of a text's bytes while checking them: `p` and `s`, the lengths of its
 * common prefix and suffix with the text read before it (the one whose `self` is `base`). Tokens,
 * not the texts: a hint must not hold the text before, or every text would hold the whole chain.
 */
export interface TextDiffHint {
  self: object;
  base: object;
  p: number;
  s: number;
}

const diffHints = new WeakMap<Buffer, TextDiffHint>();

/** Records `hint` for the raw text `raw` (dump reader). */
export function setTextDiffHint(raw: Buffer, hint: TextDiffHint): void {
  diffHints.set(raw, hint);
}

/**
 * The common prefix and suffix of raw texts `raw` and `before`, if the reader found them: `raw` was
 * read right after `before`. Null when it did not (another reader, texts packed for worker threads).
 */
export function knownTextDiff(before: Buffer, raw: Buffer): { p: number; s: number } | null {
  const hint = diffHints.get(raw);
  return hint !== undefined && hint.base === diffHints.get(before)?.self ? hint : null;
}

/** Bytes after an entity looked through in JS for the next one before a native search is called. */
const NEAR = 24;

/**
 * The next "&" at or after `from`, or -1. Wikitext's entities come in clusters
 * (`&lt;ref name=&quot;x&quot;&gt;`): a short look costs less than a call to indexOf.
 */
function nextAmp(b: Buffer, from: number): number {
  const n = b.length;
  const near = Math.min(n, from + NEAR);
  for (let i = from; i < near; i++) if (b[i] === AMP) return i;
  return near < n ? b.indexOf(AMP, near) : -1;
}

/**
 * XML character data (UTF-8 bytes) as the application sees it: CR LF and lone CR read as LF, then
 * entities replaced. Entities it cannot decode (checkCharBytes reports them) are kept as written.
 */
export function decodeCharBytes(input: Buffer): string {
  return decodeCharBytesToBuffer(input).toString("utf8");
}

/**
 * decodeCharBytes without the last step: the decoded text as UTF-8 bytes (may share memory with `input`).
 * `shifts`, when given (and the input has no CR), receives after each decoded entity the pair
 * (decoded offset after it, input offset minus decoded offset there): a decoded offset maps back to
 * the input by the shift of the last pair at or before it. `scratch`, when given and large enough,
 * receives the decoded bytes (the result is then a view of it) instead of a new buffer.
 */
export function decodeCharBytesToBuffer(input: Buffer, shifts?: number[], scratch?: Buffer): Buffer {
  let b = input;
  if (b.indexOf(CR) >= 0) b = normaliseNewlineBytes(b);
  if (b.indexOf(AMP) < 0) return b;
  // decoding never lengthens: "&#x10FFFF;" is 10 bytes, its UTF-8 4
  const out = scratch !== undefined && scratch.length >= b.length ? scratch : Buffer.allocUnsafe(b.length);
  return out.subarray(0, decodeRun(b, out, 0, shifts, 0));
}

/**
 * Decodes the entities of `b` (no CR) into out[o..]; returns the offset after the last byte written.
 * Shift pairs are pushed as if `b` began at input offset `rawBase` and out[o] were decoded offset o.
 */
function decodeRun(b: Buffer, out: Buffer, o: number, shifts: number[] | undefined, rawBase: number): number {
  let amp = b.indexOf(AMP);
  let last = 0;
  while (amp >= 0) {
    const end = entityEnd(b, amp);
    const code = end < 0 ? -1 : entityCode(b, amp + 1, end);
    if (code < 0) {
      amp = b.indexOf(AMP, amp + 1);
      continue;
    }
    // wikitext has an entity every few dozen bytes: short runs are copied here, not by a native call
    if (amp - last < 64) for (let k = last; k < amp; k++) out[o++] = b[k]!;
    else o += b.copy(out, o, last, amp);
    if (code < 0x80) out[o++] = code;
    else o += out.write(String.fromCodePoint(code), o, "utf8");
    last = end + 1;
    shifts?.push(o, rawBase + last - o);
    amp = nextAmp(b, last);
  }
  if (last < b.length) o += b.copy(out, o, last, b.length);
  return o;
}

/** An earlier text's decoding that a later one can be decoded from (decodeCharBytesFrom). */
export interface DecodedText {
  /** the input (XML character data, UTF-8, without CR) */
  raw: Buffer;
  /** decodeCharBytesToBuffer(raw, shifts) */
  utf8: Buffer;
  shifts: number[];
}

/**
 * decodeCharBytesToBuffer(input, shifts, scratch) of an input without CR, made from an earlier text's
 * decoding where the two have the same bytes: `p` and `s` are (at most) the lengths of their common
 * raw prefix and suffix (p + s ≤ both lengths). Only the bytes between are decoded; the rest is copied
 * with its shift pairs. Same bytes and pairs as decoding from scratch: the common parts are cut where
 * no entity (nor the look for one's ";") crosses the cut. `scratch` must hold input.length bytes.
 * Also gives how many bytes of the result are, for sure, a common prefix and suffix with `base.utf8`.
 */
export function decodeCharBytesFrom(input: Buffer, base: DecodedText, p: number, s: number, shifts: number[], scratch: Buffer): { utf8: Buffer; prefix: number; suffix: number } {
  const a = base.raw;
  // the prefix ends before any "&" whose look for its ";" could reach past it
  let head = p;
  const first = p > 0 ? a.indexOf(AMP, Math.max(0, p - MAX_ENTITY)) : -1;
  if (first >= 0 && first < p) head = first;
  // the suffix starts after any entity (valid in either text) that crosses its start
  let tail = s;
  for (let moved = true; moved; ) {
    moved = false;
    for (const x of [input, a]) {
      const start = x.length - tail;
      for (let amp = start > 0 ? x.lastIndexOf(AMP, start - 1) : -1; amp >= 0 && amp > start - MAX_ENTITY; amp = amp > 0 ? x.lastIndexOf(AMP, amp - 1) : -1) {
        const end = entityEnd(x, amp);
        if (end >= start && entityCode(x, amp + 1, end) >= 0) {
          tail = x.length - (end + 1);
          moved = true;
          break;
        }
      }
    }
  }
  const bs = base.shifts;
  const pairs = bs.length >> 1;
  // base.utf8 offsets of raw offsets `head` and `a.length - tail` (no entity crosses either)
  const k1 = pairsUpTo(bs, head);
  const headOut = head - (k1 === 0 ? 0 : bs[(k1 - 1) * 2 + 1]!);
  const tailAt = a.length - tail;
  const k2 = pairsUpTo(bs, tailAt);
  const tailOut = tailAt - (k2 === 0 ? 0 : bs[(k2 - 1) * 2 + 1]!);
  const out = scratch;
  base.utf8.copy(out, 0, 0, headOut);
  for (let i = 0; i < k1 * 2; i++) shifts.push(bs[i]!);
  let o = decodeRun(input.subarray(head, input.length - tail), out, headOut, shifts, head);
  const moveOut = o - tailOut;
  const moveRaw = input.length - a.length;
  for (let k = k2; k < pairs; k++) {
    const oa = bs[k * 2]!;
    shifts.push(oa + moveOut, bs[k * 2 + 1]! + moveRaw - moveOut);
  }
  o += base.utf8.copy(out, o, tailOut, base.utf8.length);
  return { utf8: out.subarray(0, o), prefix: headOut, suffix: base.utf8.length - tailOut };
}

/** How many shift pairs have their input offset (decoded offset + shift) at or before `raw`. */
function pairsUpTo(shifts: number[], raw: number): number {
  let lo = 0;
  let hi = shifts.length >> 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (shifts[mid * 2]! + shifts[mid * 2 + 1]! <= raw) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the ";" ending the entity at `amp`, or -1. */
function entityEnd(b: Buffer, amp: number): number {
  const limit = Math.min(b.length, amp + MAX_ENTITY);
  for (let i = amp + 1; i < limit; i++) if (b[i] === SEMI) return i;
  return -1;
}

/** Code point of the entity whose name is b[from..to), or -1 if it is not one XML defines. */
function entityCode(b: Buffer, from: number, to: number): number {
  const len = to - from;
  const c0 = b[from];
  if (c0 === 0x23 /* # */) {
    let code = 0;
    let i = from + 1;
    const hex = b[i] === 0x78; /* x */
    if (hex) i++;
    if (i >= to) return -1;
    for (; i < to; i++) {
      const c = b[i]!;
      let d: number;
      if (c >= 0x30 && c <= 0x39) d = c - 0x30;
      else if (hex && c >= 0x61 && c <= 0x66) d = c - 0x57;
      else if (hex && c >= 0x41 && c <= 0x46) d = c - 0x37;
      else return -1;
      code = code * (hex ? 16 : 10) + d;
      if (code > 0x10ffff) return -1;
    }
    return isXmlChar(code) ? code : -1;
  }
  if (len === 2 && b[from + 1] === 0x74 /* t */) {
    if (c0 === 0x6c /* l */) return 0x3c;
    if (c0 === 0x67 /* g */) return 0x3e;
  } else if (len === 3 && c0 === 0x61 && b[from + 1] === 0x6d && b[from + 2] === 0x70 /* amp */) {
    return 0x26;
  } else if (len === 4) {
    if (c0 === 0x71 && b[from + 1] === 0x75 && b[from + 2] === 0x6f && b[from + 3] === 0x74 /* quot */) return 0x22;
    if (c0 === 0x61 && b[from + 1] === 0x70 && b[from + 2] === 0x6f && b[from + 3] === 0x73 /* apos */) return 0x27;
  }
  return -1;
}

function isXmlChar(c: number): boolean {
  return c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
}

function normaliseNewlineBytes(b: Buffer): Buffer {
  const out = Buffer.allocUnsafe(b.length);
  let o = 0;
  let last = 0;
  let cr = b.indexOf(CR);
  while (cr >= 0) {
    o += b.copy(out, o, last, cr);
    out[o++] = LF;
    last = b[cr + 1] === LF ? cr + 2 : cr + 1;
    cr = b.indexOf(CR, last);
  }
  o += b.copy(out, o, last, b.length);
  return out.subarray(0, o);
}

function preview(b: Buffer, at: number): string {
  return b.toString("utf8", at, Math.min(b.length, at + 20));
}
