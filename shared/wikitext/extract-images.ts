/**
 * Every image use in one page's wikitext: body file links, `<gallery>` lines, `<imagemap>` images and
 * template/infobox images, each with its caption and alt text cleaned to plain text.
 *
 * One left-to-right pass with an explicit stack of open `[[` / `{{` (no recursion, no regex over the
 * whole page per token). A link or template is handled when it closes, innermost first; results are
 * sorted back into document order at the end. Linear time: top-level pipes are recorded on the frame
 * that is open when they are seen, and every nested file link or deleted template is "cut out" of its
 * parent (a stack of cut spans), so each character is cleaned as caption text at most once.
 *
 * Choices (where MediaWiki or the reference implementation left room):
 * - `[[:File:X.jpg|text]]` links to the file page and does not show the image. By default
 *   (colonFileLinks "text") it is an ordinary link: not a use of the image, and its label stays in
 *   the caption around it ("The horizontal axis shows the [[:Image:X.png|real price-earnings ratio]] …").
 *   With "reference" (the reference implementation) it is a reference whose caption is the link text,
 *   cut out of any caption around it.
 * - A file link nested in another's caption is its own reference; it adds no text to the outer caption.
 * - `image = [[File:X.jpg|…]]` in a template is one reference with source "template": file from the
 *   link, caption/alt from the template's caption/alt parameters (the link's own as fallback).
 * - An empty last segment (`[[File:X.jpg|thumb|]]`) does not blank an earlier caption.
 * - Commented-out images and content of opaque tags (`<nowiki>`, `<pre>`, `<math>`, …) are ignored.
 * - `[[Media:…]]` links are not references (they link to the file, they do not show it).
 */
import { isUtf8 } from "node:buffer";
import type { Counters } from "../core/counters.ts";
import type { WikitextImageRef } from "../core/records.ts";
import { cleanCaptionWith } from "./clean-caption.ts";
import type { PageName } from "./page-templates.ts";
import { galleryRefs, imagemapRefs, type LineContext, type PlacedRef } from "./gallery-lines.ts";
import { fileNamespaceEnd, fileNamespaceSet, hasMediaExtension, MEDIA_EXTENSIONS, normalizeWithNamespaces } from "./image-key.ts";
import { classifyImageOption, localizedOptions } from "./image-options.ts";
import { isInlineTemplate, isSilentTemplate, normalizeTemplateName } from "./inline-templates.ts";
import { CloserFinder, OPAQUE_TAGS, TAG_AT } from "./markup-tags.ts";
import { ByteCloserFinder, TAG_AT_BYTES, isWhitespaceAt } from "./byte-text.ts";
import { CAPTION_KEYS_OF, FRAME_TEMPLATES, GALLERY_TEMPLATES, IMAGE_WORD_LIST, isPositionalImageTemplate, pickGalleryTemplateImages, pickPositionalTemplateImages, pickTemplateImages, type TemplateParam } from "./template-images.ts";
import { INVALID_FILE_NAME_COUNTER, unrenderedTemplateCounter } from "../core/counter-names.ts";
import { commonBlocks, commonPrefix, commonSuffix } from "./byte-diff.ts";

export interface ExtractImagesOptions {
  /** extra namespace aliases for files besides File/Image, e.g. ["Datei", "Файл", "Fichier"]; matched case-insensitively */
  fileAliases?: string[];
  /** extra option keywords of the local wiki (e.g. Hindi "अंगूठाकार") */
  extraOptionWords?: string[];
  /** the wiki's language (`bg`, `de`): its localized image options are options (image-options.ts) */
  language?: string;
  /** pages larger than this are skipped with ExtractionLimitError("page_too_large") */
  maxPageBytes?: number;
  /** optional: counts skipped file links (`wikitext.skipped.<reason>`) and unrendered caption templates (`wikitext.unrendered_template.<name>`) */
  counters?: Counters;
  /** `[[:File:X|label]]`: "text" (default) = an ordinary link; "reference" = a use of the image with the label as caption */
  colonFileLinks?: "text" | "reference";
  /** unknown templates in captions: "mark" (default, see CaptionContext) or "delete" */
  unknownTemplates?: "mark" | "delete";
  /** preset paper: conventions learnt after the paper's rules were pinned are not read (CaptionContext.paperRules) */
  paperRules?: boolean;
  /**
   * the page's full title ("Talk:Foo") and namespace: caption templates that need it ({{PAGENAME}},
   * {{map caption}}) are rendered (page-templates.ts), not under paperRules. Constant within a page, so
   * a page's revisions may share scans and outcomes (revision-reuse.ts).
   */
  pageTitle?: string;
  pageNs?: number;
}

export const DEFAULT_MAX_PAGE_BYTES = 8 * 1024 * 1024;

/** A page the extractor refuses to read; `reason` is a counter-friendly slug. */
export class ExtractionLimitError extends Error {
  constructor(
    readonly reason: "page_too_large" | string,
    message: string,
  ) {
    super(message);
    this.name = "ExtractionLimitError";
  }
}

/** The characters the page scanner acts on: [ ] { } | < */
const MARKUP_CHAR = new Uint8Array(0x7e);
for (const ch of "[]{}|<") MARKUP_CHAR[ch.charCodeAt(0)] = 1;
/** The same, indexed by any byte: the byte path skips plain text on the Buffer, one lookup per byte. */
const MARKUP_BYTE = new Uint8Array(256);
MARKUP_BYTE.set(MARKUP_CHAR);

const LINK = 1;
const TEMPLATE = 2;
const CUT_NO_REF = -1;
/**
 * How many of the references made inside a template are looked at to find the one image its parameter
 * shows ({{Image frame}}'s content, `image = {{CSS image crop|…}}`): a template with more is a gallery,
 * not one image, and a bound keeps templates nested in templates linear.
 */
const MAX_REFS_LOOKED_AT = 256;
/** Cheap pre-filter for parameter names that may name an image (exact test: isImageKey). */
const IMAGE_HINT = new RegExp([...IMAGE_WORD_LIST, "symbol"].join("|"), "i");
/** A template value that ends like a media file name. */
const MEDIA_VALUE = new RegExp(`\\.(?:${[...MEDIA_EXTENSIONS].join("|")})\\s*$`, "i");

/** Parameters of a template whose values are cut into text only when needed. */
interface ParamSpan extends TemplateParam {
  start: number;
  end: number;
}

/**
 * The text a scanner walks. Either the page as a JS string, or (the byte path) its UTF-8 bytes seen as
 * a latin1 string, one char per byte: every character the scanner acts on is ASCII, so the structure
 * (brackets, pipes, tags) is found at byte offsets without decoding, and only the spans that become a
 * reference or caption are decoded (`text`). Offsets then are byte offsets: used for order only.
 */
interface ScanText {
  /** what the scanner walks, as a string (empty on the byte path: the scanner walks `bytes`) */
  s: string;
  /** the real text of [a, b) */
  text(a: number, b: number): string;
  /** the first `units` UTF-16 units of [a, b) */
  head(a: number, b: number, units: number): string;
  /** null for a JS string; the bytes for the byte path */
  bytes: Buffer | null;
}

function stringText(s: string): ScanText {
  return { s, text: (a, b) => s.slice(a, b), head: (a, b, units) => s.slice(a, Math.min(b, a + units)), bytes: null };
}

function byteText(b: Buffer): ScanText {
  // a UTF-16 unit takes at most 3 bytes (4-byte characters are 2 units): 3 × units bytes always hold `units` units
  // (no latin1 string of the whole text: a scan mostly walks a few KB of it, see ScanTrace)
  return { s: "", text: (x, y) => b.toString("utf8", x, y), head: (x, y, units) => b.toString("utf8", x, Math.min(y, x + units * 3 + 4)).slice(0, units), bytes: b };
}

/**
 * What a byte-path scan of one text leaves for scanning the next revision of the page (issue 21: a
 * history repeats itself). At checkpoints (positions at the top level, no link or template open,
 * where the loop is about to read a markup byte) the scan's whole state is the references, busy spans
 * and counts made so far, and what it did before depends on no byte at or past the checkpoint's
 * reach. So the next text, equal to this one up to its first changed byte, resumes at the last
 * checkpoint whose reach is before that byte; and once past its last changed byte, where it is at
 * the top level at a checkpoint of this scan (the same bytes, shifted), the rest of this scan's work
 * is its own, shifted. Between two edits far apart (blocks of bytes left the same, commonBlocks), where
 * it is at the top level at a checkpoint of this scan (shifted), this scan's work up to a later
 * checkpoint is its own too when that work read only bytes of the block (cpLocal): copied, and the
 * scan goes on from there. Inside a link or template left open to the end of the text (an edit broke
 * its closer), deep checkpoints play the same parts: the work after one depends on the frames open
 * there only through which kinds they are, as long as nothing closes them (dpSafe), so a scan joins
 * the previous one's there past its edit, and resumes at one before it with stand-in frames (stopping,
 * to scan again from the top level, if a closer reaches them). The result is what a scan from scratch
 * gives, byte for byte.
 */
