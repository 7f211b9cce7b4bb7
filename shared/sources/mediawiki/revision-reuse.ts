/**
 * One revision's wikitext → image references, at the decoder's pace:
 *
 * - The byte path: a revision read from a dump keeps its text as UTF-8 bytes; the page scanner finds
 *   the markup on them and decodes only reference and caption spans (extractImageRefsFromBytes).
 * - No work twice: a history repeats itself. A revision whose bytes differ from the page's previous
 *   scanned text only inside plain text (outside every link, template, tag and comment, with no
 *   markup byte in or beside the change) has that text's references and counts, without being
 *   decoded or scanned. Exact, not a heuristic: such a change moves later references but cannot
 *   change what any of them is (the spans that could, `busy`, come from the scanner itself; see
 *   extractImageRefsFromBytes). Exact reverts are caught before this by the extract stage.
 * - A text that is scanned is decoded from the page's last scanned text: only the bytes between their
 *   common prefix and suffix (found once, on the raw bytes) are decoded, and the scan is told those
 *   common parts instead of comparing the decoded texts again (decodeCharBytesFrom, KnownDiff).
 *
 * Outcomes are shared objects: callers must not change them.
 */
import { Counters } from "../../core/counters.ts";
import type { PageRevision, WikitextImageRef } from "../../core/records.ts";
import { decodeCharBytesFrom, decodeCharBytesToBuffer, holdRawText, knownTextDiff, rawText, releaseRawText, type DecodedText } from "../../dump/revision-text.ts";
import { extractImageRefs, extractImageRefsTraced, ExtractionLimitError, DEFAULT_MAX_PAGE_BYTES, type ExtractImagesOptions, type KnownDiff, type ScanTrace } from "../../wikitext/extract-images.ts";
import { commonPrefix, commonSuffix } from "../../wikitext/byte-diff.ts";

/** What extracting one text gave: its references or why it was skipped, and what it counted. */
export interface TextOutcome {
  refs: WikitextImageRef[] | null;
  skipped: string | null;
  counted: Counters;
}

/** How revisions were read (for benchmarks; not counters: stats.json must not depend on the path). */
export interface ExtractorStats {
  /** scanned on the byte path */
  bytes: number;
  /** scanned as a JS string (text already decoded, or bytes that are not valid UTF-8) */
  strings: number;
  /** given the previous text's outcome: the change was plain text */
  reused: number;
  /** of the byte-path scans: resumed or joined the previous scan's work (ScanTrace), and the bytes they walked */
  incremental: number;
  scannedBytes: number;
  /** bytes of the texts scanned on the byte path */
  textBytes: number;
}

/** Bytes a change must not contain: markup, entities, CR. */
const MARKUP_BYTE = new Uint8Array(256);
for (const ch of "[]{}|<>&\r") MARKUP_BYTE[ch.charCodeAt(0)] = 1;
/** Brackets come in runs (`[[`, `]]]`): a change between two of one kind would join or split a run. */
const BRACKET = new Uint8Array(256);
for (const ch of "[]{}") BRACKET[ch.charCodeAt(0)] = 1;
/** Entity names are short (revision-text.ts): a change within this many bytes after "&" may be inside one. */
const MAX_ENTITY = 32;

/**
 * Scans kept per page for the next to resume and join (each holds its text, ≤ maxPageBytes): a
 * revert is replayed by the extract stage, so the text an edit starts from is often not the last one
 * scanned but one or two before it.
 */
const TRACES = 4;

/** The last scanned text of a page, with where its outcome depends on its bytes. */
interface Previous {
  pageId: number;
  raw: Buffer;
  outcome: TextOutcome;
  /**
   * the scan's busy spans ([start, end) pairs, end possibly Infinity) in decoded offsets, and the
   * decoding's shifts (decodeCharBytesToBuffer): a change's raw offsets are mapped to decoded ones,
   * not the spans to raw ones (two lookups instead of one per span)
   */
  busy: number[];
  shifts: number[];
}

export type WikitextOptions = Omit<ExtractImagesOptions, "counters">;

