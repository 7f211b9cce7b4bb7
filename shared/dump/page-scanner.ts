/**
 * The scanner behind readPages: UTF-8 bytes of a MediaWiki XML export in, PageRevisions out.
 *
 * A small XML tokenizer specialised for dumps. Content between tags is located with
 * Buffer.indexOf("<") and is only looked at when it is kept (the fields of a page and revision);
 * markup is parsed in full. What it checks, each failure an XmlProblem (or a FormatProblem for
 * a well-formed document that is not a usable dump) with the byte offset of the markup at fault:
 * - nesting: every end tag closes the innermost open element; nothing may follow the root;
 *   the input may not end inside markup or with elements open ("unclosed tag: page");
 * - tag syntax: names, attributes (name="value" / 'value', whitespace-separated), `/>`;
 *   comments, CDATA sections, processing instructions, a DOCTYPE before the root;
 * - non-whitespace text outside the root;
 * - entities of kept fields: the five predefined ones and character references.
 * Damage that a hostile or broken dump can hold is bounded and local, never the end of the shard:
 * a bad entity in a kept field is one U+FFFD (dump.repaired.bad_entities); a title that is not
 * valid UTF-8 keeps its bad bytes percent-encoded (dump.repaired.title_invalid_utf8); a kept field
 * longer than maxFieldBytes skips its page or revision (dump.oversized_fields,
 * dump.skipped.field_too_large); markup (a start tag with a huge attribute, a comment, a CDATA
 * section) longer than MAX_MARKUP cuts the page open then and reading resumes at the next <page>
 * (dump.damage.markup_too_large). Fields not kept (username, comment, model, format, …) are never
 * collected, so they need no bound.
 * Unlike a general parser it does not check entities and characters of text it skips (a skipped
 * revision's text), duplicate attributes, or the XML character range: MediaWiki writes neither.
 * Text is normalised as XML requires (CR LF and lone CR become LF) before entities are decoded.
 * Revision text is checked here but decoded only when read (see revision-text.ts).
 * Input chunks from a pool (chunk-pool.ts) are held while the scanner keeps views of them: the chunk
 * being scanned, those of a field still collecting, the last text, the text of the open revision.
 */
import type { Counters } from "../core/counters.ts";
import type { PageRevision } from "../core/records.ts";
import { namespaceOfTitle, normaliseNamespaceName } from "./namespaces.ts";
import { isUtf8 } from "node:buffer";
import { checkCharBytes, checkCharBytesFrom, decodeCharBytes, lazyRevision, setTextDiffHint } from "./revision-text.ts";
import { commonPrefix, commonSuffix } from "../wikitext/byte-diff.ts";
import { percentEncodeInvalidUtf8, replaceBadEntities } from "./field-repair.ts";
import { dumpCounter, dumpSkippedCounter } from "../core/counter-names.ts";
import { chunkHolds, holdChunk, releaseChunk } from "./chunk-pool.ts";

export const ROOT = "mediawiki";

/** Malformed XML at absolute (UTF-8) offset `at`. */
export class XmlProblem extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

/** Well-formed XML that is not a usable MediaWiki export, at absolute (UTF-8) offset `at`. */
export class FormatProblem extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

export interface ScannerOptions {
  namespaces?: number[] | "all";
  skipRedirects?: boolean;
  /** the input lacks the root's opening tag (a multistream slice) */
  fragment?: boolean;
  /**
   * A revision text longer than this (encoded bytes) is not kept: the scanner stops collecting it,
   * reads on to </text> and counts the revision as skipped (page_too_large). Memory stays bounded by
   * this whatever the input (a 1 MB .gz can hold a 5 GB <text>).
   */
  maxTextBytes?: number;
  /**
   * Any other kept field (title, ns, ids, timestamp, a namespace name) longer than this (encoded
   * bytes) is not kept: its page (or revision) is skipped and counted (dump.skipped.field_too_large).
   */
  maxFieldBytes?: number;
}

/** Default bound on one revision's text (the extractor's page limit is 8 MiB). */
export const DEFAULT_MAX_TEXT_BYTES = 8 * 1024 * 1024;

/** Default bound on the other kept fields: a title is at most 255 bytes, even with every character an entity. */
export const DEFAULT_MAX_FIELD_BYTES = 64 * 1024;

const enum Field {
  None,
  Title,
  Ns,
  PageId,
  RevId,
  Timestamp,
  Text,
  Namespace,
}

const enum Skip {
  None,
  Namespace,
  Redirect,
  /** a kept field of the page or revision outgrew maxFieldBytes */
  Oversized,
  /** a stub dump's revision: its <text> names its size but holds nothing (the text is in another dump) */
  NoText,
}

