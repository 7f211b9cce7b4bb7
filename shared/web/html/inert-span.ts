/**
 * How far the HTML from a tag's end can be skipped without changing what htmlparser2 (12.x, HTML mode,
 * entities decoded, tag names lower-cased) tells the caption extractor about anything that follows.
 * A span qualifies when it is made only of text, ordinary start tags and end tags that open and close
 * elements INSIDE the span (it leaves the parser's element stack as it found it), and the extractor has
 * no use for what happens inside (extract-captions.ts decides that from its own state: the text would
 * go to a text buffer already full, no table it would touch has an image).
 *
 * The scan follows htmlparser2's tokenizer states for start tags (attribute names and quoted or bare
 * values, `/`), end tags (name, then anything up to `>`) and text (a `<` not followed by a letter, `/`,
 * `!` or `?` is text), and its parser's stack rules (void elements, `</br>` and a stray `</p>` as
 * elements of their own, start tags that close open ones, an end tag closing the nearest open element
 * of its name). It stops, before it, at anything else: a comment, declaration, CDATA or processing
 * instruction, a raw-text element (script, style, title, textarea, …), foreign content (svg, math),
 * `form`, a non-ASCII tag name, a tag the extractor reads (img, source, picture, figure, figcaption,
 * base), an end tag or implied close of an element opened before the span, or the nesting bound.
 * The span ends at the last token start where every element it opened was closed again.
 */

const VOID = new Set(["area", "base", "basefont", "br", "col", "command", "embed", "frame", "hr", "img", "input", "isindex", "keygen", "link", "meta", "param", "source", "track", "wbr"]);

const P = new Set(["p"]);
const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6", "p"]);
const FORM_TAGS = new Set(["input", "option", "optgroup", "select", "button", "datalist", "textarea"]);
const TABLE_SECTIONS = new Set(["thead", "tbody"]);
const DD_DT = new Set(["dd", "dt"]);
const RT_RP = new Set(["rt", "rp"]);
/** htmlparser2's openImpliesClose: a start tag closes these while they are the current element. */
const IMPLIES_CLOSE = new Map<string, Set<string>>([
  ["tr", new Set(["tr", "th", "td"])],
  ["th", new Set(["th"])],
  ["td", new Set(["thead", "th", "td"])],
  ["body", new Set(["head", "link", "script"])],
  ["a", new Set(["a"])],
  ["li", new Set(["li"])],
  ["p", P],
  ...["h1", "h2", "h3", "h4", "h5", "h6"].map((h) => [h, HEADINGS] as [string, Set<string>]),
  ...["select", "input", "output", "button", "datalist", "textarea"].map((t) => [t, FORM_TAGS] as [string, Set<string>]),
  ["option", new Set(["option"])],
  ["optgroup", new Set(["optgroup", "option"])],
  ["dd", DD_DT],
  ["dt", DD_DT],
  ...["address", "article", "aside", "blockquote", "details", "div", "dl", "fieldset", "figcaption", "figure", "footer", "form", "header", "hr", "main", "nav", "ol", "pre", "section", "table", "ul"].map((t) => [t, P] as [string, Set<string>]),
  ["rt", RT_RP],
  ["rp", RT_RP],
  ["tbody", TABLE_SECTIONS],
  ["tfoot", TABLE_SECTIONS],
]);

/**
 * Start tags the span stops before: what the extractor reads, what changes how the tokenizer reads
 * what follows (raw text, foreign content), and what the parser treats by the whole stack (`form`).
 */
export const STOP_TAGS = new Set([
  "img", "image", "amp-img", "source", "picture", "figure", "figcaption", "base",
  "plaintext",
  "svg", "math", "mi", "mo", "mn", "ms", "mtext", "annotation-xml", "foreignobject", "desc",
  "form",
]);

