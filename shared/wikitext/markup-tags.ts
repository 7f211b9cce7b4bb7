/**
 * HTML and extension tags in wikitext: which ones hide their content, and a linear-time finder for
 * closing tags (a page with many unclosed `<ref>`s must not be rescanned once per opener).
 */

/** Extension tags whose content is not caption text (and not wikitext the page scanner should parse). */
export const OPAQUE_TAGS: ReadonlySet<string> = new Set([
  "math", "chem", "ce", "score", "syntaxhighlight", "source", "pre", "timeline", "graph", "templatedata",
  "mapframe", "maplink", "hiero", "inputbox", "categorytree", "nowiki", "charinsert", "section", "templatestyles",
]);

/** Tags whose content is dropped from captions: opaque ones plus references and image containers. */
export const CAPTION_DROP_TAGS: ReadonlySet<string> = new Set([...OPAQUE_TAGS, "ref", "references", "gallery", "imagemap"]);

/** Tags rendered as a line or block break: they separate words, so they become a space. */
export const BREAK_TAGS: ReadonlySet<string> = new Set([
  "br", "p", "div", "li", "ul", "ol", "hr", "tr", "td", "th", "table", "dd", "dt", "dl", "blockquote", "poem", "center",
]);

/** `<name attrs>` / `</name>` / `<name/>` at a given index (sticky). */
export const TAG_AT = /<(\/?)([A-Za-z][A-Za-z0-9]*)(?=[\s/>])[^<>]*?(\/?)>/y;

/**
 * Finds the closing tag `</name>` (any case) at or after `from`. Remembers, per name, where the last
 * search ended, so repeated searches over one text are linear in total.
 */
export class CloserFinder {
  private readonly cache = new Map<string, { from: number; at: number; end: number }>();
  private text: string | null;
  private readonly makeText: (() => string) | null;
  /**
   * `closer(name)`: a global regex for `</name>` (the byte path passes one for its latin1 view of
   * UTF-8); `text` may be given as a function, called on the first search (the byte path makes its
   * latin1 view only if a tag's closer is looked for)
   */
  constructor(
    text: string | (() => string),
    private readonly closer: (name: string) => RegExp = (name) => new RegExp(`</${name}\\s*>`, "gi"),
  ) {
    this.text = typeof text === "string" ? text : null;
    this.makeText = typeof text === "string" ? null : text;
  }

  /** [start, end) of the closing tag, or null when the text has none after `from`. */
  find(name: string, from: number): { start: number; end: number } | null {
    const hit = this.cache.get(name);
    if (hit && hit.from <= from && (hit.at < 0 || hit.at >= from)) return hit.at < 0 ? null : { start: hit.at, end: hit.end };
    const re = this.closer(name);
    re.lastIndex = from;
    if (this.text === null) this.text = this.makeText!();
    const m = re.exec(this.text);
    const at = m ? m.index : -1;
    const end = m ? m.index + m[0].length : -1;
    this.cache.set(name, { from, at, end });
    return m ? { start: at, end } : null;
  }
}