export interface ScanTrace {
  /** the text scanned (UTF-8, entities decoded) */
  utf8: Buffer;
  /** references in the order they were made (before the sort into document order) */
  placed: PlacedRef[];
  /** busy spans (see extractImageRefsFromBytes), in text offsets */
  busy: number[];
  /** counts made, in order: counter name, and the sample added with it (or null) */
  evName: string[];
  evSample: (string | null)[];
  /** checkpoints: position, lengths of placed / busy / counts there, and reach (exclusive; Infinity: the rest of the text) */
  cpPos: number[];
  cpRefs: number[];
  cpBusy: number[];
  cpEvents: number[];
  cpReach: number[];
  /** per checkpoint: the reach of the work since the checkpoint before it alone (what skipping that work needs the same) */
  cpLocal: number[];
  /**
   * Deep checkpoints: positions inside an open link or template where the loop is about to read a
   * markup byte, since the scan was last at the top level (earlier ones cannot be joined: see
   * joinedDeep). Position, lengths of placed / busy / counts there, the stack's depth, which kinds
   * it holds (1: a link, 2: a template), and whether the stack never went below that depth again
   * before the text ended (the frames open there closed nothing: what follows is the same work
   * under any stack holding the same kinds).
   */
  dpPos: number[];
  dpRefs: number[];
  dpBusy: number[];
  dpEvents: number[];
  dpDepth: number[];
  dpMask: number[];
  /** the reach of all the work before each deep checkpoint (as cpReach) */
  dpReach: number[];
  dpSafe: boolean[];
  /**
   * How this text compared with the earlier scans it was given: `relTo[j]` (an earlier trace's
   * `self`) shares at least `relP[j]` bytes at the start and `relS[j]` at the end with it. Tokens,
   * not traces: a trace must not hold the ones before it, or a page's traces would all stay alive.
   * The next text, compared with this one, starts comparing with those from there (bytes shared
   * with this one up to a point and by this one with an earlier one are shared with it too).
   */
  self: object;
  relTo: object[];
  relP: number[];
  relS: number[];
  /** for benchmarks: the scan joined the previous one's */
  joined: boolean;
  /** for benchmarks: bytes the loop walked */
  scanned: number;
}

/** A change this small from an earlier scanned text makes it the base without comparing the older ones (any base gives the same result). */
const CLOSE_ENOUGH = 2048;

/**
 * What the caller already knows of how the text differs from one of the earlier scans: at least
 * `prefix` bytes at its start and `suffix` at its end are that scan's (a lower bound is enough: the
 * scan then resumes earlier or joins later).
 */
export interface KnownDiff {
  trace: ScanTrace;
  prefix: number;
  suffix: number;
}

/** Bytes between checkpoints: a few per screen of wikitext, each six numbers. */
const CHECKPOINT_EVERY = 1024;

/** A changed part at most this long is walked whole; longer ones are searched for blocks left the same (commonBlocks), each at least this long. */
const SKIP_ABOVE = 2 * CHECKPOINT_EVERY;

/** Thrown by a scan resumed inside open frames when a closer would reach them (resumeDeep). */
const DEEP_RESUME_FAILED = new Error("deep resume failed");

/** UTF-16 units of a link target read for its namespace. */
const HEAD_UNITS = 256;


/**
 * Drops the elements of `a` from index n on. Popping a few elements is inlined where setting
 * `length` calls into the runtime (a scan shortens its stacks at every `]]` and `}}`).
 */
function truncate<T>(a: T[], n: number): void {
  while (a.length > n) a.pop();
}

/**
 * 0 as a double (-0: it equals 0 in every comparison, sum and index the scanner makes). Fields that
 * later hold Infinity (an open end) or a position read back from a span array that holds one start
 * with it: a field V8 first saw holding small integers and then a double changes the scanner's
 * hidden class mid-run, which throws every optimized scanner method back to the compiler (on a
 * history run each such change cost ~25 recompilations of the hot path).
 */
const AS_DOUBLE = -0;

class WikitextScanner {
  private readonly s: string;
  /** the text's bytes on the byte path (the scanner then reads them, not `s`), else null */
  private readonly b: Buffer | null;
  /** length of the text walked (bytes or UTF-16 units) */
  private readonly n: number;
  private readonly t: ScanText;
  private readonly ctx: LineContext;
  private readonly counters: Counters | undefined;
  private readonly refs: PlacedRef[] = [];
  // Open frames (parallel arrays: one push per `[[` / `{{`).
  private readonly fKind: number[] = [];
  private readonly fStart: number[] = [];
  private readonly fPipeBase: number[] = [];
  private readonly fCutBase: number[] = [];
  private openLinks = 0;
  private openTemplates = 0;
  /** a deep resume's stand-in frames (resumeDeep): how many, and of each kind; a closer must not reach them */
  private floor = 0;
  private floorLinks = 0;
  private floorTemplates = 0;
  /** where the loop is (for the bytes a failed deep resume walked) */
  at = 0;
  /** positions of pipes at the top level of some open frame */
  private readonly pipes: number[] = [];
  // Cut spans [start, end) with the index of the reference a file link produced (or CUT_NO_REF).
  private readonly cutStart: number[] = [];
  private readonly cutEnd: number[] = [];
  private readonly cutRef: number[] = [];
  private readonly closers: CloserFinder;
  private readonly colonLinksAreText: boolean;
  private readonly deleteUnknownTemplates: boolean;
  /**
   * when given: receives [start, end) pairs covering everything the result depends on (see BusySpans);
   * a traced scan replaces it by copies of the previous scan's (resumeFrom, joined), so its final
   * array is the trace's `busy`
   */
  private busy: number[] | null;
  /** where the outermost open frame started (a double from the start: see AS_DOUBLE) */
  private topStart = AS_DOUBLE;
  /** busy spans inside the outermost open frame: needed only if that frame turns out inert */
  private readonly inner: number[] = [];
  /** a frame inside the outermost open one was left unclosed (its pipes became its parent's) */
  private discarded = false;
  /** set by closeLink/closeTemplate of a frame whose result cannot depend on its text outside these spans */
  private readonly zones: number[] = [];
  /** when tracing (see ScanTrace): what the scan counted, and where it may be resumed or joined */
  private readonly trace: ScanTrace | null;
  /** the furthest byte (exclusive) any look-ahead so far has read (Infinity: the rest; see AS_DOUBLE) */
  private reach = AS_DOUBLE;
  /** the furthest byte read since the last checkpoint (see AS_DOUBLE) */
  private segReach = AS_DOUBLE;
  /** bytes not walked because the previous scan's work over them was copied (skip) */
  private skippedBytes = 0;
  /** a tag's closer was looked for and not found: the rest of the text decided that */
  private openEnded = false;
  private nextCheckpoint = Infinity;
  /** the next position at which the loop looks at its state (a checkpoint, a join or a skip) */
  private nextCheck = Infinity;
  /** per deep checkpoint of this scan not yet settled (dpSafe): the lowest depth from it to the next one */
  private readonly dpLow: number[] = [];
  /** the lowest depth since the last deep checkpoint */
  private low = 0;
  /** where the next deep checkpoint is due */
  private nextDeep = 0;
  /** the previous text's trace, joined at one of its safe deep checkpoints (see ScanTrace.dpSafe) past the edit; `next`: its next one, shifted */
  private deepJoin: { old: ScanTrace; from: number; delta: number; k: number; next: number } | null = null;
  /** the previous text's trace, joined where both scans are at the top level of the same (shifted) bytes; `next`: its next checkpoint, shifted */
  private join: { old: ScanTrace; from: number; delta: number; k: number; next: number } | null = null;
  /**
   * the previous text's trace and the blocks of equal bytes between the edits ([start, end, shift]
   * triples, commonBlocks): where this scan is at the top level at one of its checkpoints inside a
   * block, its work up to a later checkpoint whose work read only bytes of the block is this scan's
   * (skip). `b`: the block looked at, `k`: the checkpoint, `next`: its position here (Infinity: none left)
   */
  private mid: { old: ScanTrace; blocks: number[]; b: number; k: number; next: number } | null = null;

  constructor(text: ScanText, ctx: LineContext, counters: Counters | undefined, colonLinksAreText: boolean, busy: number[] | null = null, trace: ScanTrace | null = null) {
    this.busy = busy;
    this.trace = trace;
    if (trace !== null) this.nextCheckpoint = this.nextCheck = 0;
    this.t = text;
    this.s = text.s;
    this.b = text.bytes;
    this.n = text.bytes !== null ? text.bytes.length : text.s.length;
    this.ctx = ctx;
    this.counters = counters;
    this.colonLinksAreText = colonLinksAreText;
    this.deleteUnknownTemplates = ctx.unknownTemplates === "delete";
    this.closers = text.bytes ? new ByteCloserFinder(text.bytes) : new CloserFinder(text.s);
  }

