/**
 * File-link and gallery-line options (`thumb`, `200px`, `alt=…`): recognised options are never
 * captions; the caption is the last segment that is not an option (as MediaWiki does).
 */

const OPTION_WORDS = new Set([
  "thumb", "thumbnail", "frame", "framed", "enframed", "frameless", "border", "upright",
  "left", "right", "center", "centre", "none",
  "baseline", "middle", "sub", "super", "sup", "text-top", "text-bottom", "top", "bottom",
  "loop", "muted", "noplayer", "noicon",
]);

const OPTION_KEYS = new Set([
  "thumb", "thumbnail", "upright", "link", "class", "page", "lang", "alt", "start", "end", "thumbtime", "disablecontrols",
]);

/** `200px`, `200 px`, `200x300px`, `x300px`, and the common typo `200pxpx` MediaWiki also accepts. */
const SIZE = /^(?:\d+\s*(?:x\s*\d+\s*)?|x\s*\d+\s*)px(?:px)?$/;

/** What one pipe segment of a file link is. */
export type ImageOption = { kind: "option" } | { kind: "alt"; value: string } | { kind: "text" };

/** Classifies one segment (raw wikitext). `extraWords` are lower-cased local option keywords. */
export function classifyImageOption(segment: string, extraWords: ReadonlySet<string>): ImageOption {
  const t = segment.trim();
  // Long segments are captions (or a long alt); skip lower-casing a 100k-character caption.
  if (t.length > 64) {
    const alt = /^alt\s*=/i.exec(t.slice(0, 16));
    return alt ? { kind: "alt", value: t.slice(alt[0].length) } : { kind: "text" };
  }
  const lower = t.toLowerCase();
  if (OPTION_WORDS.has(lower) || extraWords.has(lower) || SIZE.test(lower)) return { kind: "option" };
  const eq = lower.indexOf("=");
  if (eq > 0) {
    const key = lower.slice(0, eq).trim();
    if (key === "alt") return { kind: "alt", value: t.slice(t.indexOf("=") + 1) };
    if (OPTION_KEYS.has(key) || extraWords.has(key)) return { kind: "option" };
  }
  return { kind: "text" };
}