const SKIP_REASON = ["", "namespace", "redirect", "field_too_large", "no_text"] as const;

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const EQ = 0x3d;
const DQUOTE = 0x22;
const SQUOTE = 0x27;

/** Markup longer than this (whole, or without its end yet) is damage, not a tag still arriving. */
const MAX_MARKUP = 1 << 20;
/** markup()'s answer for markup longer than MAX_MARKUP */
const TOO_LONG = -2;

/** Bytes allowed in XML names (ASCII subset of NameChar; every non-ASCII byte is accepted). */
const NAME = new Uint8Array(256);
/** Bytes that may not start a name. */
const NOT_NAME_START = new Uint8Array(256);
const SPACE = new Uint8Array(256);
for (let c = 0; c < 256; c++) {
  const ascii = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x5f || c === 0x2e || c === 0x3a;
  NAME[c] = ascii || c >= 0x80 ? 1 : 0;
  NOT_NAME_START[c] = (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e ? 1 : 0;
  SPACE[c] = c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d ? 1 : 0;
}

const EMPTY = Buffer.alloc(0);
/** The base of the first text's TextDiffHint: no text's own token. */
const NO_TEXT = {};
const CDATA_OPEN = Buffer.from("<![CDATA[", "latin1");
const COMMENT_OPEN = Buffer.from("<!--", "latin1");
const DOCTYPE_OPEN = Buffer.from("<!DOCTYPE", "latin1");

interface PageState {
  title: string | null;
  ns: number | null;
  id: number | null;
  redirect: boolean;
  /** a field of the page outgrew its bound: every revision is skipped */
  oversized: boolean;
}

export class DumpScanner {
  /** revisions completed and not yet taken */
  ready: PageRevision[] = [];
  /** pages closed so far */
  pages = 0;

  // Input: unscanned bytes are buf[pos..]; base is the absolute offset of buf[0].
  private buf: Buffer = EMPTY;
  private pos = 0;
  private base = 0;
  /** the chunks fed and still held (oldest first): the last, and those a field still collecting may view */
  private fed: Buffer[] = [];

  /** after damaged input was skipped: nothing is read until the next <page> */
  private seeking = false;
  /** where whole markup that markup() found too long ends */
  private tooLongEnd = 0;

  // Document state.
  private readonly stack: string[] = [];
  private rootSeen = false;
  private rootClosed = false;

  // Field capture: raw content pieces (bytes, entities undecoded) since the field opened, and any
  // string parts already decoded (a CDATA section or nested markup splits the raw run).
  private field = Field.None;
  private fieldDepth = 0;
  private fieldAt = 0;
  /** absolute offset where the field's content starts (after its start tag) */
  private contentAt = 0;
  private pieces: Buffer[] = [];
  private parts: string[] = [];
  /** bytes of the current field's content so far, and whether the text field outgrew maxTextBytes */
  private fieldBytes = 0;
  private oversized = false;
  private readonly maxTextBytes: number;
  private readonly maxFieldBytes: number;
  private namespaceKey: number | null = null;

  // Page and revision state.
  private page: PageState | null = null;
  private inRevision = false;
  private revSkip = Skip.None;
  private revId: number | null = null;
  private revTimestamp: string | null = null;
  private revText: string | Buffer | typeof TOO_LARGE = "";
  /**
   * The last revision text read as raw bytes, checked, and its token (TextDiffHint): a history's next
   * text mostly repeats it, and only the bytes that differ are checked for entities.
   */
  private lastText: Buffer | null = null;
  private lastToken: object = {};
  private readonly namespaceNames = new Map<string, number>();
  /** null: every namespace */
  private readonly namespaces: ReadonlySet<number> | null;
  private readonly skipRedirects: boolean;

  constructor(
    opts: ScannerOptions,
    private readonly counters: Counters,
  ) {
    this.namespaces = opts.namespaces === "all" ? null : new Set(opts.namespaces ?? [0]);
    this.skipRedirects = opts.skipRedirects ?? true;
    this.maxTextBytes = opts.maxTextBytes ?? DEFAULT_MAX_TEXT_BYTES;
    this.maxFieldBytes = opts.maxFieldBytes ?? DEFAULT_MAX_FIELD_BYTES;
    if (opts.fragment) {
      // A slice lacks the root's opening tag: open it (it takes no input bytes).
      this.stack.push(ROOT);
      this.rootSeen = true;
    }
  }

  /** Names of the elements open now, outermost first. */
  openElements(): readonly string[] {
    return this.stack;
  }

  /** The absolute offset of the first byte still held (earlier ones are done with). */
  retainedFrom(): number {
    return this.base + this.pos;
  }

  *takeReady(): Generator<PageRevision> {
    const ready = this.ready;
    this.ready = [];
    yield* ready;
  }

  /** Scans the next bytes of the document; completed revisions are appended to `ready`. */
  feed(chunk: Buffer): void {
    // only a pool's chunks are tracked: other input (a string, a file's bytes, a test's slices of one
    // buffer) has nothing to give back, and tracking it would cost per chunk what tiny chunks multiply
    if (chunkHolds(chunk) > 0) {
      holdChunk(chunk);
      this.fed.push(chunk);
    }
    // Only markup cut by the chunk boundary is left over; it is joined to the new chunk.
    this.base += this.pos;
    this.buf = this.pos < this.buf.length ? Buffer.concat([this.buf.subarray(this.pos), chunk]) : chunk;
    this.pos = 0;
    this.scan();
    this.releaseFed(1);
  }

  /** Lets go of the chunks fed but the last `keep`, and but those the pieces of a field still collecting view. */
  private releaseFed(keep: number): void {
    const fed = this.fed;
    if (fed.length === 0) return;
    let from = fed.length - keep;
    // the pieces view chunks in the order they were fed (or copies joined at a boundary, no pool's):
    // the first piece in a pool's chunk views the oldest chunk any of them needs
    for (const piece of this.pieces) {
      if (chunkHolds(piece) === 0) continue;
      for (let i = 0; i < from; i++) {
        if (fed[i]!.buffer === piece.buffer) {
          from = i;
          break;
        }
      }
      break;
    }
    if (from > 0) for (const chunk of fed.splice(0, from)) releaseChunk(chunk);
  }

  /** The text of the open revision: a view of a chunk is held while it is that. */
  private setRevText(text: string | Buffer | typeof TOO_LARGE): void {
    const old = this.revText;
    if (Buffer.isBuffer(text)) holdChunk(text);
    this.revText = text;
    if (Buffer.isBuffer(old)) releaseChunk(old);
  }

  /**
   * Damaged input was skipped just before the next byte fed: the page open now is dropped (its
   * revisions read so far were complete and stay; counted as dump.damage.pages_cut), and reading
   * resumes at the next <page>, inside the root. Bytes on either side are never joined.
   */
  resync(): void {
    this.base += this.buf.length;
    this.buf = EMPTY;
    this.pos = 0;
    this.cutToNextPage();
    this.releaseFed(0);
  }

  /** Drops the page open now (counted as cut) and all open state; reading resumes at the next <page>. */
  private cutToNextPage(): void {
    if (this.page !== null) this.counters.inc(dumpCounter("damage.pages_cut"));
    this.stack.length = 0;
    this.stack.push(ROOT);
    this.rootSeen = true;
    this.rootClosed = false;
    this.field = Field.None;
    this.pieces = [];
    this.parts = [];
    this.oversized = false;
    this.page = null;
    this.inRevision = false;
    this.setRevText("");
    this.seeking = true;
  }

  /** End of input: checks that the document is complete. `closeRoot`: an open root alone is fine. */
  finish(closeRoot: boolean): void {
    const end = this.base + this.buf.length;
    if (this.seeking) {
      // damage skipped the rest, root's end tag included
      this.pos = this.buf.length;
      closeRoot = true;
    }
    if (this.pos < this.buf.length) {
      const at = this.base + this.pos;
      throw new XmlProblem(`unexpected end of input inside markup "${this.preview(this.pos)}"`, at);
    }
    if (closeRoot && this.stack.length === 1 && this.stack[0] === ROOT) this.close(ROOT, end);
    if (!this.rootSeen) throw new XmlProblem("document must contain a root element.", end);
    if (this.stack.length > 0) throw new XmlProblem(`unclosed tag: ${this.stack[this.stack.length - 1]}`, end);
    // done: the chunks go back (a failed document keeps its own, left to the garbage collector)
    this.buf = EMPTY;
    this.releaseFed(0);
    this.setLastText(null);
  }

  private scan(): void {
    const buf = this.buf;
    const n = buf.length;
    let pos = this.pos;
    while (pos < n) {
      if (this.seeking) {
        const at = nextPageStart(buf, pos);
        if (at < 0) {
          // keep a tail that may begin "<page"
          pos = Math.max(pos, n - PAGE_OPEN.length);
          break;
        }
        pos = at;
        this.seeking = false;
      }
      const lt = buf.indexOf(LT, pos);
      if (lt < 0) {
        this.content(pos, n);
        pos = n;
        break;
      }
      if (lt > pos) this.content(pos, lt);
      const next = this.markup(lt);
      if (next === TOO_LONG) {
        // markup over the bound, whole: skipped with the page it is in
        this.markupTooLarge(lt);
        pos = this.tooLongEnd;
        continue;
      }
      if (next < 0) {
        pos = lt;
        if (n - lt <= MAX_MARKUP) break;
        // A start tag with a huge attribute, or a comment or CDATA section without an end in sight:
        // skipped with the page it is in; "<" cannot occur inside an attribute value, so the next
        // "<page" after it is markup again.
        this.markupTooLarge(lt);
        pos = lt + 1;
        continue;
      }
      pos = next;
    }
    this.pos = pos;
  }

  /** Markup at buf[lt] is longer than MAX_MARKUP: counted, the page open is cut, reading resumes at the next <page>. */
  private markupTooLarge(lt: number): void {
    const name = dumpCounter("damage.markup_too_large");
    this.counters.inc(name);
    this.counters.samples.add(name, `at decompressed byte ${this.base + lt}: ${this.preview(lt)}`);
    this.cutToNextPage();
  }

  /** markup() of whole markup longer than MAX_MARKUP, ending at `end`: nothing of it is applied. */
  private tooLong(end: number): number {
    this.tooLongEnd = end;
    return TOO_LONG;
  }

  private preview(at: number): string {
    return this.buf.toString("utf8", at, Math.min(this.buf.length, at + 40)).replace(/\s+/g, " ");
  }

  /** Character data in buf[a..b). */
  private content(a: number, b: number): void {
    if (this.field !== Field.None) {
      this.collect(this.buf.subarray(a, b));
    } else if (this.stack.length === 0) {
      const buf = this.buf;
      for (let i = a; i < b; i++) if (SPACE[buf[i]!] === 0) throw new XmlProblem("text data outside of root node.", this.base + i);
    }
  }

  /** Markup starting at buf[lt] ("<"); returns the index after it, or -1 if it is not all here yet. */
  private markup(lt: number): number {
    const buf = this.buf;
    const n = buf.length;
    if (lt + 1 >= n) return -1;
    const c = buf[lt + 1]!;
    if (c === SLASH) return this.endTag(lt);
    if (c === BANG) {
      if (startsWith(buf, lt, COMMENT_OPEN)) {
        const end = buf.indexOf("-->", lt + 4, "latin1");
        if (end < 0) return -1;
        return end + 3 - lt > MAX_MARKUP ? this.tooLong(end + 3) : end + 3;
      }
      if (startsWith(buf, lt, CDATA_OPEN)) {
        const end = buf.indexOf("]]>", lt + 9, "latin1");
        if (end < 0) return -1;
        if (end + 3 - lt > MAX_MARKUP) return this.tooLong(end + 3);
        if (this.stack.length === 0) throw new XmlProblem("text data outside of root node.", this.base + lt);
        if (this.field !== Field.None && !this.oversized) {
          this.fieldBytes += end - (lt + 9);
          if (this.fieldBytes > (this.field === Field.Text ? this.maxTextBytes : this.maxFieldBytes)) this.dropOversized();
          else {
            this.flushPieces();
            this.parts.push(normaliseNewlines(buf.toString("utf8", lt + 9, end)));
          }
        }
        return end + 3;
      }
      if (startsWith(buf, lt, DOCTYPE_OPEN)) {
        if (this.rootSeen) throw new XmlProblem("inappropriately located doctype declaration.", this.base + lt);
        const gt = buf.indexOf(GT, lt);
        if (gt < 0) return -1;
        const bracket = buf.indexOf(0x5b /* [ */, lt);
        if (bracket >= 0 && bracket < gt) return internalSubsetEnd(buf, bracket);
        return gt + 1;
      }
      // "<!" and too few bytes to tell which kind yet
      if (n - lt < 9 && (isPrefix(buf, lt, COMMENT_OPEN) || isPrefix(buf, lt, CDATA_OPEN) || isPrefix(buf, lt, DOCTYPE_OPEN))) return -1;
      throw new XmlProblem("incorrect syntax.", this.base + lt);
    }
    if (c === QUESTION) {
      const end = buf.indexOf("?>", lt + 2, "latin1");
      if (end < 0) return -1;
      if (end === lt + 2 || NAME[buf[lt + 2]!] === 0) throw new XmlProblem("processing instruction without a target.", this.base + lt);
      return end + 2 - lt > MAX_MARKUP ? this.tooLong(end + 2) : end + 2;
    }
    return this.startTag(lt);
  }

  private endTag(lt: number): number {
    const buf = this.buf;
    const gt = buf.indexOf(GT, lt + 2);
    if (gt < 0) return -1;
    if (gt + 1 - lt > MAX_MARKUP) return this.tooLong(gt + 1);
    let nameEnd = lt + 2;
    while (nameEnd < gt && NAME[buf[nameEnd]!] === 1) nameEnd++;
    for (let i = nameEnd; i < gt; i++) if (SPACE[buf[i]!] === 0) throw new XmlProblem("disallowed character in closing tag.", this.base + lt);
    const name = buf.toString("latin1", lt + 2, nameEnd);
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) throw new XmlProblem(`unexpected close tag </${name}>.`, this.base + lt);
    if (top !== name) throw new XmlProblem(`unmatched closing tag: </${name}> while <${top}> is open.`, this.base + lt);
    this.close(name, this.base + lt);
    return gt + 1;
  }

  private startTag(lt: number): number {
    const buf = this.buf;
    const n = buf.length;
    let i = lt + 1;
    if (NAME[buf[i]!] === 0 || NOT_NAME_START[buf[i]!] === 1) throw new XmlProblem("disallowed character in tag name.", this.base + lt);
    while (i < n && NAME[buf[i]!] === 1) i++;
    if (i >= n) return -1;
    const nameEnd = i;
    let key: string | null = null;
    let selfClosing = false;
    // a stub dump's <text bytes="2264" id="…"/>: a size but no text (a revision deleted from view says deleted="deleted")
    let sized = false;
    let deleted = false;
    for (;;) {
      const c = buf[i]!;
      if (SPACE[c] === 1) {
        i++;
        while (i < n && SPACE[buf[i]!] === 1) i++;
        if (i >= n) return -1;
        continue;
      }
      if (c === GT) {
        i++;
        break;
      }
      if (c === SLASH) {
        if (i + 1 >= n) return -1;
        if (buf[i + 1] !== GT) throw new XmlProblem("forward-slash in opening tag not followed by >.", this.base + lt);
        selfClosing = true;
        i += 2;
        break;
      }
      // an attribute
      if (SPACE[buf[i - 1]!] === 0) throw new XmlProblem("no whitespace between attributes.", this.base + lt);
      const attrStart = i;
      if (NAME[c] === 0 || NOT_NAME_START[c] === 1) throw new XmlProblem("disallowed character in attribute name.", this.base + lt);
      while (i < n && NAME[buf[i]!] === 1) i++;
      const attrEnd = i;
      while (i < n && SPACE[buf[i]!] === 1) i++;
      if (i >= n) return -1;
      if (buf[i] !== EQ) throw new XmlProblem("attribute without value.", this.base + lt);
      i++;
      while (i < n && SPACE[buf[i]!] === 1) i++;
      if (i >= n) return -1;
      const q = buf[i]!;
      if (q !== DQUOTE && q !== SQUOTE) throw new XmlProblem("unquoted attribute value.", this.base + lt);
      const close = buf.indexOf(q, i + 1);
      if (close < 0) return -1;
      // (looked for in the value only: an indexOf would run on through the <text> content that follows)
      for (let j = i + 1; j < close; j++) if (buf[j] === LT) throw new XmlProblem("disallowed character \"<\" in attribute value.", this.base + lt);
      if (attrEnd - attrStart === 3 && buf[attrStart] === 0x6b && buf[attrStart + 1] === 0x65 && buf[attrStart + 2] === 0x79 /* key */) {
        key = buf.toString("utf8", i + 1, close);
      } else if (attrEnd - attrStart === 5 && buf.toString("latin1", attrStart, attrEnd) === "bytes") {
        sized = close > i + 1 && !(close === i + 2 && buf[i + 1] === 0x30); /* not "" nor "0" */
      } else if (attrEnd - attrStart === 7 && buf.toString("latin1", attrStart, attrEnd) === "deleted") {
        deleted = true;
      }
      i = close + 1;
      if (i >= n) return -1;
    }
    // whole, but too long: decided on the length alone, so any chunking of the input reads the same
    if (i - lt > MAX_MARKUP) return this.tooLong(i);
    const name = buf.toString("latin1", lt + 1, nameEnd);
    const at = this.base + lt;
    if (selfClosing && sized && !deleted && name === "text") this.stubText();
    this.open(name, key, at, this.base + i);
    if (selfClosing) this.close(name, at);
    return i;
  }

  /** The revision open now has no text in this dump (a stub dump's): skipped as no_text, not read as an empty page. */
  private stubText(): void {
    if (this.inRevision && this.revSkip === Skip.None && this.stack[this.stack.length - 1] === "revision") this.revSkip = Skip.NoText;
  }

  private open(name: string, key: string | null, at: number, after: number): void {
    const stack = this.stack;
    const parent = stack.length > 0 ? stack[stack.length - 1] : undefined;
    if (parent === undefined) {
      if (this.rootClosed || (this.rootSeen && stack.length === 0)) throw new XmlProblem("documents may contain only one root.", at);
      if (name !== ROOT) throw new FormatProblem(`root element is <${name}>, not <${ROOT}>: is this a MediaWiki XML export?`, at);
      this.rootSeen = true;
      stack.push(name);
      return;
    }
    stack.push(name);
    switch (name) {
      case "page":
        if (parent === ROOT) this.page = { title: null, ns: null, id: null, redirect: false, oversized: false };
        return;
      case "revision":
        if (parent === "page" && this.page) {
          this.inRevision = true;
          this.revId = null;
          this.revTimestamp = null;
          this.setRevText("");
          this.revSkip = this.skipReason(this.page);
        }
        return;
      case "redirect":
        if (parent === "page" && this.page) this.page.redirect = true;
        return;
      case "title":
        if (parent === "page") this.startField(Field.Title, at, after);
        return;
      case "ns":
        if (parent === "page") this.startField(Field.Ns, at, after);
        return;
      case "id":
        if (parent === "page") this.startField(Field.PageId, at, after);
        else if (parent === "revision") this.startField(Field.RevId, at, after);
        return;
      case "timestamp":
        if (parent === "revision") this.startField(Field.Timestamp, at, after);
        return;
      case "text":
        // Text of a revision that will be skipped is never assembled.
        if (parent === "revision" && this.inRevision && this.revSkip === Skip.None) this.startField(Field.Text, at, after);
        return;
      case "namespace":
        if (parent === "namespaces") {
          const k = Number(key ?? undefined);
          this.namespaceKey = Number.isInteger(k) ? k : null;
          this.startField(Field.Namespace, at, after);
        }
        return;
    }
  }

  /** Keeps a piece of the current field's content, unless the text has outgrown its bound. */
  private collect(piece: Buffer): void {
    if (this.oversized) return;
    this.fieldBytes += piece.length;
    if (this.fieldBytes > (this.field === Field.Text ? this.maxTextBytes : this.maxFieldBytes)) this.dropOversized();
    else this.pieces.push(piece);
  }

  private dropOversized(): void {
    this.oversized = true;
    this.pieces = [];
    this.parts = [];
  }

  private startField(field: Field, at: number, after: number): void {
    this.field = field;
    this.fieldBytes = 0;
    this.oversized = false;
    this.fieldDepth = this.stack.length;
    this.fieldAt = at;
    this.contentAt = after;
    this.pieces = [];
    this.parts = [];
  }

  private close(name: string, at: number): void {
    if (this.field !== Field.None && this.stack.length === this.fieldDepth) this.endField(at);
    this.stack.pop();
    const parent = this.stack.length > 0 ? this.stack[this.stack.length - 1] : undefined;
    if (parent === undefined) {
      this.rootClosed = true;
    } else if (name === "revision" && parent === "page") {
      this.endRevision(at);
    } else if (name === "page" && parent === ROOT) {
      this.page = null;
      this.pages++;
      this.counters.inc(dumpCounter("pages"));
    }
  }

  /** The raw pieces collected so far, checked, as one buffer of their own (`text`: a revision's text, see lastText). */
  private takeRaw(text = false): Buffer {
    const pieces = this.pieces;
    this.pieces = [];
    // A single piece stays a view of its input chunk (streams hand chunks over for good, so the
    // bytes stay as they are); the copy of the bytes happens once, when revisions are packed.
    const bytes = pieces.length === 0 ? EMPTY : pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
    const last = this.lastText;
    let problem;
    let p = 0;
    let s = 0;
    if (text && last !== null && bytes.length > 0) {
      p = commonPrefix(last, bytes);
      s = commonSuffix(last, bytes, Math.min(last.length, bytes.length) - p);
      problem = checkCharBytesFrom(bytes, p, s);
    } else problem = checkCharBytes(bytes);
    if (text) {
      if (problem === null && bytes.length > 0) {
        const self = {};
        setTextDiffHint(bytes, { self, base: last !== null ? this.lastToken : NO_TEXT, p, s });
        this.lastToken = self;
        this.setLastText(bytes);
      } else this.setLastText(null);
    }
    if (problem === null) return bytes;
    // a bad entity is one replacement character, counted, never the end of the shard
    const repaired = replaceBadEntities(bytes);
    const name = dumpCounter("repaired.bad_entities");
    this.counters.inc(name, repaired.replaced);
    this.counters.samples.add(name, `${problem.message} at decompressed byte ${this.parts.length === 0 ? this.contentAt + problem.index : this.fieldAt}`);
    return repaired.bytes;
  }

  /** The last text read (a view of a chunk is held while it is that). */
  private setLastText(bytes: Buffer | null): void {
    const old = this.lastText;
    if (bytes !== null) holdChunk(bytes);
    this.lastText = bytes;
    if (old !== null) releaseChunk(old);
  }

  /** Decodes the raw pieces collected so far into `parts`. */
  private flushPieces(): void {
    if (this.pieces.length === 0) return;
    let raw = this.takeRaw();
    if (this.field === Field.Title && !isUtf8(raw)) {
      // A title is shown and joined on as it is: its bytes stay recoverable instead of becoming U+FFFD.
      raw = percentEncodeInvalidUtf8(raw);
      const name = dumpCounter("repaired.title_invalid_utf8");
      this.counters.inc(name);
      this.counters.samples.add(name, raw.toString("utf8", 0, Math.min(raw.length, 200)));
    }
    this.parts.push(decodeCharBytes(raw));
  }

  private endField(at: number): void {
    const field = this.field;
    if (field === Field.Text && this.oversized) {
      this.field = Field.None;
      this.oversized = false;
      if (this.inRevision) this.setRevText(TOO_LARGE);
      return;
    }
    if (this.oversized) {
      this.field = Field.None;
      this.oversized = false;
      this.oversizedField(field, at);
      return;
    }
    if (field === Field.Text && this.parts.length === 0) {
      // the common case: decoded when (and where) the text is read
      const raw = this.takeRaw(true);
      this.field = Field.None;
      if (this.inRevision) this.setRevText(raw);
      return;
    }
    this.flushPieces();
    const parts = this.parts;
    const value = parts.length === 0 ? "" : parts.length === 1 ? parts[0]! : parts.join("");
    this.field = Field.None;
    this.parts = [];
    const page = this.page;
    switch (field) {
      case Field.Title:
        if (page) page.title = value;
        break;
      case Field.Ns:
        if (page) page.ns = parseInteger(value, "<ns>", at);
        break;
      case Field.PageId:
        if (page) page.id = parseInteger(value, "page <id>", at);
        break;
      case Field.RevId:
        if (this.inRevision) this.revId = parseInteger(value, "revision <id>", at);
        break;
      case Field.Timestamp:
        if (this.inRevision) this.revTimestamp = value.trim() || null;
        break;
      case Field.Text:
        if (this.inRevision) this.setRevText(value);
        break;
      case Field.Namespace:
        if (this.namespaceKey !== null && value.trim() !== "") this.namespaceNames.set(normaliseNamespaceName(value), this.namespaceKey);
        break;
    }
  }

  /** A kept field other than the text outgrew maxFieldBytes: what it belongs to is skipped. */
  private oversizedField(field: Field, at: number): void {
    const name = dumpCounter("oversized_fields");
    this.counters.inc(name);
    this.counters.samples.add(name, `<${FIELD_NAMES[field]}> over ${this.maxFieldBytes} bytes at decompressed byte ${at}`);
    if (field === Field.Title || field === Field.Ns || field === Field.PageId) {
      if (this.page) this.page.oversized = true;
    } else if ((field === Field.RevId || field === Field.Timestamp) && this.inRevision) {
      this.revSkip = Skip.Oversized;
    }
    // an oversized namespace name is not learnt: titles in it read as ns 0
  }

  private namespaceOf(page: PageState): number {
    return page.ns ?? namespaceOfTitle(page.title ?? "", this.namespaceNames);
  }

  private skipReason(page: PageState): Skip {
    if (page.oversized) return Skip.Oversized;
    if (this.namespaces !== null && !this.namespaces.has(this.namespaceOf(page))) return Skip.Namespace;
    if (this.skipRedirects && page.redirect) return Skip.Redirect;
    return Skip.None;
  }

  private endRevision(at: number): void {
    const page = this.page;
    const wasOpen = this.inRevision;
    this.inRevision = false;
    const text = this.revText;
    this.revText = "";
    try {
      if (page && wasOpen) this.emitRevision(page, text, at);
    } finally {
      // (the revision took its own hold on its text)
      if (Buffer.isBuffer(text)) releaseChunk(text);
    }
  }

  private emitRevision(page: PageState, text: string | Buffer | typeof TOO_LARGE, at: number): void {
    this.counters.inc(dumpCounter("revisions"));
    const skip = this.revSkip !== Skip.None ? this.revSkip : page.oversized ? Skip.Oversized : Skip.None;
    if (skip !== Skip.None) {
      this.counters.inc(dumpSkippedCounter(SKIP_REASON[skip]));
      return;
    }
    if (text === TOO_LARGE) {
      this.counters.inc(dumpSkippedCounter("page_too_large"));
      return;
    }
    // Old exports (schema 0.3 and before) have no <redirect> element: the text alone says so.
    if (this.skipRedirects && isRedirectText(text)) {
      this.counters.inc(dumpSkippedCounter("redirect"));
      return;
    }
    if (page.title === null) throw new FormatProblem("a <page> has no <title> before its <revision>", at);
    if (page.id === null) throw new FormatProblem(`page "${page.title}" has no <id> before its <revision>`, at);
    if (this.revId === null) throw new FormatProblem(`a revision of page "${page.title}" has no <id>`, at);
    const ns = this.namespaceOf(page);
    this.ready.push(
      typeof text === "string"
        ? { title: page.title, ns, pageId: page.id, revisionId: this.revId, timestamp: this.revTimestamp, redirect: page.redirect, text }
        : lazyRevision(page.title, ns, page.id, this.revId, this.revTimestamp, page.redirect, text),
    );
    this.counters.inc(dumpCounter("revisions.emitted"));
  }
}