  run(from = 0): WikitextImageRef[] {
    const s = this.s;
    const bytes = this.b;
    const n = this.n;
    let i = from;
    while (i < n) {
      // Most characters are plain text: one table lookup skips them (on the byte path, read from the
      // Buffer: a typed-array load is cheaper than charCodeAt, and bytes equal the latin1 string's codes).
      let c: number;
      if (bytes !== null) {
        while (i < n && MARKUP_BYTE[bytes[i]!] === 0) i++;
        if (i >= n) break;
        c = bytes[i]!;
      } else {
        c = s.charCodeAt(i);
        if (c > 0x7d || MARKUP_CHAR[c] === 0) {
          i++;
          continue;
        }
      }
      if (i >= this.nextCheck) {
        if (this.fKind.length > 0) {
          if (this.deep(i)) break;
        } else {
          const to = this.topLevel(i);
          if (to < 0) break;
          if (to > i) {
            i = to;
            continue;
          }
        }
      }
      if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
        if (this.code(i + 1) !== c) {
          i++;
          continue;
        }
        let k = 2;
        while (this.code(i + k) === c) k++;
        const kind = c === 0x5b ? LINK : TEMPLATE;
        for (let j = 0, at = i + (k & 1); j < k >> 1; j++, at += 2) this.push(kind, at);
        i += k;
      } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
        if (this.code(i + 1) !== c) {
          i++;
          continue;
        }
        let k = 2;
        while (this.code(i + k) === c) k++;
        this.close(c === 0x5d ? LINK : TEMPLATE, i, k);
        i += k;
      } else if (c === 0x7c /* | */) {
        if (this.fKind.length > 0) this.pipes.push(i);
        i++;
      } else if (c === 0x3c /* < */) {
        i = this.tag(i);
      } else {
        i++;
      }
    }
    if (this.busy !== null && this.fKind.length > 0) this.busy.push(this.topStart, Infinity);
    if (this.trace !== null) {
      if (this.trace.dpSafe.length < this.trace.dpPos.length) this.settleDeep();
      this.trace.placed = this.refs;
      this.trace.busy = this.busy!;
      this.trace.scanned = Math.min(i, n) - from - this.skippedBytes;
    }
    // Stable sort: refs opened at the same position keep their closing order.
    return (this.trace !== null ? this.refs.slice() : this.refs).sort((a, b) => a.pos - b.pos).map((p) => p.ref);
  }

  /**
   * At top-level position i (the loop is about to read a markup byte; all state is in refs, busy and
   * the counts: the rest depends only on the bytes from i on): -1 when the previous scan's work from
   * here on was joined, a later position when its work up to there was copied (skip), else i.
   */
  private topLevel(i: number): number {
    if (this.join !== null && i >= this.join.from && this.joined(i)) return -1;
    const mid = this.mid;
    if (mid !== null && i >= mid.next) {
      if (i > mid.next) this.midTarget(i);
      if (i === mid.next) {
        const to = this.skip(i);
        if (to > i) {
          this.midTarget(to);
          this.setNextCheck();
          return to;
        }
        this.midTarget(i + 1);
      }
    }
    if (i >= this.nextCheckpoint) this.checkpoint(i);
    this.setNextCheck();
    return i;
  }

  /** The code unit at i: a byte on the byte path (undefined past the end, as NaN from charCodeAt: equal to nothing). */
  private code(i: number): number {
    const b = this.b;
    return b !== null ? b[i]! : this.s.charCodeAt(i);
  }

  /** Is there a ":" in [from, to)? (on the byte path: 0x3a is only ever ":" in UTF-8) */
  private hasColon(from: number, to: number): boolean {
    for (let j = from; j < to; j++) if (this.code(j) === 0x3a) return true;
    return false;
  }

  /** Index just past the `-->` that ends a comment whose text starts at `from`, if it ends before `to`; else -1. */
  private indexOfComment(from: number, to: number): number {
    const at = this.b !== null ? this.b.indexOf("-->", from, "latin1") : this.s.indexOf("-->", from);
    return at >= 0 && at + 3 <= to ? at + 3 : -1;
  }

  /** Index of the ASCII character `ch` at or after `from`, or -1. */
  private indexOfChar(ch: string, from: number): number {
    return this.b !== null ? this.b.indexOf(ch.charCodeAt(0), from) : this.s.indexOf(ch, from);
  }

  /** Records a checkpoint at top-level position i (the loop is about to read s[i]). */
  private checkpoint(i: number): void {
    const t = this.trace!;
    t.cpPos.push(i);
    t.cpRefs.push(this.refs.length);
    t.cpBusy.push(this.busy!.length);
    t.cpEvents.push(t.evName.length);
    t.cpReach.push(Math.max(this.reach, i + 1));
    t.cpLocal.push(Math.max(this.segReach, i + 1));
    this.segReach = 0;
    this.nextCheckpoint = i + CHECKPOINT_EVERY;
  }

  /**
   * The next position at which the loop looks at its state at the top level: a checkpoint, a join or
   * a skip (entering the first frame sets it for inside frames, leaving the last for the top level:
   * push, discardTop).
   */
  private setNextCheck(): void {
    let next = this.nextCheckpoint;
    if (this.join !== null) next = Math.min(next, Math.max(this.join.from, this.join.next));
    if (this.mid !== null) next = Math.min(next, this.mid.next);
    this.nextCheck = next;
  }

  /** Finds the previous scan's first checkpoint at or after `i` (here) inside a block, for skip. */
  private midTarget(i: number): void {
    const m = this.mid!;
    const pos = m.old.cpPos;
    const blocks = m.blocks;
    while (m.b < blocks.length) {
      const end = blocks[m.b + 1]!;
      const d = blocks[m.b + 2]!;
      const from = Math.max(i, blocks[m.b]!) - d;
      if (from + d < end) {
        let lo = 0;
        let hi = pos.length;
        while (lo < hi) {
          const c = (lo + hi) >>> 1;
          if (pos[c]! < from) lo = c + 1;
          else hi = c;
        }
        if (lo < pos.length && pos[lo]! + d < end) {
          m.k = lo;
          m.next = pos[lo]! + d;
          return;
        }
      }
      m.b += 3;
    }
    m.next = Infinity;
  }

  /**
   * At top-level position i, the previous scan's checkpoint k shifted (midTarget): if its work from
   * there to a later checkpoint read only bytes of the block, that work is this scan's, shifted:
   * appended, and the position of that later checkpoint returned (else i).
   */
  private skip(i: number): number {
    const m = this.mid!;
    const old = m.old;
    const k = m.k;
    const end = m.blocks[m.b + 1]!;
    const d = m.blocks[m.b + 2]!;
    const local = old.cpLocal;
    const last = old.cpPos.length - 1;
    let k2 = k;
    let r = 0;
    while (k2 < last) {
      const l = Math.max(r, local[k2 + 1]!);
      if (l + d > end) break;
      r = l;
      k2++;
    }
    if (k2 === k) return i;
    this.checkpoint(i);
    const t = this.trace!;
    const refs = this.refs;
    const busy = this.busy!;
    const refsK = refs.length - old.cpRefs[k]!;
    const busyK = busy.length - old.cpBusy[k]!;
    const eventsK = t.evName.length - old.cpEvents[k]!;
    const placed = old.placed;
    for (let x = old.cpRefs[k]!, e = old.cpRefs[k2]!; x < e; x++) {
      const p = placed[x]!;
      refs.push(d === 0 ? p : { pos: p.pos + d, ref: p.ref });
    }
    const ob = old.busy;
    for (let x = old.cpBusy[k]!, e = old.cpBusy[k2]!; x < e; x++) {
      const v = ob[x]!;
      busy.push(v >= 0 ? v + d : v - d);
    }
    for (let x = old.cpEvents[k]!, e = old.cpEvents[k2]!; x < e; x++) {
      t.evName.push(old.evName[x]!);
      t.evSample.push(old.evSample[x]!);
    }
    let reach = this.reach;
    for (let x = k + 1; x < k2; x++) {
      reach = Math.max(reach, local[x]! + d);
      t.cpPos.push(old.cpPos[x]! + d);
      t.cpRefs.push(old.cpRefs[x]! + refsK);
      t.cpBusy.push(old.cpBusy[x]! + busyK);
      t.cpEvents.push(old.cpEvents[x]! + eventsK);
      t.cpReach.push(reach);
      t.cpLocal.push(local[x]! + d);
    }
    this.segReach = local[k2]! + d;
    this.reach = Math.max(reach, this.segReach);
    const to = old.cpPos[k2]! + d;
    this.nextCheckpoint = to;
    this.skippedBytes += to - i;
    return to;
  }

  /** Skips the previous scan's work over `blocks` (commonBlocks of its text and this one) where it can (skip). */
  skipWith(old: ScanTrace, blocks: number[]): void {
    if (old.cpPos.length === 0 || blocks.length === 0) return;
    this.mid = { old, blocks, b: 0, k: 0, next: AS_DOUBLE };
    this.midTarget(0);
    this.setNextCheck();
  }

  /**
   * At top-level position i past the edit: if the previous scan had a checkpoint at the same bytes
   * (i - delta), its work from there on is this scan's, shifted by delta: appended, and true.
   */
  private joined(i: number): boolean {
    const j = this.join!;
    const old = j.old;
    const pos = old.cpPos;
    while (j.k < pos.length && pos[j.k]! + j.delta < i) j.k++;
    if (j.k >= pos.length) {
      this.join = null;
      return false;
    }
    j.next = pos[j.k]! + j.delta;
    if (j.next !== i) return false;
    const k = j.k;
    const d = j.delta;
    const t = this.trace!;
    const busy = this.busy!;
    const refs0 = this.refs.length;
    const busy0 = busy.length;
    const events0 = t.evName.length;
    // (bounds and arrays in locals: the pushes could alias them for all V8 knows, so it would reload them per element)
    const placed = old.placed;
    const refs = this.refs;
    for (let m = old.cpRefs[k]!, end = placed.length; m < end; m++) {
      const r = placed[m]!;
      refs.push({ pos: r.pos + d, ref: r.ref });
    }
    // the old spans from the checkpoint on, shifted: one native copy, then shifted in place (pushing
    // them one by one cost ~20 ns each, and a history text has thousands)
    const tail = old.busy.slice(old.cpBusy[k]!);
    if (d !== 0) {
      for (let m = 0, end = tail.length; m < end; m++) {
        const x = tail[m]!;
        tail[m] = x >= 0 ? x + d : x - d;
      }
    }
    this.busy = busy0 === 0 ? tail : busy.concat(tail);
    const evName = old.evName;
    const evSample = old.evSample;
    for (let m = old.cpEvents[k]!, end = evName.length; m < end; m++) {
      t.evName.push(evName[m]!);
      t.evSample.push(evSample[m]!);
    }
    // reach past the join: what the old work read, shifted, and at least what this scan read so far
    const { cpRefs, cpBusy, cpEvents, cpReach } = old;
    const refsK = refs0 - cpRefs[k]!;
    const busyK = busy0 - cpBusy[k]!;
    const eventsK = events0 - cpEvents[k]!;
    const reach = this.reach;
    const cpLocal = old.cpLocal;
    for (let m = k, end = pos.length; m < end; m++) {
      t.cpPos.push(pos[m]! + d);
      t.cpRefs.push(cpRefs[m]! + refsK);
      t.cpBusy.push(cpBusy[m]! + busyK);
      t.cpEvents.push(cpEvents[m]! + eventsK);
      t.cpReach.push(Math.max(reach, cpReach[m]! + d));
      // the work before the join's checkpoint is this scan's
      t.cpLocal.push(m === k ? Math.max(this.segReach, i + 1) : cpLocal[m]! + d);
    }
    // its deep checkpoints are all past its last time at the top level, so past this one (this scan has none: it is at the top level)
    if (old.dpPos.length > 0) this.copyDeep(old, 0, d, refsK, busyK, eventsK, 0, reach);
    t.joined = true;
    return true;
  }

  /** Starts this scan where the previous one was at checkpoint k (the bytes before its reach are the same). */
  resumeFrom(old: ScanTrace, k: number): number {
    const t = this.trace!;
    const busy = this.busy!;
    // (bounds and arrays in locals, as in joined)
    const placed = old.placed;
    const refs = this.refs;
    for (let m = 0, end = old.cpRefs[k]!; m < end; m++) refs.push(placed[m]!);
    this.busy = busy.length === 0 ? old.busy.slice(0, old.cpBusy[k]!) : busy.concat(old.busy.slice(0, old.cpBusy[k]!));
    const evName = old.evName;
    const evSample = old.evSample;
    for (let m = 0, end = old.cpEvents[k]!; m < end; m++) {
      t.evName.push(evName[m]!);
      t.evSample.push(evSample[m]!);
    }
    for (let m = 0; m < k; m++) {
      t.cpPos.push(old.cpPos[m]!);
      t.cpRefs.push(old.cpRefs[m]!);
      t.cpBusy.push(old.cpBusy[m]!);
      t.cpEvents.push(old.cpEvents[m]!);
      t.cpReach.push(old.cpReach[m]!);
      t.cpLocal.push(old.cpLocal[m]!);
    }
    this.reach = old.cpReach[k]!;
    this.segReach = old.cpLocal[k]!;
    this.nextCheckpoint = this.nextCheck = old.cpPos[k]!;
    return old.cpPos[k]!;
  }

  /** After the previous scan's checkpoints at or past `from` (the edit's end here) can be joined with a shift of `delta`. */
  joinWith(old: ScanTrace, from: number, delta: number): void {
    if (old.cpPos.length > 0) this.join = { old, from, delta, k: 0, next: from + AS_DOUBLE };
    if (old.dpPos.length > 0) this.deepJoin = { old, from, delta, k: 0, next: from + AS_DOUBLE };
    if (this.join !== null || this.deepJoin !== null) this.nextCheck = Math.min(this.nextCheckpoint, from);
  }

  /**
   * At position i inside an open frame (the loop is about to read a markup byte): joins the previous
   * scan's work from here on if it can (true), else records a deep checkpoint if one is due.
   */
  private deep(i: number): boolean {
    const dj = this.deepJoin;
    if (dj !== null && i >= dj.from) {
      const pos = dj.old.dpPos;
      while (dj.k < pos.length && pos[dj.k]! + dj.delta < i) dj.k++;
      if (dj.k >= pos.length) this.deepJoin = null;
      else {
        dj.next = pos[dj.k]! + dj.delta;
        if (dj.next === i && this.joinedDeep(i)) return true;
      }
    }
    const depth = this.fKind.length;
    const t = this.trace!;
    // one deeper than the last is joined only if the frames opened since never close: wait a little for the depth of the last
    if (i >= this.nextDeep && (t.dpDepth.length === 0 || depth <= t.dpDepth[t.dpDepth.length - 1]! || i >= this.nextDeep + CHECKPOINT_EVERY)) {
      if (t.dpSafe.length < t.dpPos.length) this.dpLow.push(this.low);
      t.dpPos.push(i);
      t.dpRefs.push(this.refs.length);
      t.dpBusy.push(this.busy!.length);
      t.dpEvents.push(t.evName.length);
      t.dpDepth.push(depth);
      t.dpMask.push((this.openLinks > 0 ? 1 : 0) | (this.openTemplates > 0 ? 2 : 0));
      t.dpReach.push(Math.max(this.reach, i + 1));
      this.low = depth;
      this.nextDeep = i + CHECKPOINT_EVERY;
    }
    this.nextCheck = this.deepNext();
    return false;
  }

  /** Inside frames, the next position at which the loop looks at its state: a deep checkpoint or join (the top level's are looked at when it is back). */
  private deepNext(): number {
    const dj = this.deepJoin;
    return dj === null ? this.nextDeep : Math.min(this.nextDeep, Math.max(dj.from, dj.next));
  }

  /**
   * Settles dpSafe for this scan's own deep checkpoints: the lowest depth after each, up to the text's
   * end (or a join, whose depth is never gone below again: see joinedDeep), is `low` at the last.
   */
  private settleDeep(): void {
    const t = this.trace!;
    const low = this.dpLow;
    low.push(this.low);
    const first = t.dpSafe.length;
    let min = Infinity;
    const safe: boolean[] = new Array(low.length);
    for (let m = low.length - 1; m >= 0; m--) {
      min = Math.min(min, low[m]!);
      safe[m] = min >= t.dpDepth[first + m]!;
    }
    for (const x of safe) t.dpSafe.push(x);
    truncate(low, 0);
  }

  /** Back at the top level: no deep checkpoint of this scan can be joined (its frames closed). */
  private clearDeep(): void {
    const t = this.trace!;
    truncate(t.dpPos, 0);
    truncate(t.dpRefs, 0);
    truncate(t.dpBusy, 0);
    truncate(t.dpEvents, 0);
    truncate(t.dpDepth, 0);
    truncate(t.dpMask, 0);
    truncate(t.dpReach, 0);
    truncate(t.dpSafe, 0);
    truncate(this.dpLow, 0);
  }

  /**
   * Inside an open frame at i, at the previous scan's deep checkpoint k shifted (all bytes from here on
   * are its, shifted): if the frames open there were never closed before its text ended, and the
   * stack here holds the same kinds of frame as there, what follows is the same work (nothing it does
   * reaches below the frames opened since, and a closer that would have reached below finds a frame
   * of its kind in both stacks or in neither): appended, shifted, and true.
   */
  private joinedDeep(i: number): boolean {
    const dj = this.deepJoin!;
    const old = dj.old;
    const k = dj.k;
    const mask = (this.openLinks > 0 ? 1 : 0) | (this.openTemplates > 0 ? 2 : 0);
    if (!old.dpSafe[k] || old.dpMask[k] !== mask) return false;
    const t0 = this.trace!;
    if (t0.dpSafe.length < t0.dpPos.length) this.settleDeep();
    const d = dj.delta;
    const t = this.trace!;
    const refs = this.refs;
    const refs0 = refs.length;
    const busy0 = this.busy!.length;
    const events0 = t.evName.length;
    const placed = old.placed;
    for (let m = old.dpRefs[k]!, end = placed.length; m < end; m++) {
      const r = placed[m]!;
      refs.push({ pos: r.pos + d, ref: r.ref });
    }
    // the old spans from the checkpoint on (tags only: frames inside an open one add theirs to `inner`),
    // without its last pair (its outermost frame, to the end: run() adds this scan's)
    const tail = old.busy.slice(old.dpBusy[k]!, old.busy.length - 2);
    if (d !== 0) {
      for (let m = 0, end = tail.length; m < end; m++) {
        const x = tail[m]!;
        tail[m] = x >= 0 ? x + d : x - d;
      }
    }
    this.busy = busy0 === 0 ? tail : this.busy!.concat(tail);
    const evName = old.evName;
    const evSample = old.evSample;
    for (let m = old.dpEvents[k]!, end = evName.length; m < end; m++) {
      t.evName.push(evName[m]!);
      t.evSample.push(evSample[m]!);
    }
    const refsK = refs0 - old.dpRefs[k]!;
    const busyK = busy0 - old.dpBusy[k]!;
    const eventsK = events0 - old.dpEvents[k]!;
    const depthK = this.fKind.length - old.dpDepth[k]!;
    this.copyDeep(old, k, d, refsK, busyK, eventsK, depthK, this.reach);
    t.joined = true;
    return true;
  }

  /** Appends the previous scan's deep checkpoints from k on, shifted (they are settled: their dpSafe holds here too). */
  private copyDeep(old: ScanTrace, k: number, d: number, refsK: number, busyK: number, eventsK: number, depthK: number, reach: number): void {
    const t = this.trace!;
    for (let m = k, end = old.dpPos.length; m < end; m++) {
      t.dpPos.push(old.dpPos[m]! + d);
      t.dpRefs.push(old.dpRefs[m]! + refsK);
      t.dpBusy.push(old.dpBusy[m]! + busyK);
      t.dpEvents.push(old.dpEvents[m]! + eventsK);
      t.dpDepth.push(old.dpDepth[m]! + depthK);
      t.dpMask.push(old.dpMask[m]!);
      // what the old work read, shifted, and at least what this scan read before the join
      t.dpReach.push(Math.max(reach, old.dpReach[m]! + d));
      t.dpSafe.push(old.dpSafe[m]!);
    }
  }

  /**
   * Starts this scan where the previous one was at its deep checkpoint k (the bytes before its reach
   * are the same; k is safe: the frames open there stayed open to its end). Those frames are not
   * rebuilt: the scan's work from there on depends on them only through which kinds they hold (see
   * joinedDeep) until a closer reaches them, which the previous text never did but this one may: the
   * scan then stops (DeepResumeFailed) and the caller scans from a top-level checkpoint instead.
   * Frames of the same kinds and depth stand in for them (`floor`).
   */
  resumeDeep(old: ScanTrace, k: number): number {
    const t = this.trace!;
    const placed = old.placed;
    const refs = this.refs;
    for (let m = 0, end = old.dpRefs[k]!; m < end; m++) refs.push(placed[m]!);
    this.busy = old.busy.slice(0, old.dpBusy[k]!);
    for (let m = 0, end = old.dpEvents[k]!; m < end; m++) {
      t.evName.push(old.evName[m]!);
      t.evSample.push(old.evSample[m]!);
    }
    // every top-level checkpoint is before the frames open at k (none after: they stayed open)
    for (let m = 0, end = old.cpPos.length; m < end; m++) {
      t.cpPos.push(old.cpPos[m]!);
      t.cpRefs.push(old.cpRefs[m]!);
      t.cpBusy.push(old.cpBusy[m]!);
      t.cpEvents.push(old.cpEvents[m]!);
      t.cpReach.push(old.cpReach[m]!);
      t.cpLocal.push(old.cpLocal[m]!);
    }
    // the deep checkpoints before k, settled: the depth after k never goes below k's, in either scan
    this.copyDeepBefore(old, k);
    const depth = old.dpDepth[k]!;
    const mask = old.dpMask[k]!;
    const at = old.cpPos.length > 0 ? old.cpPos[old.cpPos.length - 1]! : 0;
    for (let m = 0; m < depth; m++) {
      // the kinds: a link first if any, then templates if any, then more of the last kind
      const kind = mask === 2 || (mask === 3 && m > 0) ? TEMPLATE : LINK;
      this.fKind.push(kind);
      this.fStart.push(at);
      this.fPipeBase.push(0);
      this.fCutBase.push(0);
      if (kind === LINK) this.floorLinks++;
      else this.floorTemplates++;
    }
    this.openLinks = this.floorLinks;
    this.openTemplates = this.floorTemplates;
    this.floor = depth;
    // the outermost open frame: the previous scan's last busy pair is it, to the end
    this.topStart = old.busy[old.busy.length - 2]!;
    this.reach = old.dpReach[k]!;
    this.nextCheckpoint = Infinity;
    this.nextDeep = this.nextCheck = old.dpPos[k]!;
    return old.dpPos[k]!;
  }

  private copyDeepBefore(old: ScanTrace, k: number): void {
    const t = this.trace!;
    for (let m = 0; m < k; m++) {
      t.dpPos.push(old.dpPos[m]!);
      t.dpRefs.push(old.dpRefs[m]!);
      t.dpBusy.push(old.dpBusy[m]!);
      t.dpEvents.push(old.dpEvents[m]!);
      t.dpDepth.push(old.dpDepth[m]!);
      t.dpMask.push(old.dpMask[m]!);
      t.dpReach.push(old.dpReach[m]!);
      t.dpSafe.push(old.dpSafe[m]!);
    }
  }

  private push(kind: number, at: number): void {
    if (this.fKind.length === 0) {
      this.topStart = at;
      this.discarded = false;
      if (this.trace !== null) this.nextCheck = this.deepNext();
    }
    this.fKind.push(kind);
    this.fStart.push(at);
    this.fPipeBase.push(this.pipes.length);
    this.fCutBase.push(this.cutStart.length);
    if (kind === LINK) this.openLinks++;
    else this.openTemplates++;
  }

  /** Pops the top frame; its pipes and cuts stay, so they become the parent's (MediaWiki: broken `{{` is text). */
  private discardTop(): void {
    const kind = this.fKind.pop();
    this.fStart.pop();
    this.fPipeBase.pop();
    this.fCutBase.pop();
    if (kind === LINK) this.openLinks--;
    else this.openTemplates--;
    const depth = this.fKind.length;
    if (depth < this.low) {
      this.low = depth;
      if (depth === 0) this.clearDeep();
    }
    if (depth === 0 && this.trace !== null) this.setNextCheck();
  }

  /** A run of `k` closing brackets at `at`: close as many open frames of that kind as it can. */
  private close(kind: number, at: number, k: number): void {
    let p = at;
    let rest = k;
    while (rest >= 2 && (kind === LINK ? this.openLinks : this.openTemplates) > 0) {
      // a deep resume's stand-in frames hold no text: a closer that would reach them ends that scan
      if (this.floor > 0 && (kind === LINK ? this.openLinks - this.floorLinks : this.openTemplates - this.floorTemplates) === 0) {
        this.at = at;
        throw DEEP_RESUME_FAILED;
      }
      let top = this.fKind.length - 1;
      // `[[File:A.jpg|Text [http://x Label]]]`: the first `]` ends the external link in the caption.
      if (kind === LINK && (rest & 1) === 1 && this.fKind[top] === LINK && this.singleBracketOpen(this.fStart[top]! + 2, p)) {
        p++;
        rest--;
      }
      while (this.fKind[top] !== kind) {
        this.discardTop();
        this.discarded = true;
        top--;
      }
      const start = this.fStart[top]!;
      const pipeBase = this.fPipeBase[top]!;
      const cutBase = this.fCutBase[top]!;
      this.discardTop();
      truncate(this.zones, 0);
      const inert = kind === LINK ? this.closeLink(start, p, pipeBase, cutBase) : this.closeTemplate(start, p, pipeBase, cutBase);
      if (this.busy !== null) {
        const inner = this.inner;
        // An outermost plain link or template without image parameters depends only on its target,
        // name and parameter names (and on what it holds, which has its own spans): a change elsewhere
        // in it is plain text. Any other frame depends on all of it.
        if (this.fKind.length > 0) inner.push(start, p + 2);
        else if (inert && !this.discarded) {
          for (const z of this.zones) this.busy.push(z);
          for (const x of inner) this.busy.push(x); // what it holds
          this.busy.push(-start - 1, -(p + 2) - 1); // the frame: a change inside it adds no "="
        } else this.busy.push(start, p + 2); // what it holds is inside
        if (this.fKind.length === 0) truncate(inner, 0);
      }
      p += 2;
      rest -= 2;
    }
  }

  /** Is there a `[` after the last `]` in [from, to)? Scans back only to the nearest bracket. */
  private singleBracketOpen(from: number, to: number): boolean {
    for (let j = to - 1; j >= from; j--) {
      const c = this.code(j);
      if (c === 0x5b) return this.code(j - 1) !== 0x5b;
      if (c === 0x5d) return false;
    }
    return false;
  }

  /** Replaces everything cut since `cutBase` by one cut span. */
  private cut(cutBase: number, start: number, end: number, ref: number): void {
    truncate(this.cutStart, cutBase);
    truncate(this.cutEnd, cutBase);
    truncate(this.cutRef, cutBase);
    this.cutStart.push(start);
    this.cutEnd.push(end);
    this.cutRef.push(ref);
  }

  /** Text of [a, b) without the cut spans among cuts[from..]; cut spans are sorted and disjoint. */
  private textWithoutCuts(a: number, b: number, from: number): string {
    let out = "";
    let pos = a;
    const cuts = this.cutStart.length;
    for (let j = from; j < cuts; j++) {
      const cs = this.cutStart[j]!;
      if (cs >= b) break;
      const ce = this.cutEnd[j]!;
      if (ce <= pos) continue;
      if (cs > pos) out += this.t.text(pos, cs);
      pos = Math.max(pos, ce);
    }
    if (pos < b) out += this.t.text(pos, b);
    return out;
  }

  /** First cut index ≥ `from` whose span ends after `pos` (binary search: cuts are sorted and disjoint). */
  private cutIndexAt(pos: number, from: number): number {
    let lo = from;
    let hi = this.cutStart.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cutEnd[mid]! <= pos) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** A plain link: its pipes are internal; its text stays in captions. */
  private plainLink(start: number, targetEnd: number, pipeBase: number): true {
    truncate(this.pipes, pipeBase);
    if (this.busy !== null) this.zones.push(start, targetEnd + 2);
    return true;
  }

  /** Reads a closed link; true when it is a plain link (no reference, nothing cut: `zones` = its target). */
  private closeLink(start: number, contentEnd: number, pipeBase: number, cutBase: number): boolean {
    const cs = start + 2;
    const targetEnd = this.pipes.length > pipeBase ? this.pipes[pipeBase]! : contentEnd;
    // Most links are to articles: a target with no ":" where the namespace check below looks (the
    // first 256 units, at most 3 bytes each) names no file, and needs no decoding to say so.
    if (!this.hasColon(cs, Math.min(targetEnd, cs + HEAD_UNITS * 3 + 4))) return this.plainLink(start, targetEnd, pipeBase);
    // Namespace check on a bounded prefix: a link target is short, a caption may not be.
    const head = this.t.head(cs, targetEnd, HEAD_UNITS).replace(/^[\s_]+/, "");
    const colon = head.startsWith(":");
    const title = colon ? head.slice(1).trimStart() : head;
    if (fileNamespaceEnd(title, this.ctx.namespaces) < 0 || (colon && this.colonLinksAreText)) return this.plainLink(start, targetEnd, pipeBase);
    let target = this.t.text(cs, targetEnd);
    if (target.includes("<!--")) target = target.replace(/<!--[\s\S]*?(?:-->|$)/g, "");
    const image = normalizeWithNamespaces(target, this.ctx.namespaces);
    let refIndex = CUT_NO_REF;
    if (image === null) {
      this.ctx.onInvalidFileName?.(target);
    } else {
      const segments: string[] = [];
      let j = cutBase;
      for (let k = pipeBase; k < this.pipes.length; k++) {
        const a = this.pipes[k]! + 1;
        const b = k + 1 < this.pipes.length ? this.pipes[k + 1]! : contentEnd;
        j = this.cutIndexAt(a, j);
        segments.push(this.textWithoutCuts(a, b, j));
      }
      refIndex = this.refs.length;
      this.refs.push({ pos: start, ref: colon ? this.fileLinkRef(image, segments) : this.imageRef(image, segments) });
    }
    truncate(this.pipes, pipeBase);
    this.cut(cutBase, start, contentEnd + 2, refIndex);
    return false;
  }

  /** `[[:File:X.jpg|text]]`: the link text is the caption. */
  private fileLinkRef(image: string, segments: string[]): WikitextImageRef {
    const text = segments.length > 0 ? cleanCaptionWith(segments.join("|"), this.ctx) : null;
    return { image, source: "link", caption: text, alt: null };
  }

  /** `[[File:X.jpg|options…|caption]]`: caption = last non-option segment, alt from `alt=`. */
  private imageRef(image: string, segments: string[]): WikitextImageRef {
    let caption: string | null = null;
    let alt: string | null = null;
    let haveCaption = false;
    let haveAlt = false;
    for (let k = segments.length - 1; k >= 0 && !(haveCaption && haveAlt); k--) {
      const seg = segments[k]!;
      const o = classifyImageOption(seg, this.ctx.extraWords, this.ctx.localized);
      if (o.kind === "alt" && !haveAlt) {
        alt = cleanCaptionWith(o.value, this.ctx);
        haveAlt = true;
      } else if (o.kind === "text" && !haveCaption && seg.trim() !== "") {
        caption = cleanCaptionWith(seg, this.ctx);
        haveCaption = true;
      }
    }
    return { image, source: "link", caption, alt };
  }

  /** Reads a closed template; true when it has no image parameter (`zones` = its name and parameter names). */
  private closeTemplate(start: number, contentEnd: number, pipeBase: number, cutBase: number): boolean {
    const cs = start + 2;
    const pipeEnd = this.pipes.length;
    const nameEnd = pipeEnd > pipeBase ? this.pipes[pipeBase]! : contentEnd;
    const name = normalizeTemplateName(this.t.head(cs, nameEnd, 256).replace(/<!--[\s\S]*?(?:-->|$)/g, ""));
    let produced = false;
    let inert = true;
    if (pipeEnd > pipeBase && !name.startsWith("#")) {
      const params: ParamSpan[] = [];
      for (let k = pipeBase; k < pipeEnd; k++) {
        const a = this.pipes[k]! + 1;
        const b = k + 1 < pipeEnd ? this.pipes[k + 1]! : contentEnd;
        params.push(this.param(a, b));
      }
      const frame = FRAME_TEMPLATES.has(name) && this.ctx.paperRules !== true;
      inert = !frame && !GALLERY_TEMPLATES.has(name) && !isPositionalImageTemplate(name) && !params.some((p) => p.key !== null && IMAGE_HINT.test(p.key));
      produced = this.templateImages(name, params, cutBase, start);
      if (frame) produced = this.frameCaption(params, start, cutBase) || produced;
      if (inert && this.busy !== null) {
        // what decides a parameter's name: its text up to its first "=" (a change adds no "=")
        for (let k = pipeBase; k < pipeEnd; k++) {
          const b = k + 1 < pipeEnd ? this.pipes[k + 1]! : contentEnd;
          let eq = this.pipes[k]!;
          while (eq < b && this.code(eq) !== 0x3d) {
            // (an "=" inside a comment before the name is not the one: param() passes comments over)
            const close = this.code(eq) === 0x3c && this.code(eq + 1) === 0x21 ? this.indexOfComment(eq + 2, b) : -1;
            eq = close > 0 ? close : eq + 1;
          }
          this.zones.push(this.pipes[k]!, Math.min(eq + 1, b));
        }
      }
    }
    if (inert && this.busy !== null) this.zones.push(start, nameEnd + 1);
    truncate(this.pipes, pipeBase);
    // A template an enclosing caption shows no words of is cut out; an inline or (when marking) unknown
    // one stays for the caption cleaner, which renders or marks it.
    if (produced || (!isInlineTemplate(name, this.ctx.paperRules, this.ctx.page !== undefined) && (this.deleteUnknownTemplates || isSilentTemplate(name, this.ctx.paperRules === true)))) this.cut(cutBase, start, contentEnd + 2, CUT_NO_REF);
    return inert;
  }

  /** `key = value` when the text before the first `=` is a plain parameter name; positional otherwise. */
  private param(a: number, b: number): ParamSpan {
    const bytes = this.b !== null;
    // the name is looked for in the first 80 UTF-16 units; on bytes, units are counted (lead bytes; 2 for a 4-byte character)
    let units = 0;
    const limit = bytes ? b : Math.min(b, a + 80);
    let lim = limit;
    for (let j = a; j < lim; j++) {
      const c = this.code(j);
      // a comment before or inside the name is not part of it (MediaWiki strips comments first):
      // `| <!-- Image --> image_name = …` is still named; the comment costs nothing of the bound
      if (c === 0x3c /* < */ && this.code(j + 1) === 0x21 && this.code(j + 2) === 0x2d && this.code(j + 3) === 0x2d) {
        const close = this.indexOfComment(j + 4, b);
        if (close < 0) break;
        if (!bytes) lim = Math.min(b, lim + (close - j));
        j = close - 1;
        continue;
      }
      if (bytes) {
        if (units >= 80) break;
        if (c < 0x80 || c >= 0xc0) units += c >= 0xf0 ? 2 : 1;
      }
      if (c === 0x3d /* = */) return j > a ? { key: this.t.text(a, j), start: j + 1, end: b } : { key: null, start: a, end: b };
      // Parameter names are words; anything else before `=` makes the argument positional (`[[a|b]]=`, `<x=`).
      const wordChar =
        (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) ||
        c === 0x20 || c === 0x09 || c === 0x5f || c === 0x2d || c === 0x2e || c === 0x0a || c >= 0x80;
      if (!wordChar) break;
    }
    return { key: null, start: a, end: b };
  }

  /**
   * `{{Image frame|content=…|caption=…}}` (FRAME_TEMPLATES): when its content shows exactly one image
   * (a file link, a template's image) and that image has no caption of its own, the frame's caption is
   * its caption. True when it gave one.
   */
  private frameCaption(params: ParamSpan[], start: number, cutBase: number): boolean {
    const named = (name: string) => params.findLast((p) => p.key !== null && p.key.replace(/<!--[\s\S]*?-->/g, "").trim().toLowerCase() === name);
    const content = named("content");
    const captionParam = named("caption");
    if (content === undefined || captionParam === undefined) return false;
    const k = this.onlyRefIn(start, content.start, content.end);
    const inside = k >= 0 ? this.refs[k]! : null;
    if (inside === null || inside.ref.caption !== null) return false;
    const caption = cleanCaptionWith(this.textWithoutCuts(captionParam.start, captionParam.end, this.cutIndexAt(captionParam.start, cutBase)), this.ctx);
    if (caption === null) return false;
    inside.ref = { ...inside.ref, caption };
    return true;
  }

  /**
   * The index of the one reference made inside [a, b) of the template that opened at `start` (the
   * references made while it was open are the last ones, each past its start); -1 for none, -2 for several.
   * At most MAX_REFS_LOOKED_AT are looked at (-2 past them), so frames nested in frames stay linear.
   */
  private onlyRefIn(start: number, a: number, b: number): number {
    let found = -1;
    const stop = Math.max(0, this.refs.length - MAX_REFS_LOOKED_AT);
    for (let k = this.refs.length - 1; k >= stop && this.refs[k]!.pos > start; k--) {
      const pos = this.refs[k]!.pos;
      if (pos < a || pos >= b) continue;
      if (found >= 0) return -2;
      found = k;
    }
    return stop > 0 && this.refs[stop - 1]!.pos > start ? -2 : found;
  }

  /**
   * For each parameter of the template that opened at `start` that holds references made while it was
   * open (the last ones, each past its start): the index of its one reference, or -2 for several. One
   * pass over them (params are in text order), so asking for every parameter stays linear.
   */
  private refsByParam(params: readonly ParamSpan[], start: number): Map<number, number> {
    const out = new Map<number, number>();
    const stop = Math.max(0, this.refs.length - MAX_REFS_LOOKED_AT);
    if (stop > 0 && this.refs[stop - 1]!.pos > start) return out; // more than that made inside: none is told apart
    for (let k = this.refs.length - 1; k >= stop && this.refs[k]!.pos > start; k--) {
      const pos = this.refs[k]!.pos;
      let lo = 0;
      let hi = params.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (params[mid]!.start <= pos) lo = mid;
        else hi = mid - 1;
      }
      const p = params[lo];
      if (p === undefined || pos < p.start || pos >= p.end) continue;
      out.set(lo, out.has(lo) ? -2 : k);
    }
    return out;
  }

  /** Adds the images of a template call; true if it had any. */
  private templateImages(name: string, params: ParamSpan[], cutBase: number, start: number): boolean {
    // Most templates (citations, navboxes) have no image parameter: decide that on the raw keys first.
    const gallery = GALLERY_TEMPLATES.has(name);
    const positional = isPositionalImageTemplate(name);
    if (!gallery && !positional && !params.some((p) => p.key !== null && IMAGE_HINT.test(p.key))) return false;
    for (const p of params) if (p.key !== null) p.key = p.key.replace(/<!--[\s\S]*?-->/g, "").replace(/[\s_]+/g, " ").trim().toLowerCase() || null;
    const linkRef = new Map<number, number>();
    const fileKey = new Map<number, string | null>();
    // A value that is exactly one nested [[File:…]] link: the index of that link's reference.
    const nestedLink = (i: number): number => {
      const p = params[i]!;
      const j = this.cutIndexAt(p.start, cutBase);
      if (j >= this.cutStart.length || this.cutRef[j]! < 0 || this.cutEnd[j]! > p.end) return -1;
      const outside = this.t.text(p.start, this.cutStart[j]!) + this.t.text(this.cutEnd[j]!, p.end);
      return outside.replace(/<!--[\s\S]*?(?:-->|$)/g, "").trim() === "" ? this.cutRef[j]! : -1;
    };
    // A value that is exactly one image of a nested template (`image = {{CSS image crop|Image=…}}`): that
    // image's reference (not under paper rules); a montage of several is no one image.
    let refsByParam: Map<number, number> | null = null;
    const nestedTemplateImage = (i: number): number => {
      if (this.ctx.paperRules === true) return -1;
      const p = params[i]!;
      if (this.textWithoutCuts(p.start, p.end, this.cutIndexAt(p.start, cutBase)).replace(/<!--[\s\S]*?(?:-->|$)/g, "").trim() !== "") return -1;
      refsByParam ??= this.refsByParam(params, start);
      const k = refsByParam.get(i) ?? -1;
      return k >= 0 && this.refs[k]!.ref.source === "template" ? k : -1;
    };
    const isFile = (i: number): boolean => {
      if (!fileKey.has(i)) {
        let r = nestedLink(i);
        if (r < 0 && params[i]!.key !== null) r = nestedTemplateImage(i);
        if (r >= 0) {
          linkRef.set(i, r);
          fileKey.set(i, this.refs[r]!.ref.image);
        } else {
          fileKey.set(i, this.bareFileValue(params[i]!, cutBase));
        }
      }
      return fileKey.get(i) != null;
    };
    const picks = gallery
      ? pickGalleryTemplateImages(params, isFile)
      : positional
        ? pickPositionalTemplateImages(name, params, isFile)
        : pickTemplateImages(params, isFile, CAPTION_KEYS_OF.get(name), this.ctx.paperRules === true);
    const text = (i: number | null): string | null => {
      if (i === null) return null;
      const p = params[i]!;
      return cleanCaptionWith(this.textWithoutCuts(p.start, p.end, this.cutIndexAt(p.start, cutBase)), this.ctx);
    };
    for (const pick of picks) {
      const caption = text(pick.caption);
      const alt = text(pick.alt);
      const r = linkRef.get(pick.image);
      if (r !== undefined) {
        const placed = this.refs[r]!;
        placed.ref = { image: placed.ref.image, source: "template", caption: caption ?? placed.ref.caption, alt: alt ?? placed.ref.alt };
      } else {
        this.refs.push({ pos: params[pick.image]!.start, ref: { image: fileKey.get(pick.image)!, source: "template", caption, alt } });
      }
    }
    return picks.length > 0;
  }

  /** `Foo.jpg`, `File:Foo.jpg`, `<!-- c -->Foo.jpg`, `Foo.jpg{{!}}200px` → key, if it has a media extension. */
  private bareFileValue(p: ParamSpan, cutBase: number): string | null {
    // a file name is at most 255 bytes; this is prose (the bound is in UTF-16 units, as on a string)
    if (p.end - p.start > 1024 && (this.t.bytes === null || this.t.text(p.start, p.end).length > 1024)) {
      // prose, or a name too long to be a file (counted)
      const tail = this.t.text(Math.max(p.start, p.end - 16), p.end);
      if (MEDIA_VALUE.test(tail)) this.ctx.onInvalidFileName?.(this.t.head(p.start, p.end, 300));
      return null;
    }
    let v = this.textWithoutCuts(p.start, p.end, this.cutIndexAt(p.start, cutBase));
    if (v.includes("<")) v = v.replace(/<!--[\s\S]*?(?:-->|$)/g, "");
    v = v.replace(/\{\{\s*!\s*\}\}/g, "|");
    const bar = v.search(/[|\n<]/);
    if (bar >= 0) v = v.slice(0, bar);
    const key = normalizeWithNamespaces(v, this.ctx.namespaces);
    // a value naming a media file that is no valid file name is a dropped image, counted
    if (key === null && MEDIA_VALUE.test(v)) this.ctx.onInvalidFileName?.(v);
    return key !== null && hasMediaExtension(key) ? key : null;
  }

  /** tag(), telling `busy` which span the outcome at this `<` depends on. */
  private tag(i: number): number {
    this.openEnded = false;
    const next = this.tagAt(i);
    if (this.busy !== null) {
      let end = next;
      if (end === i + 1) {
        // not a tag the scanner acts on: what decided that reaches to the first "<" or ">" after it
        const lt = this.indexOfChar("<", i + 1);
        const gt = this.indexOfChar(">", i + 1);
        end = lt < 0 && gt < 0 ? Infinity : Math.min(lt < 0 ? Infinity : lt, gt < 0 ? Infinity : gt) + 1;
      } else if (next === this.n && !(this.code(next - 3) === 0x2d && this.code(next - 2) === 0x2d && this.code(next - 1) === 0x3e) /* ends with "-->" */) {
        end = Infinity; // an unclosed comment runs to the end, whatever follows
      }
      this.busy.push(i, end); // not `inner`: what decided it may reach past the frame's end
      if (this.openEnded || next === this.n) end = Infinity;
      if (end > this.reach) this.reach = end;
      if (end > this.segReach) this.segReach = end;
    }
    return next;
  }

  /** At a `<`: skips comments and opaque tags, reads galleries and imagemaps; returns where to go on. */
  private tagAt(i: number): number {
    const s = this.s;
    const b = this.b;
    if (this.code(i + 1) === 0x21 && this.code(i + 2) === 0x2d && this.code(i + 3) === 0x2d /* "<!--" */) {
      const end = b !== null ? b.indexOf("-->", i + 4) : s.indexOf("-->", i + 4);
      return end < 0 ? this.n : end + 3;
    }
    let m: RegExpExecArray | null;
    if (b === null) {
      TAG_AT.lastIndex = i;
      m = TAG_AT.exec(s);
    } else {
      // a match ends at the first ">" (it holds no "<" or ">" before): the pattern runs on that much, as latin1
      const gt = b.indexOf(0x3e, i + 1);
      if (gt < 0) m = null;
      else {
        TAG_AT_BYTES.lastIndex = 0;
        m = TAG_AT_BYTES.exec(b.toString("latin1", i, gt + 1));
      }
      // the name must be followed by whitespace, "/" or ">": a non-ASCII character there must be whitespace
      if (m && !isWhitespaceAt(b, i + 1 + m[1]!.length + m[2]!.length)) m = null;
    }
    if (!m || m[1] !== "" || m[3] !== "") return i + 1;
    const name = m[2]!.toLowerCase();
    const isGallery = name === "gallery";
    if (!isGallery && name !== "imagemap" && !OPAQUE_TAGS.has(name)) return i + 1;
    const after = i + m[0].length;
    const closer = this.closers.find(name, after);
    if (!closer) {
      this.openEnded = true;
      return after; // unclosed: MediaWiki shows it as text
    }
    const body = this.t.text(after, closer.start);
    if (isGallery) for (const r of galleryRefs(body, after, this.ctx)) this.refs.push(r);
    else if (name === "imagemap") {
      for (const r of imagemapRefs(body, after, this.ctx)) this.refs.push(r);
    }
    if (isGallery || name === "imagemap") this.cut(this.cutStart.length, i, closer.end, CUT_NO_REF);
    return closer.end;
  }
}