/** Raw-text and RCDATA elements: after their start tag the tokenizer is not reading markup. */
export const RAW_TEXT = new Set(["script", "style", "title", "textarea", "xmp", "iframe", "noembed", "noframes", "plaintext"]);
/** What ends each (htmlparser2 compares `c | 0x20` with it); plaintext never ends (a stop tag). */
const RAW_TEXT_END = new Map([...RAW_TEXT].filter((t) => t !== "plaintext").map((t) => [t, [...`</${t}`].map((ch) => ch.charCodeAt(0))]));
/** RCDATA: entities are decoded inside, so the tokenizer reads it character by character. */
const RCDATA = new Set(["title", "textarea"]);

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const EQ = 0x3d;
const DQ = 0x22;
const SQ = 0x27;

const isWs = (c: number) => c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
const isEndOfTagSection = (c: number) => c === SLASH || c === GT || isWs(c);
const isAlpha = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);

/** What the scan needs to know of a tag name, in one lookup. */
const STOP = 1;
const IS_VOID = 2;
const CLOSES = 4;
const TAG_FLAGS = new Map<string, number>();
for (const t of STOP_TAGS) TAG_FLAGS.set(t, (TAG_FLAGS.get(t) ?? 0) | STOP);
for (const t of VOID) TAG_FLAGS.set(t, (TAG_FLAGS.get(t) ?? 0) | IS_VOID);
for (const t of IMPLIES_CLOSE.keys()) TAG_FLAGS.set(t, (TAG_FLAGS.get(t) ?? 0) | CLOSES);

/** A tag name the scan knows, with all it needs of it (found without copying the name out of the page). */
interface KnownTag {
  name: string;
  flags: number;
  implies: Set<string> | null;
  rawEnd: readonly number[] | null;
  rcdata: boolean;
}

/** Common elements of no special meaning to the scan: known, so their names are not copied either. */
const PLAIN_TAGS = ["a", "b", "i", "u", "s", "q", "em", "strong", "small", "span", "font", "sup", "sub", "code", "abbr", "cite", "nav", "ul", "ol", "dl", "table", "tbody", "thead", "tfoot", "center", "label", "time", "mark", "del", "ins", "var", "kbd", "samp", "big", "tt", "bdi", "bdo", "ruby", "data", "output", "summary", "details", "address", "legend", "caption", "colgroup", "menu"];

/** Known names by a hash of their lower-cased characters (an open-addressed table: a miss costs one probe or two). */
const KNOWN_BITS = 9;
const KNOWN_SIZE = 1 << KNOWN_BITS;
const KNOWN: (KnownTag | undefined)[] = new Array(KNOWN_SIZE);

function nameHash(html: string, start: number, end: number): number {
  let h = 0;
  for (let i = start; i < end; i++) {
    const c = html.charCodeAt(i);
    h = (Math.imul(h, 31) + (c >= 0x41 && c <= 0x5a ? c + 0x20 : c)) | 0;
  }
  return (h ^ (h >>> KNOWN_BITS)) & (KNOWN_SIZE - 1);
}

for (const name of new Set([...TAG_FLAGS.keys(), ...RAW_TEXT, ...PLAIN_TAGS])) {
  const tag: KnownTag = { name, flags: TAG_FLAGS.get(name) ?? 0, implies: IMPLIES_CLOSE.get(name) ?? null, rawEnd: RAW_TEXT_END.get(name) ?? null, rcdata: RCDATA.has(name) };
  let at = nameHash(name, 0, name.length);
  while (KNOWN[at] !== undefined) at = (at + 1) & (KNOWN_SIZE - 1);
  KNOWN[at] = tag;
}

/** The known tag whose name is html[start, end) (ASCII, `upper`: with capitals), or null. */
function knownTag(html: string, start: number, end: number, upper: boolean): KnownTag | null {
  const len = end - start;
  for (let at = nameHash(html, start, end); ; at = (at + 1) & (KNOWN_SIZE - 1)) {
    const tag = KNOWN[at];
    if (tag === undefined) return null;
    if (tag.name.length !== len) continue;
    if (!upper) {
      if (html.startsWith(tag.name, start)) return tag;
      continue;
    }
    let i = 0;
    for (; i < len; i++) {
      const c = html.charCodeAt(start + i);
      if ((c >= 0x41 && c <= 0x5a ? c + 0x20 : c) !== tag.name.charCodeAt(i)) break;
    }
    if (i === len) return tag;
  }
}

