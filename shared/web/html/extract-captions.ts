/**
 * Image captions of one HTML page, read in one streaming pass with htmlparser2. Each image use can
 * carry captions of five types, kept apart because they say different things (and pairs are built
 * within one type):
 *   alt        `<img alt>`: written for the image itself (the best web caption)
 *   title      `<img title>`: a tooltip, often a copy or a credit
 *   figcaption `<figure>` … `<figcaption>`: a caption in the strict sense
 *   table      a one-column table whose image cell sits above a text cell (older sites, wikis)
 *   nearby     the nearest enclosing block's text, only when the image has neither a figcaption nor
 *              a table caption: the lower-confidence type
 * State is bounded by the page (itself bounded by the WARC reader): text buffers are capped and the
 * element stacks hold one small frame per open element, whatever the nesting depth.
 */
import { Parser, type QuoteType, type Tokenizer } from "htmlparser2";
import { FastTokenizer } from "./fast-tokenizer.ts";
import { declaredSizeDrop, withoutRepeated } from "./template-images.ts";
import { hidesText, isCredit, MAY_HIDE, withoutCreditText } from "./hidden-text.ts";
import { classFigureRole, MAY_BE_CLASS_FIGURE } from "./class-captions.ts";
import { FigureText, MAY_MARK_CAPTION } from "./figure-text.ts";
import { SentenceEdges } from "./sentence-edge.ts";
import { imageKey, imageUrlCandidates, largestSrcsetCandidate } from "./image-url.ts";
import { inertSpan, knownTagName, RAW_TEXT, startTagClose } from "./inert-span.ts";

export const WEB_CAPTION_TYPES = ["alt", "title", "figcaption", "table", "nearby"] as const;
export type WebCaptionType = (typeof WEB_CAPTION_TYPES)[number];

export interface WebCaption {
  /** pivot key: a `File:` key for Wikimedia uploads, else the normalised URL */
  image: string;
  /** the image URL as resolved (before CDN parameters were removed) */
  url: string;
  type: WebCaptionType;
  text: string;
  /** position of the image among the page's usable images */
  ordinal: number;
}

export interface PageCaptions {
  captions: WebCaption[];
  /** usable images (with a URL that is not data:, not a beacon) */
  images: number;
  /** images or captions not used, by reason */
  dropped: Map<string, number>;
  /** characters of the page not parsed because they could not change the result */
  skippedChars?: number;
}

export interface ExtractOptions {
  /** longest caption kept (figcaption, table, nearby); a longer text is not a caption */
  maxCaptionChars?: number;
  /** most images taken from one page */
  maxImages?: number;
  /** deepest element nesting read; a deeper page is read up to there (htmlparser2's element stack costs O(depth) per tag) */
  maxDepth?: number;
  /** skip spans whose parse cannot change the result (inert-span.ts); false parses every byte (tests compare the two) */
  skipInert?: boolean;
  /** drop the page template's images (template-images.ts: shown twice on the page, declared outside the thesis' size bounds); default true, false for the paper's preset */
  templateImages?: boolean;
  /** keep photo credits (hidden-text.ts `isCredit`) out of captions read outside them; default true, false for the paper's preset */
  credits?: boolean;
  /** read figures a CMS marks by class (class-captions.ts: MediaWiki's thumbcaption, WordPress' wp-caption-text) as figure and figcaption, and a `<figure>`'s caption written in a div, p or span (figure-text.ts); default true, false for the paper's preset */
  classCaptions?: boolean;
}

const TEXT_CAP = 4096;
/** The elements whose attributes the extractor reads (onopentag); the others' are not collected. */
const ATTRIBUTE_TAGS = new Set(["img", "amp-img", "base", "source"]);
const BLOCKS = new Set(["p", "div", "li", "dd", "dt", "td", "th", "blockquote", "section", "article", "header", "footer", "main", "aside", "center", "h1", "h2", "h3", "h4", "h5", "h6", "caption"]);
/** Elements a reader sees as a break between words: text on either side of one is never glued together. */
export const BREAKS = new Set([...BLOCKS, "br", "hr", "ul", "ol", "dl", "tr", "table", "pre", "figure", "figcaption", "address", "nav", "details", "summary", "fieldset", "form", "tbody", "thead", "tfoot"]);
/** Elements a reader sees as boxes apart from the text around them (a `<figure>`'s loose text is outside all: figure-text.ts). */
const BOXES = new Set([...BREAKS].filter((n) => n !== "br" && n !== "hr"));
/** Elements whose content is not page text (or, for noscript, repeats lazy-loaded images). */
const OPAQUE = new Set(["script", "style", "noscript", "template", "svg", "math", "head", "title", "select", "textarea"]);