/** File namespaces by alias list (the extractor passes the same list for every revision). */
const namespaceSets = new WeakMap<readonly string[], Set<string>>();
const DEFAULT_FILE_NAMESPACES = fileNamespaceSet();

function namespacesOf(aliases: readonly string[] | undefined): Set<string> {
  if (aliases === undefined || aliases.length === 0) return DEFAULT_FILE_NAMESPACES;
  let set = namespaceSets.get(aliases);
  if (set === undefined) namespaceSets.set(aliases, (set = fileNamespaceSet(aliases)));
  return set;
}

/** The page a caption is on (CaptionContext.page), when the caller gave its title. */
function pageOf(opts: ExtractImagesOptions): { page?: PageName } {
  return opts.pageTitle === undefined ? {} : { page: { title: opts.pageTitle, ns: opts.pageNs ?? 0 } };
}

/** lineContext whose counts are recorded in the trace (replayed into the counters, in order, when the scan ends). */
function tracingContext(opts: ExtractImagesOptions, trace: ScanTrace): LineContext {
  return {
    ...pageOf(opts),
    namespaces: namespacesOf(opts.fileAliases),
    extraWords: new Set((opts.extraOptionWords ?? []).map((w) => w.trim().toLowerCase())),
    localized: localizedOptions(opts.language),
    unknownTemplates: opts.unknownTemplates ?? "mark",
    paperRules: opts.paperRules === true,
    onUnrendered: (name) => {
      trace.evName.push(unrenderedTemplateCounter(name));
      trace.evSample.push(null);
    },
    onInvalidFileName: (name) => {
      trace.evName.push(INVALID_FILE_NAME_COUNTER);
      trace.evSample.push(name);
    },
  };
}