const IMG = knownTag("img", 0, 3, false)!;

/**
 * The name of the known tag html[start, end) as htmlparser2 lower-cases it, or null when it is not one
 * (not known, or not ASCII): the parser's own name for a common tag, without copying it out of the page.
 */
export function knownTagName(html: string, start: number, end: number): string | null {
  let upper = false;
  for (let i = start; i < end; i++) {
    const c = html.charCodeAt(i);
    if (c > 0x7e) return null;
    if (c >= 0x41 && c <= 0x5a) upper = true;
  }
  return knownTag(html, start, end, upper)?.name ?? null;
}

/** Index of the next `<` at or after `i`, or -1 (a native search: it beats a loop even over a short gap). */
function nextLt(html: string, i: number): number {
  return html.indexOf("<", i);
}

/**
 * The tag name starting at `i` (up to whitespace, `/` or `>`) as twice its end, plus one when it holds
 * a capital; -1 at the end of input or at a non-ASCII character (the parser lower-cases beyond ASCII).
 */
function tagNameEnd(html: string, i: number): number {
  const n = html.length;
  let upper = 0;
  for (; i < n; i++) {
    const c = html.charCodeAt(i);
    if (c === GT || c === SLASH || c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d) return 2 * i + upper;
    if (c > 0x7e) return -1;
    if (c >= 0x41 && c <= 0x5a) upper = 1;
  }
  return -1;
}

function nameAt(html: string, i: number, coded: number): string {
  const name = html.slice(i, coded >> 1);
  return coded & 1 ? name.toLowerCase() : name;
}

/**
 * Index of the `>` that ends a start tag whose name ends at `i` (htmlparser2's attribute states), or -1.
 * `selfClosing`: when the tag ends self-closing (`/`, perhaps spaces, then `>`), the index of that `/`.
 *
 * The tokenizer's states (before an attribute name, in it, after it, before a value, in a quoted or
 * bare value, self-closing) are read a run at a time, each run by a tight loop, not one switch per
 * character. Where they differ from plain whitespace, the self-closing state only matters for the
 * index returned: a `/` before a name is passed over like whitespace, and a `>` reached after one
 * (whitespace between allowed) is a self-closing end.
 */
function startTagEnd(html: string, i: number, selfClosing = false): number {
  const n = html.length;
  /** the `/` of a self-closing state the scan is in (-1: none) */
  let slash = -1;
  for (;;) {
    // before an attribute name: whitespace and `/` are passed over, `>` ends the tag
    let c = 0;
    for (; i < n; i++) {
      c = html.charCodeAt(i);
      if (c === SLASH) slash = i;
      else if (!isWs(c)) break;
    }
    if (i >= n) return -1;
    if (c === GT) return selfClosing && slash >= 0 ? slash : i;
    slash = -1;
    // a name: this character is its first, whatever it is; it runs to `=`, `/`, `>` or whitespace
    for (;;) {
      for (i++; i < n; i++) {
        c = html.charCodeAt(i);
        if (c === EQ || c === SLASH || c === GT || isWs(c)) break;
      }
      if (i >= n) return -1;
      // after the name: whitespace is passed over
      while (isWs(c)) {
        if (++i >= n) return -1;
        c = html.charCodeAt(i);
      }
      if (c === EQ || c === SLASH || c === GT) break;
      // another name starts here (the attribute had no value)
    }
    if (c !== EQ) continue; // `/` or `>`: read again before a name
    // before the value: whitespace is passed over, a quote opens a quoted value, anything else a bare one
    do {
      if (++i >= n) return -1;
      c = html.charCodeAt(i);
    } while (isWs(c));
    if (c === DQ || c === SQ) {
      // entities are decoded inside, but none can hold the quote
      const close = html.indexOf(c === DQ ? '"' : "'", i + 1);
      if (close < 0) return -1;
      i = close + 1;
      continue;
    }
    // a bare value runs to whitespace or `>` (read again before a name)
    for (; i < n; i++) {
      c = html.charCodeAt(i);
      if (c === GT || isWs(c)) break;
    }
    if (i >= n) return -1;
  }
}