/**
 * A capped text buffer. A closed block's text joins its parent's as ` <its text> ` (a reader sees it
 * there too); it is kept as a reference and joined only when a caption is read, so a page's text is not
 * copied once per level of nesting. What a buffer holds is exactly what the joined strings would be.
 */
class TextBuf {
  /** strings, or closed blocks standing for ` ${their raw text} ` */
  private parts: (string | TextBuf)[] = [];
  length = 0;
  private flagged = false;
  /** closed blocks refused at the cap: the buffer overflowed if one of them holds a non-space */
  private late: TextBuf[] | null = null;
  private joined: string | null = null;
  /** `sink`: the page root's buffer, never read, so never filled */
  constructor(private readonly sink = false) {}
  add(s: string): void {
    if (this.sink) return;
    if (this.length >= TEXT_CAP) {
      if (!this.flagged && /\S/.test(s)) this.flagged = true;
      return;
    }
    this.parts.push(s);
    this.length += s.length;
    this.joined = null;
    this.measure(s);
  }
  /** a closed block's text, as ` ${block.raw()} ` */
  addBlock(b: TextBuf): void {
    if (this.sink) return;
    if (this.length >= TEXT_CAP) {
      if (!this.flagged) (this.late ??= []).push(b);
      return;
    }
    this.parts.push(b);
    this.length += b.length + 2;
    this.joined = null;
    // ` ${b} `: a space before (a gap, after earlier text), b's own text, a space after
    if (b.solid > 0) {
      if (this.solid > 0) this.gaps++;
      this.solid += b.solid;
      this.gaps += b.gaps;
    }
    this.spaceAfter = this.solid > 0;
  }
  /** nothing added from now on can change what the buffer says */
  get saturated(): boolean {
    return this.sink || this.overflow;
  }
  /**
   * The length of `text()` without building it: `clean` keeps every non-space character (`solid`)
   * and turns each run of spaces between two of them (`gaps`) into one; `spaceAfter`: a space run
   * follows the last one so far. Spaces are what `\s` matches, as in `clean`.
   */
  private solid = 0;
  private gaps = 0;
  private spaceAfter = false;
  private measure(s: string): void {
    for (let i = 0; i < s.length; i++) {
      if (isSpace(s.charCodeAt(i))) this.spaceAfter = this.solid > 0;
      else {
        if (this.spaceAfter) {
          this.gaps++;
          this.spaceAfter = false;
        }
        this.solid++;
      }
    }
  }
  /** `text().length` */
  get cleanLength(): number {
    return this.solid + this.gaps;
  }
  /**
   * Whether the cleaned text is longer than `max`; once it is, it stays so (text is only appended).
   * A block whose text is that long gives its images no nearby caption, nor does any block around it.
   */
  longerThan(max: number): boolean {
    return this.solid + this.gaps > max;
  }
  /** text was refused at the cap */
  get overflow(): boolean {
    if (this.late !== null) {
      this.flagged ||= this.late.some((b) => /\S/.test(b.raw()));
      this.late = null;
    }
    return this.flagged;
  }
  raw(): string {
    if (this.joined === null) {
      let s = "";
      for (const p of this.parts) s += typeof p === "string" ? p : ` ${p.raw()} `;
      this.joined = s;
    }
    return this.joined;
  }
  text(): string {
    return clean(this.raw());
  }
}

/** What `\s` matches (ECMAScript WhiteSpace and LineTerminator). */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