function lineContext(opts: ExtractImagesOptions): LineContext {
  const counters = opts.counters;
  return {
    ...pageOf(opts),
    namespaces: namespacesOf(opts.fileAliases),
    extraWords: new Set((opts.extraOptionWords ?? []).map((w) => w.trim().toLowerCase())),
    localized: localizedOptions(opts.language),
    unknownTemplates: opts.unknownTemplates ?? "mark",
    paperRules: opts.paperRules === true,
    onUnrendered: counters ? (name) => counters.inc(unrenderedTemplateCounter(name)) : undefined,
    onInvalidFileName: counters
      ? (name) => {
          counters.inc(INVALID_FILE_NAME_COUNTER);
          counters.samples.add(INVALID_FILE_NAME_COUNTER, name);
        }
      : undefined,
  };
}

/** Every image use in the page, in document order: body links, <gallery> lines, infobox/template images, {{multiple image}}. */
export function extractImageRefs(wikitext: string, opts: ExtractImagesOptions = {}): WikitextImageRef[] {
  const max = opts.maxPageBytes ?? DEFAULT_MAX_PAGE_BYTES;
  // UTF-8 needs ≥ 1 byte per UTF-16 unit and ≤ 3: count bytes only when the length cannot decide.
  if (wikitext.length > max || (wikitext.length * 3 > max && Buffer.byteLength(wikitext, "utf8") > max)) {
    throw new ExtractionLimitError("page_too_large", `page has more than ${max} bytes of wikitext`);
  }
  const counters = opts.counters;
  const ctx = lineContext(opts);
  return new WikitextScanner(stringText(wikitext), ctx, counters, (opts.colonFileLinks ?? "text") === "text").run();
}