/**
 * Where htmlparser2's tokenizer, reading the attributes of a start tag whose name ends at `i`, comes to
 * the end of the tag: the `/` of a self-closing end (`/>`, `/ >`) or else the `>`; -1 when the input ends
 * first. Read from there in its state before an attribute name, the tag ends exactly as it would have,
 * its attributes unread (the caption extractor reads those of a few elements only).
 */
export function startTagClose(html: string, i: number): number {
  return startTagEnd(html, i, true);
}

/**
 * Index of the character that ends the name of the end tag closing a raw-text element whose text
 * starts at `start` (htmlparser2's InSpecialTag), or -1.
 */
function rawTextEnd(html: string, start: number, seq: readonly number[], rcdata: boolean): number {
  const n = html.length;
  let k = 0;
  for (let i = start; i < n; i++) {
    const c = html.charCodeAt(i);
    if (k === seq.length) {
      if (isEndOfTagSection(c)) return i;
      k = 0;
    }
    if ((c | 0x20) === seq[k]) k++;
    else if (k === 0) {
      if (!rcdata) {
        const lt = html.indexOf("<", i + 1);
        if (lt < 0) return -1;
        i = lt;
        k = 1;
      }
    } else k = Number(c === LT);
  }
  return -1;
}

const DASH = 0x2d;
/** `--!>`: htmlparser2 ends a comment at it, at `-->`, or at once on `<!-->` and `<!--->`. */
const COMMENT_END = [DASH, DASH, 0x21, GT];

/** Index of the `>` that ends a comment whose text starts at `start` (just after `<!--`), or -1 (htmlparser2's InCommentLike). */
function commentEnd(html: string, start: number): number {
  const n = html.length;
  let k = 0;
  for (let i = start; i < n; i++) {
    const c = html.charCodeAt(i);
    if (k <= 1 && i === start + k && c === GT) return i;
    if (k === 2 && c === GT) return i;
    if (k === 3 && c !== GT) {
      k = c === DASH ? 1 : 0;
      continue;
    }
    if (c === COMMENT_END[k]) {
      if (++k === COMMENT_END.length) return i;
      continue;
    }
    if (k === 0) {
      const dash = html.indexOf("-", i + 1);
      if (dash < 0) return -1;
      i = dash;
      k = 1;
      continue;
    }
    if (c !== COMMENT_END[k - 1]) k = 0;
  }
  return -1;
}

/** Where a `<!…`, `<?…` or `</` + non-letter construct starting at `lt` ends (its `>`), or -1 (also for CDATA, left to the parser). */
function markupDeclarationEnd(html: string, lt: number): number {
  const c = html.charCodeAt(lt + 1);
  if (c === 0x21 /* ! */) {
    if (html.charCodeAt(lt + 2) === DASH && html.charCodeAt(lt + 3) === DASH) return commentEnd(html, lt + 4);
    if (html.charCodeAt(lt + 2) === 0x5b /* [ */) return -1;
    // a doctype, another declaration or a bogus comment: up to the first `>`
    return html.indexOf(">", lt + 2);
  }
  // `<?…>` and `</` + a non-letter are bogus comments (`</>` is nothing): up to the first `>`
  return html.indexOf(">", lt + 2);
}

export interface InertSpan {
  /** where the span ends (a token start, or the end of input): skip [from, end) */
  end: number;
  /** where the scan stopped: scanning again from before it ends there again */
  stop: number;
}

/**
 * The span from `from` (just after a tag's `>`, tokenizer reading text) given the parser's open
 * elements `open` (outermost first) and the extractor's nesting bound.
 */