export function createWikitextExtractor(options: WikitextOptions): { extract(rev: PageRevision): TextOutcome; stats: ExtractorStats } {
  const stats: ExtractorStats = { bytes: 0, strings: 0, reused: 0, incremental: 0, scannedBytes: 0, textBytes: 0 };
  const max = options.maxPageBytes ?? DEFAULT_MAX_PAGE_BYTES;
  let prev: Previous | null = null;
  /**
   * The page's last text scanned on the byte path, decoded (its bytes are in its trace's buffer, the
   * newest in `traces`): the next text to scan is decoded from it where the two are the same bytes.
   */
  let lastScan: (DecodedText & { trace: ScanTrace }) | null = null;
  /**
   * lengths the previous text (`prev`) is known to share with lastScan's at their start and end (lower
   * bounds): reused texts chain their changes, so the next text is compared with lastScan's from there
   */
  const sharedWithScan = { p: 0, s: 0 };
  /** the previous text's common raw prefix and suffix with the one being read (valid: computed for this text) */
  const diff = { valid: false, p: 0, s: 0 };
  /** the page's last few byte-path scans (newest first), which the next one resumes and joins (ScanTrace) */
  let traces: ScanTrace[] = [];
  let tracesPage = -1;
  /**
   * Buffers texts are decoded into, reused once their trace is dropped: a new buffer per revision is
   * external memory, and V8 runs a full GC for every few dozen MB of it.
   */
  const spare: Buffer[] = [];
  const owned = new WeakMap<ScanTrace, Buffer>();
  const release = (t: ScanTrace) => {
    const b = owned.get(t);
    if (b !== undefined && spare.length < TRACES) spare.push(b);
  };

  const run = (rev: PageRevision, f: (opts: ExtractImagesOptions) => WikitextImageRef[] | null): TextOutcome | null => {
    const counted = new Counters();
    try {
      // the page's title, for captions that show it ({{PAGENAME}}, {{map caption}}): constant within a
      // page, as every text, scan and outcome reused here is (all are dropped when the page changes)
      const refs = f({ ...options, counters: counted, pageTitle: rev.title, pageNs: rev.ns });
      return refs === null ? null : { refs, skipped: null, counted };
    } catch (err) {
      return { refs: null, skipped: err instanceof ExtractionLimitError ? err.reason : "extraction_error", counted };
    }
  };
  const viaString = (rev: PageRevision): TextOutcome => {
    stats.strings++;
    return run(rev, (opts) => extractImageRefs(rev.text, opts))!;
  };

  /**
   * The bytes kept for the next revision (raw texts and decodings that may be views of the dump's
   * chunks): held while kept, so a chunk is not reused under them (chunk-pool.ts).
   */
  let kept: Buffer[] = [];
  const holdKept = () => {
    const now: Buffer[] = [];
    if (prev !== null) now.push(prev.raw);
    if (lastScan !== null) now.push(lastScan.raw, lastScan.utf8);
    for (const t of traces) now.push(t.utf8);
    for (const b of now) holdRawText(b);
    for (const b of kept) releaseRawText(b);
    kept = now;
  };

  const extract = (rev: PageRevision): TextOutcome => {
    try {
      return extractOne(rev);
    } finally {
      holdKept();
    }
  };

  const extractOne = (rev: PageRevision): TextOutcome => {
    const raw = rawText(rev);
    if (prev !== null && prev.pageId !== rev.pageId) prev = null;
    if (tracesPage !== rev.pageId) {
      for (const t of traces) release(t);
      traces = [];
      tracesPage = rev.pageId;
      lastScan = null;
    }
    if (raw === undefined) {
      lastScan = null;
      return viaString(rev);
    }
    diff.valid = false;
    let noCR: boolean;
    if (prev !== null && raw.length <= max) {
      // the previous text holds no CR: only the bytes between the common prefix and suffix can
      const a = prev.raw;
      diff.valid = true;
      // (the dump reader found them when it checked the text's entities, if it read the two in a row)
      const known = knownTextDiff(a, raw);
      diff.p = known !== null ? known.p : commonPrefix(a, raw);
      diff.s = known !== null ? known.s : commonSuffix(a, raw, Math.min(a.length, raw.length) - diff.p);
      noCR = raw.subarray(diff.p, raw.length - diff.s).indexOf(0x0d) < 0;
    } else noCR = raw.indexOf(0x0d) < 0;
    if (prev !== null && noCR && raw.length <= max) {
      const moved = reusable(prev, raw, diff.p, diff.s);
      if (moved !== null) {
        stats.reused++;
        if (lastScan !== null && prev.raw === lastScan.raw) [sharedWithScan.p, sharedWithScan.s] = [diff.p, diff.s];
        else [sharedWithScan.p, sharedWithScan.s] = [Math.min(sharedWithScan.p, diff.p), Math.min(sharedWithScan.s, diff.s)];
        prev = { pageId: rev.pageId, raw, outcome: prev.outcome, busy: moved.busy, shifts: moved.shifts };
        return prev.outcome;
      }
    }
    const shifts: number[] = [];
    let scratch = spare.pop();
    if (scratch !== undefined && scratch.length < raw.length) scratch = undefined; // dropped: a bigger one is made
    if (scratch === undefined) scratch = Buffer.allocUnsafeSlow(Math.max(raw.length + (raw.length >> 2), 1 << 16));
    // decoded from the last scanned text where they are the same bytes (it is the newest trace: the scan's base)
    let known: KnownDiff | undefined;
    let utf8: Buffer;
    const base = lastScan;
    lastScan = null;
    if (noCR && base !== null && raw.length <= max) {
      const same = diff.valid && prev !== null && prev.raw === base.raw;
      // a text reused since the last scan: what this one shares with it and it with the scanned one, this one shares with that
      const chained = diff.valid && !same && prev !== null && prev.pageId === rev.pageId;
      const p = same ? diff.p : commonPrefix(base.raw, raw, chained ? Math.min(diff.p, sharedWithScan.p) : 0);
      const limit = Math.min(base.raw.length, raw.length) - p;
      const s = same ? diff.s : commonSuffix(base.raw, raw, limit, chained ? Math.min(diff.s, sharedWithScan.s, limit) : 0);
      const d = decodeCharBytesFrom(raw, base, p, s, shifts, scratch);
      utf8 = d.utf8;
      known = { trace: base.trace, prefix: d.prefix, suffix: d.suffix };
    } else utf8 = decodeCharBytesToBuffer(raw, noCR ? shifts : undefined, scratch);
    const inScratch = utf8.buffer === scratch.buffer;
    let trace: ScanTrace | null = null;
    const outcome = run(rev, (opts) => {
      const r = extractImageRefsTraced(utf8, opts, traces, known);
      trace = r?.trace ?? null;
      return r?.refs ?? null;
    });
    if (outcome === null) {
      prev = null;
      return viaString(rev); // not valid UTF-8: the string path replaces what is broken
    }
    stats.bytes++;
    const t = trace as ScanTrace | null;
    if (t !== null && outcome.refs !== null) {
      if (traces.length > 0) stats.incremental++;
      stats.scannedBytes += t.scanned;
      stats.textBytes += utf8.length;
      traces.unshift(t);
      if (inScratch) owned.set(t, scratch);
      else spare.push(scratch);
      if (traces.length > TRACES) release(traces.pop()!);
      if (noCR) lastScan = { raw, utf8, shifts, trace: t };
    } else if (!inScratch) spare.push(scratch);
    prev = noCR && outcome.refs !== null && t !== null ? { pageId: rev.pageId, raw, outcome, busy: t.busy, shifts } : null;
    return outcome;
  };
  return { extract, stats };
}