/**
 * extractImageRefs on the page's UTF-8 bytes (entities already decoded): the same references and
 * counts, byte for byte, decoding only the spans that hold a reference or caption. Returns null for
 * bytes that are not valid UTF-8 (the caller decodes them with replacement characters and uses the
 * string path).
 *
 * `busy`, when given, receives [start, end) byte spans (end may be Infinity) outside which the result
 * depends on no byte: every top-level link or template from its `[[`/`{{` to its closing brackets
 * (an unclosed one to the end), every `<` with what decided how it was read (a comment, an opaque
 * tag, gallery or imagemap to its end). Bytes outside them that are none of `[]{}|<>&` can be
 * changed without changing the references or counts (see wikitext-extractor.ts). A plain link or a
 * template without image parameters at the top level gives only its target, name and parameter
 * names, plus its whole span as a negative pair (-start - 1, -end - 1): a change in that span must
 * not contain "=" either.
 */
export function extractImageRefsFromBytes(utf8: Buffer, opts: ExtractImagesOptions = {}, busy: number[] | null = null): WikitextImageRef[] | null {
  if (!isUtf8(utf8)) return null;
  const max = opts.maxPageBytes ?? DEFAULT_MAX_PAGE_BYTES;
  // the string test above, on bytes: UTF-16 units ≤ bytes ≤ 3 × units, so it is "bytes > max"
  if (utf8.length > max) throw new ExtractionLimitError("page_too_large", `page has more than ${max} bytes of wikitext`);
  return new WikitextScanner(byteText(utf8), lineContext(opts), opts.counters, (opts.colonFileLinks ?? "text") === "text", busy).run();
}