export function inertSpan(html: string, from: number, open: readonly string[], maxDepth: number): InertSpan {
  const inner: string[] = [];
  const outerTop = open.length > 0 ? open[open.length - 1]! : null;
  const base = open.length;
  let end = from;
  let i = from;
  const n = html.length;
  for (;;) {
    const lt = nextLt(html, i);
    if (lt < 0) {
      // text to the end: the span may run to the end when it left no element open
      if (inner.length === 0) end = n;
      return { end, stop: n };
    }
    if (inner.length === 0) end = lt;
    if (lt + 1 >= n) return { end, stop: lt };
    const c = html.charCodeAt(lt + 1);
    if (isAlpha(c)) {
      const coded = tagNameEnd(html, lt + 1);
      if (coded < 0) return { end, stop: lt };
      const nameEnd = coded >> 1;
      const known = knownTag(html, lt + 1, nameEnd, (coded & 1) === 1);
      const flags = known === null ? 0 : known.flags;
      if (flags & STOP) return { end, stop: lt };
      const gt = startTagEnd(html, nameEnd);
      if (gt < 0) return { end, stop: lt };
      if (flags & CLOSES) {
        const implies = known!.implies!;
        while (inner.length > 0 && implies.has(inner[inner.length - 1]!)) inner.pop();
        if (inner.length === 0 && outerTop !== null && implies.has(outerTop)) return { end, stop: lt };
      }
      if (base + inner.length + 1 > maxDepth) return { end, stop: lt };
      if (known !== null && known.rawEnd !== null) {
        // its text up to its end tag, then that tag up to `>`: the element opens and closes here
        const nameEnd = rawTextEnd(html, gt + 1, known.rawEnd, known.rcdata);
        const close = nameEnd < 0 ? -1 : html.indexOf(">", nameEnd);
        if (close < 0) return { end, stop: lt };
        i = close + 1;
        continue;
      }
      if (!(flags & IS_VOID)) inner.push(known === null ? nameAt(html, lt + 1, coded) : known.name);
      i = gt + 1;
    } else if (c === SLASH && lt + 2 < n && !isAlpha(html.charCodeAt(lt + 2))) {
      const gt = markupDeclarationEnd(html, lt);
      if (gt < 0) return { end, stop: lt };
      i = gt + 1;
    } else if (c === SLASH) {
      // most end tags close the element opened last, written as `</name>`: matched in place
      const top = inner.length > 0 ? inner[inner.length - 1]! : null;
      if (top !== null && html.charCodeAt(lt + 2 + top.length) === GT && html.startsWith(top, lt + 2)) {
        inner.pop();
        i = lt + 3 + top.length;
        continue;
      }
      const coded = tagNameEnd(html, lt + 2);
      if (coded < 0) return { end, stop: lt };
      const gt = html.charCodeAt(coded >> 1) === GT ? coded >> 1 : html.indexOf(">", coded >> 1);
      if (gt < 0) return { end, stop: lt };
      // (or with something before its `>`: compared in place, without a copy of the name)
      if (top !== null && !(coded & 1) && (coded >> 1) - (lt + 2) === top.length && html.startsWith(top, lt + 2)) {
        inner.pop();
        i = gt + 1;
        continue;
      }
      let known = knownTag(html, lt + 2, coded >> 1, (coded & 1) === 1);
      // `</image>` is `</img>`
      if (known !== null && known.name === "image") known = IMG;
      const name = known === null ? nameAt(html, lt + 2, coded) : known.name;
      if ((known === null ? 0 : known.flags) & IS_VOID) {
        // `</br>` is a <br>; other void end tags are ignored
        if (name === "br" && base + inner.length + 1 > maxDepth) return { end, stop: lt };
      } else {
        let at = inner.length - 1;
        while (at >= 0 && inner[at] !== name) at--;
        if (at >= 0) while (inner.length > at) inner.pop();
        else if (open.includes(name)) return { end, stop: lt }; // closes an element opened before the span
        else if (name === "p") {
          // a stray </p> is an empty <p></p>: <p> closes an open p first (none is open: it was not found)
          if (base + inner.length + 1 > maxDepth) return { end, stop: lt };
        }
      }
      i = gt + 1;
    } else if (c === 0x21 /* ! */ || c === 0x3f /* ? */) {
      const gt = markupDeclarationEnd(html, lt);
      if (gt < 0) return { end, stop: lt };
      i = gt + 1;
    } else {
      i = lt + 1; // a `<` that starts no tag is text
    }
  }
}