/**
 * End (index after ">") of a DOCTYPE whose internal subset opens at `bracket`, or -1 if not all here.
 * The subset ends at a "]" outside quoted literals and comments, followed by optional space and ">";
 * a "]" inside an entity value or comment does not end it.
 */
function internalSubsetEnd(buf: Buffer, bracket: number): number {
  let quote = 0;
  for (let i = bracket + 1; i < buf.length; i++) {
    const c = buf[i]!;
    if (quote !== 0) {
      if (c === quote) quote = 0;
    } else if (c === DQUOTE || c === SQUOTE) {
      quote = c;
    } else if (c === LT && buf[i + 1] === BANG && buf[i + 2] === 0x2d && buf[i + 3] === 0x2d) {
      const end = buf.indexOf("-->", i + 4, "latin1");
      if (end < 0) return -1;
      i = end + 2;
    } else if (c === 0x5d /* ] */) {
      let j = i + 1;
      while (j < buf.length && SPACE[buf[j]!] === 1) j++;
      if (j >= buf.length) return -1;
      if (buf[j] === GT) return j + 1;
    }
  }
  return -1;
}

const FIELD_NAMES = ["", "title", "ns", "id", "id", "timestamp", "text", "namespace"] as const;

/** Marks a revision whose text outgrew maxTextBytes (never collected). */
const TOO_LARGE = Symbol("too large");

