/**
 * File-link and gallery-line options (`thumb`, `200px`, `alt=…`): recognised options are never
 * captions; the caption is the last segment that is not an option (as MediaWiki does). Besides the
 * English words every wiki accepts, a dump in one of 35 Wikipedias' languages has that language's
 * words too (data/image-option-words.json, from MediaWiki's language files; `extraction.language`):
 * on bgwiki `[[Файл:X.jpg|Надпис|мини|ляво]]` has the caption "Надпис", not "ляво"; `200пкс` is a
 * size; on dewiki `alternativtext=…` an alt. A language's words are never options elsewhere: "cap"
 * (Catalan for none) is an English caption.
 */
import { readFileSync } from "node:fs";

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

/** One language's option words (lower-cased), from MediaWiki's language file for it. */
export interface LocalizedOptions {
  words: ReadonlySet<string>;
  keys: ReadonlySet<string>;
  altKeys: ReadonlySet<string>;
  /** `hochkant 1.2`, `seite 2`: a keyword, then a number; null when the language has none */
  numbered: RegExp | null;
  /** `200пкс`, `200x300ピクセル` */
  size: RegExp | null;
}

interface LanguageEntry {
  fileNamespaces: string[];
  words: string[];
  keys: string[];
  prefixes: string[];
  widthSuffixes: string[];
  altKeys: string[];
}

let table: Record<string, LanguageEntry> | null = null;
const built = new Map<string, LocalizedOptions | null>();

function languages(): Record<string, LanguageEntry> {
  table ??= (JSON.parse(readFileSync(new URL("./data/image-option-words.json", import.meta.url), "utf8")) as { languages: Record<string, LanguageEntry> }).languages;
  return table;
}

const escape = (w: string) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const alternatives = (ws: string[]) => [...ws].sort((a, b) => b.length - a.length).map(escape).join("|");

/** The option words of a wiki language (`bg`, `de`, `zh`), or null when none are known for it. */
export function localizedOptions(language: string | undefined | null): LocalizedOptions | null {
  if (!language) return null;
  const code = language.toLowerCase();
  if (!built.has(code)) {
    const e = languages()[code] ?? languages()[code.split("-")[0]!];
    const prefixes = (e?.prefixes ?? []).map((p) => p.replace(/_$/, ""));
    const widths = (e?.widthSuffixes ?? []).map((w) => w.replace(/^_/, ""));
    built.set(code, e === undefined ? null : {
      words: new Set(e.words),
      keys: new Set(e.keys),
      altKeys: new Set(e.altKeys),
      numbered: prefixes.length > 0 ? new RegExp(`^(?:${alternatives(prefixes)})[\\s_]*\\d+(?:[.,]\\d+)?$`, "u") : null,
      size: widths.length > 0 ? new RegExp(`^(?:\\d+\\s*(?:x\\s*\\d+\\s*)?|x\\s*\\d+\\s*)_?(?:${alternatives(widths)})$`, "u") : null,
    });
  }
  return built.get(code)!;
}

/** The File namespace's names of a wiki language (`Файл`, `Картинка`), empty when not known. */
export function languageFileNamespaces(language: string): string[] {
  const code = language.toLowerCase();
  return (languages()[code] ?? languages()[code.split("-")[0]!])?.fileNamespaces ?? [];
}

/** English's own `upright 1.5` and `page 3` (every wiki accepts them). */
const NUMBERED = /^(?:upright|page)[\s_]*\d+(?:[.,]\d+)?$/;

/** What one pipe segment of a file link is. */
export type ImageOption = { kind: "option" } | { kind: "alt"; value: string } | { kind: "text" };

/** Classifies one segment (raw wikitext). `extraWords` are lower-cased local option keywords. */
export function classifyImageOption(segment: string, extraWords: ReadonlySet<string>, localized: LocalizedOptions | null = null): ImageOption {
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
    if (localized?.altKeys.has(key)) return { kind: "alt", value: t.slice(t.indexOf("=") + 1) };
    if (localized?.keys.has(key)) return { kind: "option" };
    return { kind: "text" };
  }
  if (NUMBERED.test(lower)) return { kind: "option" };
  if (localized && (localized.words.has(lower) || localized.size?.test(lower) || localized.numbered?.test(lower))) return { kind: "option" };
  return { kind: "text" };
}