/** The shift (raw offset minus decoded offset) at raw offset `raw`: that of the last pair whose raw offset is at or before it. */
function shiftAt(shifts: number[], raw: number): number {
  let lo = 0;
  let hi = shifts.length >> 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (shifts[mid * 2]! + shifts[mid * 2 + 1]! <= raw) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? 0 : shifts[(lo - 1) * 2 + 1]!;
}

/**
 * If `raw` (which holds no CR: the caller looked) differs from the previous text only in plain text:
 * the previous busy spans and shifts moved to `raw`'s decoding; else null. `prefix` and `s`: the
 * lengths of their common prefix and suffix (commonPrefix, commonSuffix).
 */
function reusable(prev: Previous, raw: Buffer, prefix: number, s: number): { busy: number[]; shifts: number[] } | null {
  const a = prev.raw;
  const la = a.length;
  const lb = raw.length;
  let p = prefix;
  if (p === la && la === lb) return prev;
  // a change that starts inside an entity (`&lt;` → `&gt;` differs after "&") starts at its "&"
  const amp = p > 0 ? a.lastIndexOf(0x26, p - 1) : -1;
  if (amp >= 0 && p - amp <= MAX_ENTITY) p = amp;
  const endA = la - s;
  const endB = lb - s;
  // the change carries no markup, and does not join or split a run of brackets
  if (hasMarkup(a, p, endA) || hasMarkup(raw, p, endB)) return null;
  if (p > 0 && endA < la && a[p - 1] === a[endA] && BRACKET[a[endA]!] === 1) return null;
  // [p, endA) in decoded offsets: no "&" is in the change or within MAX_ENTITY bytes before it (no
  // entity crosses either end), so one shift holds over it, and decoded offsets compare as raw ones do
  const sh = shiftAt(prev.shifts, p);
  const dp = p - sh;
  const dEndA = endA - sh;
  // a span is touched by replacing [p, endA), or by inserting strictly inside it
  const touches = (start: number, end: number) => (start < dEndA && end > dp) || (start < dp && end > dp);
  const busy = prev.busy;
  let inFrame = false;
  for (let i = 0; i < busy.length; i += 2) {
    const start = busy[i]!;
    if (start >= 0) {
      if (touches(start, busy[i + 1]!)) return null;
    } else if (touches(-start - 1, -busy[i + 1]! - 1)) inFrame = true;
  }
  // inside a plain link or template, "=" could make a parameter name
  if (inFrame && (a.subarray(p, endA).includes(0x3d) || raw.subarray(p, endB).includes(0x3d))) return null;
  const delta = lb - la;
  if (delta === 0) return prev;
  // what follows the change moves by delta in both offsets (the change holds no entity): spans, and
  // the shift pairs' decoded offsets (their shifts stay)
  const moved = busy.slice();
  for (let i = 0; i < moved.length; i++) {
    const x = moved[i]!;
    if (x >= 0 ? x >= dEndA : -x - 1 >= dEndA) moved[i] = x >= 0 ? x + delta : x - delta;
  }
  const shifts = prev.shifts.slice();
  for (let i = 0; i < shifts.length; i += 2) if (shifts[i]! >= dEndA) shifts[i] = shifts[i]! + delta;
  return { busy: moved, shifts };
}

function hasMarkup(b: Buffer, from: number, to: number): boolean {
  const end = Math.min(to, b.length);
  for (let i = Math.max(0, from); i < end; i++) if (MARKUP_BYTE[b[i]!] === 1) return true;
  return false;
}