const REDIRECT = /^\s*#redirect\b/i;

/** `#REDIRECT [[…]]` at the start of a text (checked on its first bytes, without decoding it all). */
function isRedirectText(text: string | Buffer): boolean {
  const head = typeof text === "string" ? text.slice(0, 64) : text.toString("utf8", 0, Math.min(text.length, 64));
  return REDIRECT.test(head);
}

const PAGE_OPEN = Buffer.from("<page", "latin1");

/** Index of the next "<page>" or "<page " start tag at or after `from`, or -1 if none is all here. */
function nextPageStart(buf: Buffer, from: number): number {
  for (;;) {
    const at = buf.indexOf(PAGE_OPEN, from);
    if (at < 0 || at + PAGE_OPEN.length >= buf.length) return -1;
    const c = buf[at + PAGE_OPEN.length]!;
    if (c === GT || c === SLASH || SPACE[c] === 1) return at;
    from = at + 1;
  }
}

function startsWith(buf: Buffer, at: number, prefix: Buffer): boolean {
  if (at + prefix.length > buf.length) return false;
  for (let i = 0; i < prefix.length; i++) if (buf[at + i] !== prefix[i]) return false;
  return true;
}

/** buf[at..] is a (possibly shorter) prefix of `prefix`. */
function isPrefix(buf: Buffer, at: number, prefix: Buffer): boolean {
  for (let i = 0; i < prefix.length && at + i < buf.length; i++) if (buf[at + i] !== prefix[i]) return false;
  return true;
}

function parseInteger(value: string, what: string, at: number): number {
  const n = Number(value.trim());
  if (!Number.isSafeInteger(n) || value.trim() === "") throw new FormatProblem(`${what} is not an integer: "${value.slice(0, 40)}"`, at);
  return n;
}

/** XML end-of-line handling: CR LF and lone CR are read as LF. */
export function normaliseNewlines(s: string): string {
  return s.indexOf("\r") < 0 ? s : s.replace(/\r\n?/g, "\n");
}