function clean(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/** An attribute's text: control characters (a NUL, a stray escape) are no part of a caption. */
function cleanAttribute(s: string): string {
  // eslint-disable-next-line no-control-regex
  return clean(s.replace(INVISIBLE, ""));
}

/** Characters no reader sees: C0 controls (not whitespace), DEL, the soft hyphen, zero-width spaces and joiners, the BOM. */
// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\u0000-\u0008\u000e-\u001f\u007f\u00ad\u200b-\u200d\u2060\ufeff]/g;
// eslint-disable-next-line no-control-regex
const HAS_INVISIBLE = /[\u0000-\u0008\u000e-\u001f\u007f\u00ad\u200b-\u200d\u2060\ufeff]/;

interface ImageUse {
  key: string;
  url: string;
  ordinal: number;
  alt: string;
  title: string;
  figcaption?: string;
  table?: string;
  nearby?: string;
  /** blocks without text the image's nearby text was looked for past */
  climbs?: number;
}

/** Why an image had no URL when it is a lazy loader's placeholder (next/image up to 12 names the picture only in a <noscript> after it). */
const LAZY_GAPS = new Set(["data_uri", "placeholder", "no_src", "invalid_url"]);

/**
 * How many blocks without text an image's nearby text is looked for past: its own block and two
 * more (a card's image cell, the card); further out the text is a whole article's or page's.
 */
const MAX_CLIMBS = 2;

interface Block {
  tag: string;
  /** its place in the stack of open elements (the page root's 0) */
  depth: number;
  text: TextBuf;
  images: ImageUse[];
  /** images anywhere inside the block so far (those whose nearby text an inner block gave included) */
  inside: number;
}
interface Figure {
  images: ImageUse[];
  caption: TextBuf | null;
  /** the depth of the figcaption the caption is read from */
  captionDepth: number;
  /** the figcaption's edges between inline elements (sentence-edge.ts): two sentences there are not glued */
  edges: SentenceEdges | null;
  /** a `<figure>`'s text, for a caption written without a figcaption (figure-text.ts); null when not read */
  text: FigureText | null;
}
interface Row {
  depth: number;
  cells: number;
  images: ImageUse[];
  text: TextBuf;
}
interface Table {
  rows: Row[];
  /** an image went into one of its cells */
  hasImages: boolean;
  /** a span inside it was skipped (its rows are then not all known: an image in it later means a full parse) */
  skipped: boolean;
}

/**
 * htmlparser2's Parser that, after each tag's `>`, may move its tokenizer past an inert span chosen by
 * `afterTag` (the tokenizer sets its next section start from its index after these calls return). The
 * tokenizer's index is an internal: when it is not where the tag ended, nothing is skipped.
 */
class SkippingParser extends Parser {
  afterTag: ((next: number) => number) | null = null;
  /** whether the current start tag's attributes are read (the handler says, by its name): others cost nothing */
  wantAttributes = true;
  /** the whole page (written at once): set, the tokenizer is moved past the attributes no one reads */
  html: string | null = null;
  override onopentagname(start: number, endIndex: number): void {
    super.onopentagname(start, endIndex);
    if (this.wantAttributes || this.html === null) return;
    // the name ended at whitespace (else at `/` or `>`: no attributes): go on at the tag's end as the
    // tokenizer would reach it, in the state it is in now (before an attribute name)
    const c = this.html.charCodeAt(endIndex);
    if (c === 0x2f || c === 0x3e) return;
    const tokenizer = (this as unknown as { tokenizer?: { index?: unknown } }).tokenizer;
    if (!tokenizer || tokenizer.index !== endIndex) return;
    const close = startTagClose(this.html, endIndex);
    if (close <= endIndex) return;
    // attributes that may hide the element's text (hidden-text.ts) or make it a figure (class-captions.ts) are read
    const attributes = this.html.slice(endIndex, close);
    if (MAY_HIDE.test(attributes) || MAY_BE_CLASS_FIGURE.test(attributes) || MAY_MARK_CAPTION.test(attributes)) this.wantAttributes = true;
    else tokenizer.index = close - 1;
  }
  override onattribname(start: number, endIndex: number): void {
    if (this.wantAttributes) super.onattribname(start, endIndex);
  }
  override onattribdata(start: number, endIndex: number): void {
    if (this.wantAttributes) super.onattribdata(start, endIndex);
  }
  override onattribentity(cp: number): void {
    if (this.wantAttributes) super.onattribentity(cp);
  }
  override onattribend(quote: QuoteType, endIndex: number): void {
    if (this.wantAttributes) super.onattribend(quote, endIndex);
  }
  override onopentagend(endIndex: number): void {
    super.onopentagend(endIndex);
    this.jump(endIndex);
  }
  override onclosetag(start: number, endIndex: number): void {
    super.onclosetag(start, endIndex);
    this.jump(endIndex);
  }
  private jump(gt: number): void {
    if (this.afterTag === null) return;
    const tokenizer = (this as unknown as { tokenizer?: { index?: unknown } }).tokenizer;
    if (!tokenizer || tokenizer.index !== gt) return;
    const to = this.afterTag(gt + 1);
    if (to > gt + 1) tokenizer.index = to - 1;
  }
}

/** The parser's own (private) tag-name reader, called as `this`'s. */
const stockReadTagName = (Parser.prototype as unknown as { readTagName(this: Parser, start: number, end: number): string }).readTagName;

/**
 * A tag's name as the parser reads it (`readTagName`, private in its typings): outside foreign content
 * (svg, math: names there are adjusted) a known name comes from inert-span's table instead of a
 * lower-cased copy of the page's characters; `image` is `img` there, as the parser has it. (When the
 * parser has no such method, its own code runs as it is.)
 */
if (typeof stockReadTagName === "function") {
  (SkippingParser.prototype as unknown as { readTagName(this: SkippingParser, start: number, end: number): string }).readTagName = function (this: SkippingParser, start: number, end: number): string {
    const foreign = (this as unknown as { foreignContext?: unknown[] }).foreignContext;
    const name = this.html !== null && Array.isArray(foreign) && foreign.length === 1 && foreign[0] === 0 ? knownTagName(this.html, start, end) : null;
    if (name === null) return stockReadTagName.call(this, start, end);
    return name === "image" ? "img" : name;
  };
}

/**
 * Where the page's last `<im` (any case) starts, or -1: every `<img` and `<image` tag starts at or before
 * it. Searched backwards from `<` to `<`: the last image tag is most often near the page's end.
 */
function lastImageTag(html: string): number {
  for (let i = html.lastIndexOf("<"); i >= 0; i = i === 0 ? -1 : html.lastIndexOf("<", i - 1)) {
    if ((html.charCodeAt(i + 1) | 0x20) === 0x69 && (html.charCodeAt(i + 2) | 0x20) === 0x6d) return i;
  }
  return -1;
}

/**
 * The captions of the images of one page; `pageUrl` resolves relative URLs (a `<base>` overrides it).
 * Spans that cannot change the result are skipped (most of a long page's text once the block around
 * it is too long to be a caption); in the rare page where that cannot be known in time (an image in a
 * table part of which was skipped), the page is read again in full.
 */
export function extractCaptions(html: string, pageUrl: string, opts: ExtractOptions = {}): PageCaptions {
  const first = read(html, pageUrl, null, opts);
  if (!("base" in first)) return first;
  // a <base> after images: a browser resolves every URL of the document against it, so the page is read
  // again with it from the start (once: the second reading takes no other <base>)
  return read(html, pageUrl, first.base, opts) as PageCaptions;
}

/** The page's first usable `<base href>`, met after an image's URL was resolved without it. */
interface LateBase {
  base: string;
}

/** The page read, with the document's base URL when known (`base`), else the page URL until a `<base>`. */
function read(html: string, pageUrl: string, base: string | null, opts: ExtractOptions): PageCaptions | LateBase {
  return (opts.skipInert !== false ? readPage(html, pageUrl, base, opts, true) : null) ?? readPage(html, pageUrl, base, opts, false)!;
}

/** One pass over the page; null when a skip turned out to matter (then read it again without skips). */
function readPage(html: string, pageUrl: string, documentBase: string | null, opts: ExtractOptions, skip: boolean): PageCaptions | LateBase | null {
  const maxCaption = opts.maxCaptionChars ?? 500;
  const maxImages = opts.maxImages ?? 5000;
  const maxDepth = opts.maxDepth ?? 512;
  const templateImages = opts.templateImages !== false;
  const credits = opts.credits !== false;
  const classCaptions = opts.classCaptions !== false;
  let depth = 0;
  let tooDeep = false;
  const dropped = new Map<string, number>();
  const drop = (reason: string) => dropped.set(reason, (dropped.get(reason) ?? 0) + 1);
  let base: string = documentBase ?? pageUrl;
  /** the first `<base href>` was met (or is known): later ones are not the document's */
  let baseSeen = documentBase !== null;
  /** an image's URL was resolved against `base`: a `<base>` from now on is late */
  let resolved = false;
  let lateBase: string | null = null;
  const uses: ImageUse[] = [];
  const blocks: Block[] = [{ tag: "#root", depth: 0, text: new TextBuf(true), images: [], inside: 0 }];
  /** characters that scans starting before the point where an earlier scan stopped may still read (a bound: each such scan reads up to there again) */
  let rescans = html.length;
  const figures: Figure[] = [];
  const tables: Table[] = [];
  const pictures: (string | null)[] = [];
  let opaque = 0;
  let inFigcaption = 0;
  let inCell = 0;
  /** the parser's open elements (outermost first), as its events tell them */
  const open: string[] = [];
  let aborted = false;
  let noScanBefore = 0;
  let skippedChars = 0;
  /** no image tag starts after it (an `<im`, in text, comments and attributes too) */
  const lastImage = skip ? lastImageTag(html) : html.length;
  /** open blocks (the page root aside) holding images: their text may still become a caption or a drop */
  let waiting = 0;
  /** the depth of the outermost open element that hides its text (hidden-text.ts), or 0 */
  let hiddenAt = 0;
  /** whether text here reaches a caption read from an element at `depth`: not when an element hiding it opened inside that one */
  const seenFrom = (depth: number) => hiddenAt === 0 || depth >= hiddenAt;
  let noscripts = 0;
  /** open elements that a class made a figure or a figure's caption (class-captions.ts), by depth */
  const classRoles: { depth: number; role: "figure" | "caption" }[] = [];
  /** an image just dropped for want of a usable URL (a lazy loader's placeholder): a <noscript> copy right after it stands in for it */
  let lazyGap: { block: Block; reason: string } | null = null;

  const chooseUrl = (a: Record<string, string>): ReturnType<typeof imageKey> | { drop: "no_src" } => {
    const candidates = imageUrlCandidates(a, pictures.length > 0 ? pictures[pictures.length - 1]! : null);
    let first: ReturnType<typeof imageKey> | null = null;
    resolved = true;
    for (const c of candidates) {
      if (!c || !c.trim()) continue;
      const v = imageKey(c, base);
      if ("key" in v) return v;
      first ??= v;
    }
    return first ?? { drop: "no_src" };
  };

  const onImage = (a: Record<string, string>) => {
    /** the drop reason of the placeholder this image stands in for */
    let standsIn: string | null = null;
    if (opaque > 0) {
      // a <noscript> copy repeats a lazy-loaded image, unless it is the only place the picture is named
      if (lazyGap === null || opaque !== noscripts || lazyGap.block !== blocks[blocks.length - 1]) return drop("noscript_image");
      standsIn = lazyGap.reason;
    }
    lazyGap = null;
    const w = a["width"]?.trim();
    const h = a["height"]?.trim();
    if ((w === "1" || w === "0") && (h === "1" || h === "0")) return drop("tracking_pixel");
    if (templateImages) {
      const declared = declaredSizeDrop(a["width"], a["height"]);
      if (declared !== null) return drop(declared);
    }
    const v = chooseUrl(a);
    if ("drop" in v) {
      if (standsIn === null && LAZY_GAPS.has(v.drop)) lazyGap = { block: blocks[blocks.length - 1]!, reason: v.drop };
      return drop(v.drop);
    }
    if (uses.length >= maxImages) return drop("too_many_images");
    if (standsIn !== null) {
      // the placeholder's tag is counted as replaced by this one
      const n = dropped.get(standsIn)! - 1;
      if (n === 0) dropped.delete(standsIn);
      else dropped.set(standsIn, n);
      drop("lazy_placeholder");
    }
    const use: ImageUse = { key: v.key, url: v.url, ordinal: uses.length, alt: cleanAttribute(a["alt"] ?? ""), title: cleanAttribute(a["title"] ?? "") };
    uses.push(use);
    holdImages(blocks[blocks.length - 1]!, [use]);
    blocks[blocks.length - 1]!.inside++;
    figures[figures.length - 1]?.images.push(use);
    figures[figures.length - 1]?.text?.image();
    const table = tables[tables.length - 1];
    if (table && inCell > 0) {
      if (table.skipped) {
        aborted = true;
        parser.pause();
        return;
      }
      table.hasImages = true;
      table.rows[table.rows.length - 1]?.images.push(use);
    }
  };

  const holdImages = (b: Block, images: ImageUse[]) => {
    if (b.images.length === 0 && blocks[0] !== b) waiting++;
    b.images.push(...images);
  };

  /** where to go on after a tag that ends before `next`: past a span whose events would change nothing */
  const afterTag = (next: number): number => {
    if (tooDeep || aborted || (next < noScanBefore && rescans <= 0)) return next;
    // inside an opaque element (head, script, noscript, select, …) text goes nowhere; elsewhere it would
    // go to the current block (and a cell's row, a figcaption): only a full buffer, or one already too
    // long to be a caption (so are those of the blocks around it), has no use for it; nor has any block
    // once no image can follow and no open block holds one waiting for its text
    if (opaque === 0) {
      if (inFigcaption > 0 || classRoles.length > 0 || figures[figures.length - 1]?.text?.open) return next;
      const top = blocks[blocks.length - 1]!.text;
      if (!(top.saturated || top.longerThan(maxCaption) || (next > lastImage && waiting === 0))) return next;
    }
    if (html.charCodeAt(next - 1) !== 0x3e) return next;
    const table = tables[tables.length - 1];
    if (table?.hasImages || (open.length > 0 && RAW_TEXT.has(open[open.length - 1]!))) return next;
    const span = inertSpan(html, next, open, maxDepth);
    if (next < noScanBefore) rescans -= span.stop - next;
    noScanBefore = span.stop;
    if (span.end <= next) return next;
    if (table) table.skipped = true;
    skippedChars += span.end - next;
    return span.end;
  };

  const closeFigure = () => {
    const f = figures.pop()!;
    // (no figcaption: a block in the figure may be its caption)
    const caption = f.caption !== null ? { text: f.caption.text(), overflow: f.caption.overflow } : f.text?.caption();
    const text = caption?.text ?? "";
    if (text !== "" && (text.length > maxCaption || caption!.overflow)) drop("figcaption_too_long");
    else if (text !== "") for (const use of f.images) use.figcaption ??= text;
    // a figure inside a figure (a gallery of figures) is also the outer one's: its caption is theirs where they have none
    figures[figures.length - 1]?.images.push(...f.images);
  };

  const closeTable = (t: Table) => {
    if (t.rows.length < 2 || t.rows.some((r) => r.cells > 1)) return;
    for (let i = 0; i + 1 < t.rows.length; i++) {
      const row = t.rows[i]!;
      const next = t.rows[i + 1]!;
      if (row.images.length === 0 || next.images.length > 0 || row.text.text() !== "") continue;
      const text = next.text.text();
      if (text === "") continue;
      if (text.length > maxCaption || next.text.overflow) {
        drop("table_caption_too_long");
        continue;
      }
      for (const use of row.images) use.table ??= text;
    }
  };

  /**
   * A line break or a block's edge between two texts: a space in the texts being read that would
   * otherwise glue them ("La Mancha<br>Guadalajara" is two words). A block's own buffer gets its
   * separation when it closes (addBlock); a `<br>` inside it needs one here.
   */
  const wordBreak = (name: string) => {
    if (name === "br" || name === "hr") blocks[blocks.length - 1]!.text.add(" ");
    if (inFigcaption > 0) figures[figures.length - 1]?.caption?.add(figures[figures.length - 1]?.edges?.text(" ") ?? " ");
    figures[figures.length - 1]?.text?.text(" ");
    if (inCell > 0) {
      const t = tables[tables.length - 1];
      t?.rows[t.rows.length - 1]?.text.add(" ");
    }
  };

  const handler = {
      onopentagname(name: string) {
        // (a skipping parser reads other elements' attributes only where they may hide text)
        parser.wantAttributes = !skip || ATTRIBUTE_TAGS.has(name);
      },
      onopentag(name: string, a: Record<string, string>) {
        open.push(name);
        if (tooDeep || aborted) return;
        if (++depth > maxDepth) {
          tooDeep = true;
          drop("too_deep");
          parser.pause();
          return;
        }
        if (OPAQUE.has(name)) opaque++;
        if (name === "noscript") noscripts++;
        if (hiddenAt === 0 && (hidesText(name, a) || (credits && isCredit(a)))) hiddenAt = depth;
        if (name === "base" && !baseSeen && a["href"]) {
          baseSeen = true;
          try {
            base = new URL(a["href"], pageUrl).href;
          } catch {
            // an unusable <base> leaves the page URL in charge
          }
          if (resolved && base !== pageUrl) {
            // images before it were resolved against the page: stop, the page is read again with it
            lateBase = base;
            aborted = true;
            parser.pause();
            return;
          }
        }
        if (BREAKS.has(name) && opaque === 0) wordBreak(name);
        // (an element's edge in a figcaption: two sentences either side are not glued)
        if (inFigcaption > 0 && opaque === 0) figures[figures.length - 1]?.edges?.tag(name, true);
        if (BLOCKS.has(name)) blocks.push({ tag: name, depth, text: new TextBuf(), images: [], inside: 0 });
        const classRole = classCaptions ? classFigureRole(name, a) : null;
        // (a block in a figure without a figcaption may be its caption: figure-text.ts)
        const fig = figures[figures.length - 1];
        if (fig?.text && inFigcaption === 0 && fig.caption === null) fig.text.element(name, depth, a, hiddenAt === 0 || hiddenAt <= fig.text.depth, BOXES.has(name));
        if (name === "figure" || classRole === "figure") {
          figures[figures.length - 1]?.text?.figureInside();
          figures.push({ images: [], caption: null, captionDepth: 0, edges: null, text: classCaptions && name === "figure" ? new FigureText(depth) : null });
          if (classRole !== null) classRoles.push({ depth, role: classRole });
        } else if ((name === "figcaption" || classRole === "caption") && figures.length > 0) {
          inFigcaption++;
          if (classRole !== null) classRoles.push({ depth, role: classRole });
          const f = figures[figures.length - 1]!;
          if (f.caption === null) {
            f.caption = new TextBuf();
            f.captionDepth = depth;
            f.edges = new SentenceEdges();
          }
        } else if (name === "table") tables.push({ rows: [], hasImages: false, skipped: false });
        else if (name === "tr" && tables.length > 0) tables[tables.length - 1]!.rows.push({ depth, cells: 0, images: [], text: new TextBuf() });
        else if ((name === "td" || name === "th") && tables.length > 0) {
          inCell++;
          const rows = tables[tables.length - 1]!.rows;
          if (rows.length === 0) rows.push({ depth, cells: 0, images: [], text: new TextBuf() });
          rows[rows.length - 1]!.cells++;
        } else if (name === "picture") pictures.push(null);
        else if (name === "source" && pictures.length > 0 && pictures[pictures.length - 1] === null) {
          const srcset = a["srcset"] || a["data-srcset"];
          if (srcset) pictures[pictures.length - 1] = largestSrcsetCandidate(srcset);
        } else if (name === "img" || name === "amp-img") onImage(a); // (an AMP page's pictures are <amp-img>s; the <img> in their <noscript> repeats them)
      },
      ontext(text: string) {
        if (opaque > 0 || tooDeep || aborted) return;
        // (what no reader sees is not text: "soft\u00adware" is "software")
        if (HAS_INVISIBLE.test(text)) text = text.replace(INVISIBLE, "");
        const top = blocks[blocks.length - 1]!;
        if (seenFrom(top.depth)) top.text.add(text);
        if (inFigcaption > 0) {
          const f = figures[figures.length - 1];
          if (f && seenFrom(f.captionDepth)) f.caption?.add(f.edges?.text(text) ?? text);
        }
        if (inCell > 0) {
          const t = tables[tables.length - 1];
          const row = t?.rows[t.rows.length - 1];
          if (row && seenFrom(row.depth)) row.text.add(text);
        }
        const f = figures[figures.length - 1];
        if (f?.text && seenFrom(f.text.depth)) f.text.text(text);
      },
      onclosetag(name: string) {
        open.pop();
        if (tooDeep || aborted) return;
        depth--;
        if (OPAQUE.has(name)) opaque = Math.max(0, opaque - 1);
        if (BREAKS.has(name) && name !== "br" && opaque === 0) wordBreak(name);
        if (inFigcaption > 0 && opaque === 0) figures[figures.length - 1]?.edges?.tag(name, false);
        if (BLOCKS.has(name) && blocks.length > 1 && blocks[blocks.length - 1]!.tag === name) {
          const b = blocks.pop()!;
          const parent = blocks[blocks.length - 1]!;
          parent.inside += b.inside;
          if (b.images.length > 0) {
            waiting--;
            // its cleaned text's length is known without cleaning it: a text too long to be used is not built
            const length = b.text.cleanLength;
            if (length === 0) {
              // no text here: the nearest is further out, but not far
              const near = b.images.filter((u) => (u.climbs = (u.climbs ?? 0) + 1) <= MAX_CLIMBS);
              for (let i = near.length; i < b.images.length; i++) drop("nearby_too_far");
              if (near.length > 0) holdImages(parent, near);
            } else if (length > maxCaption || b.text.overflow) drop("nearby_too_long");
            // text around several images is about none of them in particular
            else if (b.inside > 1) drop("nearby_shared");
            else {
              const text = b.text.text();
              for (const use of b.images) use.nearby ??= text;
            }
          }
          // the parent's text includes this block's, as a reader sees it
          if (b.text.length > 0 && seenFrom(parent.depth)) parent.text.addBlock(b.text);
        }
        figures[figures.length - 1]?.text?.close(depth + 1, name);
        // (an element a class made a figure or caption closes as one)
        const classRole = classRoles.length > 0 && classRoles[classRoles.length - 1]!.depth === depth + 1 ? classRoles.pop()!.role : null;
        if ((name === "figure" || classRole === "figure") && figures.length > 0) closeFigure();
        else if ((name === "figcaption" || classRole === "caption") && inFigcaption > 0) inFigcaption--;
        else if (name === "table" && tables.length > 0) closeTable(tables.pop()!);
        else if ((name === "td" || name === "th") && inCell > 0) inCell--;
        else if (name === "picture") pictures.pop();
        if (name === "noscript" && noscripts > 0) noscripts--;
        if (hiddenAt > depth) hiddenAt = 0;
      },
  };
  const parser = new SkippingParser(handler, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, Tokenizer: FastTokenizer as unknown as typeof Tokenizer });
  if (skip) {
    parser.afterTag = afterTag;
    parser.html = html;
  }
  parser.write(html);
  if (lateBase !== null) return { base: lateBase };
  if (aborted) return null;
  if (tooDeep) {
    // read up to the bound: close what is open so the captions seen so far are assigned
    tooDeep = false;
    while (figures.length > 0) handler.onclosetag("figure");
    while (tables.length > 0) handler.onclosetag("table");
    while (blocks.length > 1) handler.onclosetag(blocks[blocks.length - 1]!.tag);
  } else parser.end();

  // an image shown more than once on the page is the page template's: none of its uses is captioned
  const shown = templateImages ? withoutRepeated(uses) : { kept: uses, repeated: 0 };
  for (let i = 0; i < shown.repeated; i++) drop("repeated_on_page");
  const captions: WebCaption[] = [];
  for (const u of shown.kept) {
    const add = (type: WebCaptionType, text: string | undefined) => {
      if (text) captions.push({ image: u.key, url: u.url, type, text, ordinal: u.ordinal });
    };
    add("alt", u.alt);
    add("title", u.title);
    // (a credit written at a caption's end names who took the picture, not what it shows)
    const read = (text: string | undefined) => (credits && text ? withoutCreditText(text) : text);
    add("figcaption", read(u.figcaption));
    add("table", read(u.table));
    if (!u.figcaption && !u.table) add("nearby", read(u.nearby));
  }
  return { captions, images: shown.kept.length, dropped, skippedChars };
}
