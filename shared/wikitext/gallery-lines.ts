/**
 * `<gallery>` content (one `File:X.jpg|options|caption` per line, prefix optional) and the image line
 * of `<imagemap>` → image references.
 */
import type { WikitextImageRef } from "../core/records.ts";
import { cleanCaptionWith, type CaptionContext } from "./clean-caption.ts";
import { fileNamespaceEnd, normalizeWithNamespaces } from "./image-key.ts";
import { classifyImageOption, type LocalizedOptions } from "./image-options.ts";

/** A reference plus its offset in the page, for document order. */
export interface PlacedRef {
  pos: number;
  ref: WikitextImageRef;
}

/** Splits on `|` outside nested `[[…]]` and `{{…}}` (linear; counts, no recursion). */
export function splitTopLevelPipes(s: string): string[] {
  if (!s.includes("|")) return [s];
  const out: string[] = [];
  let links = 0;
  let templates = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const next = s.charCodeAt(i + 1);
    if (c === 0x5b && next === 0x5b) (links++, i++);
    else if (c === 0x5d && next === 0x5d && links > 0) (links--, i++);
    else if (c === 0x7b && next === 0x7b) (templates++, i++);
    else if (c === 0x7d && next === 0x7d && templates > 0) (templates--, i++);
    else if (c === 0x7c && links === 0 && templates === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out;
}

/** Shared settings of one page's extraction. */
export interface LineContext extends CaptionContext {
  namespaces: ReadonlySet<string>;
  extraWords: ReadonlySet<string>;
  /** the wiki language's option words (image-options.ts), null for English alone */
  localized: LocalizedOptions | null;
  /** told each name in a file's place that is not a valid file name (too long, a forbidden character) */
  onInvalidFileName?: (name: string) => void;
}

/**
 * One image line (`File:X.jpg|alt=…|Caption`) → reference; null for a line that names no valid file.
 * Caption = the last segment that is not an option.
 */
export function parseImageLine(line: string, source: WikitextImageRef["source"], ctx: LineContext): WikitextImageRef | null {
  const parts = splitTopLevelPipes(line);
  const image = normalizeWithNamespaces(parts[0]!, ctx.namespaces);
  if (image === null) {
    if (parts[0]!.trim() !== "") ctx.onInvalidFileName?.(parts[0]!);
    return null;
  }
  let caption: string | null = null;
  let alt: string | null = null;
  for (let k = parts.length - 1; k >= 1; k--) {
    const o = classifyImageOption(parts[k]!, ctx.extraWords, ctx.localized);
    if (o.kind === "alt" && alt === null) alt = cleanCaptionWith(o.value, ctx);
    else if (o.kind === "text" && caption === null && parts[k]!.trim() !== "") caption = cleanCaptionWith(parts[k]!, ctx) ?? "";
  }
  return { image, source, caption: caption === "" ? null : caption, alt };
}

const COMMENT = /<!--[\s\S]*?(?:-->|$)/g;

/** Deeper file links in a line's caption are not looked for: each level reparses its span. */
const MAX_NESTED_DEPTH = 4;

/**
 * The file links inside one image line's options and caption (`File:A.jpg|… [[File:Flag.svg|20px]] …`),
 * each its own reference as in a body link's caption (MediaWiki shows it inline); they add no text to
 * the line's caption. `offset` is where the line starts in the page. One pass over the line with a
 * stack of open `[[`; links deeper than MAX_NESTED_DEPTH are not looked at.
 */
export function nestedFileRefs(line: string, offset: number, ctx: LineContext): PlacedRef[] {
  if (!line.includes("[[")) return [];
  const refs: PlacedRef[] = [];
  const open: number[] = [];
  for (let i = line.indexOf("|"); i >= 0 && i < line.length - 1; i++) {
    const c = line.charCodeAt(i);
    if (c === 0x5b && line.charCodeAt(i + 1) === 0x5b) {
      open.push(i + 2);
      i++;
    } else if (c === 0x5d && line.charCodeAt(i + 1) === 0x5d && open.length > 0) {
      const start = open.pop()!;
      i++;
      if (open.length >= MAX_NESTED_DEPTH) continue;
      const inner = line.slice(start, i - 1);
      // only a name in a file namespace is an image (`[[Foo]]` is a wiki link, `[[:File:X]]` links to the file's page)
      if (fileNamespaceEnd(inner.trimStart(), ctx.namespaces) < 0) continue;
      const ref = parseImageLine(inner, "link", ctx);
      if (ref) refs.push({ pos: offset + start - 2, ref });
    }
  }
  return refs;
}

/** Every image line of a gallery body; `offset` is where the body starts in the page. */
export function galleryRefs(body: string, offset: number, ctx: LineContext): PlacedRef[] {
  const refs: PlacedRef[] = [];
  // Comments are blanked (not removed) so line offsets stay true.
  const text = body.includes("<!--") ? body.replace(COMMENT, (m) => m.replace(/[^\n]/g, " ")) : body;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    if (line.trim() !== "") {
      const ref = parseImageLine(line, "gallery", ctx);
      if (ref) refs.push({ pos: offset + start, ref }, ...nestedFileRefs(line, offset + start, ctx));
    }
    start = end + 1;
  }
  return refs;
}

/** The image of an `<imagemap>` (its first non-empty line; the rest are clickable areas) and the file links in its caption. */
export function imagemapRefs(body: string, offset: number, ctx: LineContext): PlacedRef[] {
  const text = body.includes("<!--") ? body.replace(COMMENT, (m) => m.replace(/[^\n]/g, " ")) : body;
  const m = /[^\s]/.exec(text);
  if (!m) return [];
  const end = text.indexOf("\n", m.index);
  const line = text.slice(m.index, end < 0 ? text.length : end);
  const ref = parseImageLine(line, "link", ctx);
  return ref ? [{ pos: offset + m.index, ref }, ...nestedFileRefs(line, offset + m.index, ctx)] : [];
}