/**
 * extractImageRefsFromBytes (with `busy`), tracing the scan (see ScanTrace): given `previous`, the
 * trace of the page's last text scanned, it scans only from the last checkpoint before the first
 * changed byte to where it can join the previous scan after the last one (of `previous`, the text
 * closest to this one). The same references, busy
 * spans and counts as a scan from scratch. Returns this text's trace with the references; null for
 * bytes that are not valid UTF-8.
 */
export function extractImageRefsTraced(utf8: Buffer, opts: ExtractImagesOptions, previous: readonly ScanTrace[], known?: KnownDiff): { refs: WikitextImageRef[]; trace: ScanTrace } | null {
  if (!isUtf8(utf8)) return null;
  const max = opts.maxPageBytes ?? DEFAULT_MAX_PAGE_BYTES;
  if (utf8.length > max) throw new ExtractionLimitError("page_too_large", `page has more than ${max} bytes of wikitext`);
  // the earlier text this one differs from least (a history reverts, and reverts back)
  let base: ScanTrace | null = null;
  let prefix = 0;
  let suffix = 0;
  const relTo: object[] = [];
  const relP: number[] = [];
  const relS: number[] = [];
  const kt = known?.trace;
  for (const t of previous) {
    let p: number;
    let s: number;
    if (kt === t) {
      p = known!.prefix;
      s = known!.suffix;
    } else {
      // what this text shares with the known one and that one with t, this one shares with t: compared from there
      const j = kt !== undefined ? kt.relTo.indexOf(t.self) : -1;
      const limit = Math.min(t.utf8.length, utf8.length);
      p = commonPrefix(t.utf8, utf8, j >= 0 ? Math.min(known!.prefix, kt!.relP[j]!) : 0);
      const s0 = j >= 0 ? Math.min(known!.suffix, kt!.relS[j]!, limit - p) : 0;
      s = commonSuffix(t.utf8, utf8, limit - p, s0);
    }
    relTo.push(t.self);
    relP.push(p);
    relS.push(s);
    if (base === null || p + s > prefix + suffix) [base, prefix, suffix] = [t, p, s];
    // a small change from this one: the older ones cannot save much walking, and comparing costs a pass over each
    if (base === t && Math.max(utf8.length, t.utf8.length) - prefix - suffix <= CLOSE_ENOUGH) break;
  }
  // the older ones not compared: what this text shares with the base and the base with them (lower bounds)
  if (base !== null) {
    for (const t of previous) {
      if (relTo.includes(t.self)) continue;
      const j = base.relTo.indexOf(t.self);
      relTo.push(t.self);
      relP.push(j >= 0 ? Math.min(prefix, base.relP[j]!) : 0);
      relS.push(j >= 0 ? Math.min(suffix, base.relS[j]!) : 0);
    }
  }
  // the last checkpoint whose work read nothing at or past the first changed byte (reaches only grow)
  let k = -1;
  let deep = -1;
  if (base !== null) {
    k = base.cpReach.length - 1;
    while (k >= 0 && base.cpReach[k]! > prefix) k--;
    // inside frames the previous text left open to its end, a later deep checkpoint may do
    let m = base.dpReach.length - 1;
    while (m >= 0 && base.dpReach[m]! > prefix) m--;
    // (one whose frames closed before its text ended would be sound too, resumeDeep stops at such a closer, but likely wasted)
    while (m >= 0 && !base.dpSafe[m]) m--;
    if (m >= 0 && base.dpPos[m]! > (k >= 0 ? base.cpPos[k]! : 0)) deep = m;
  }
  const start = (deepK: number) => {
    const trace: ScanTrace = {
      utf8, placed: [], busy: [], evName: [], evSample: [], cpPos: [], cpRefs: [], cpBusy: [], cpEvents: [], cpReach: [], cpLocal: [],
      dpPos: [], dpRefs: [], dpBusy: [], dpEvents: [], dpDepth: [], dpMask: [], dpReach: [], dpSafe: [],
      self: {}, relTo, relP, relS, joined: false, scanned: 0,
    };
    const scanner = new WikitextScanner(byteText(utf8), tracingContext(opts, trace), opts.counters, (opts.colonFileLinks ?? "text") === "text", trace.busy, trace);
    let from = 0;
    if (base !== null) {
      if (deepK >= 0) from = scanner.resumeDeep(base, deepK);
      else if (k >= 0) from = scanner.resumeFrom(base, k);
      scanner.joinWith(base, utf8.length - suffix, utf8.length - base.utf8.length);
      // two edits far apart: the text between them is the same, and so is the work over it (at the top level, where a deep resume never is)
      if (deepK < 0 && utf8.length - prefix - suffix > SKIP_ABOVE) scanner.skipWith(base, commonBlocks(base.utf8, utf8, prefix, suffix, SKIP_ABOVE));
    }
    return { scanner, trace, from };
  };
  let { scanner, trace, from } = start(deep);
  let wasted = 0;
  try {
    if (deep >= 0) {
      try {
        const refs = scanner.run(from);
        return { refs, trace };
      } catch (err) {
        if (err !== DEEP_RESUME_FAILED) throw err;
        // the edit closed a frame the previous text left open: from the top-level checkpoint before it
        wasted = scanner.at - from;
        ({ scanner, trace, from } = start(-1));
      }
    }
    const refs = scanner.run(from);
    trace.scanned += wasted;
    return { refs, trace };
  } finally {
    // the counts, in the order a scan from scratch makes them (also when it throws)
    const counters = opts.counters;
    if (counters !== undefined) {
      for (let e = 0; e < trace.evName.length; e++) {
        const name = trace.evName[e]!;
        counters.inc(name);
        const sample = trace.evSample[e]!;
        if (sample !== null) counters.samples.add(name, sample);
      }
    }
  }
}
