/**
 * Canonical Commons file keys. One Commons file must get one key however a page spells it
 * (`Image:foo_bar.jpg`, `file: Foo%20bar.jpg`, `Datei:Foo bar.jpg`), because the key is the image
 * identity for the whole pipeline (reference counts, grouping, pairing).
 */
import { decodeHTMLStrict } from "entities";

/** Namespace names every wiki understands for files (canonical name and the legacy alias). */
const BUILTIN_FILE_NAMESPACES = ["file", "image"];

/** Characters MediaWiki forbids in titles; a name containing one is not a file. */
const INVALID_TITLE_CHARS = /[#<>[\]|{}\u0000-\u001f\u007f\ufffd]/;

/** MediaWiki title normalisation: `_` and any Unicode whitespace are one space; bidi marks vanish. */
const SPACES = /[\s_]+/g;
const BIDI_MARKS = /[\u200e\u200f\u202a-\u202e]/g;
const PERCENT_ESCAPE = /%[0-9a-fA-F]{2}/;

/** Extensions of the media types Commons accepts; a bare template value must end in one to count as a file. */
export const MEDIA_EXTENSIONS: ReadonlySet<string> = new Set([
  "jpg", "jpeg", "jpe", "png", "apng", "gif", "svg", "tif", "tiff", "webp", "xcf", "djvu", "pdf", "stl",
  "ogg", "oga", "ogv", "opus", "webm", "mp3", "mpg", "mpeg", "wav", "flac", "mid", "midi",
]);

/** Lower-cased namespace names that mean "file" (File, Image and the given aliases). */
export function fileNamespaceSet(aliases: readonly string[] = []): Set<string> {
  const set = new Set(BUILTIN_FILE_NAMESPACES);
  for (const a of aliases) set.add(a.replace(SPACES, " ").trim().toLowerCase());
  return set;
}

/**
 * If `title` (already trimmed, no leading colon) starts with a file namespace, the index just past
 * its colon; else -1.
 */
export function fileNamespaceEnd(title: string, namespaces: ReadonlySet<string>): number {
  const colon = title.indexOf(":");
  // Namespace names are short; a far-away colon belongs to the name itself.
  if (colon <= 0 || colon > 40) return -1;
  const ns = title.slice(0, colon).replace(SPACES, " ").trim().toLowerCase();
  return namespaces.has(ns) ? colon + 1 : -1;
}

function percentDecode(s: string): string {
  if (!PERCENT_ESCAPE.test(s)) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s; // a lone `%` or broken UTF-8 escape: MediaWiki keeps the text as written
  }
}

/** True when the canonical key ends in a media extension Commons accepts. */
export function hasMediaExtension(key: string): boolean {
  const dot = key.lastIndexOf(".");
  return dot > 0 && MEDIA_EXTENSIONS.has(key.slice(dot + 1).toLowerCase());
}

/**
 * Canonical Commons key: "File:" + name. A File/Image/alias prefix (any case, optional leading
 * colon and spaces) is replaced by "File:"; underscores → spaces; whitespace collapsed and trimmed;
 * percent-escapes and HTML entities decoded; first letter upper-cased (Commons titles are
 * first-letter case-insensitive). A bare name without prefix is taken as a file name.
 * Returns null when nothing is left or the name contains a character MediaWiki forbids in titles.
 */
/** MediaWiki's limit on a page title (and so a file name), in UTF-8 bytes. */
export const MAX_TITLE_BYTES = 255;

export function normalizeImageKey(raw: string, aliases?: readonly string[]): string | null {
  return normalizeWithNamespaces(raw, aliases && aliases.length > 0 ? fileNamespaceSet(aliases) : DEFAULT_NAMESPACES);
}

const DEFAULT_NAMESPACES: ReadonlySet<string> = fileNamespaceSet();

/** `normalizeImageKey` with a prepared namespace set (the extractor builds it once per page). */
export function normalizeWithNamespaces(raw: string, namespaces: ReadonlySet<string>): string | null {
  let s = raw;
  if (s.includes("&")) s = decodeHTMLStrict(s);
  s = percentDecode(s);
  s = s.replace(BIDI_MARKS, "").replace(SPACES, " ").trim();
  if (s.startsWith(":")) s = s.slice(1).trimStart();
  const nsEnd = fileNamespaceEnd(s, namespaces);
  if (nsEnd >= 0) s = s.slice(nsEnd).trimStart();
  if (s === "" || INVALID_TITLE_CHARS.test(s)) return null;
  const first = s.codePointAt(0)!;
  const firstLen = first > 0xffff ? 2 : 1;
  const upper = String.fromCodePoint(first).toUpperCase();
  // Special casings like "ß" → "SS" are not what MediaWiki does; keep the letter then.
  const head = [...upper].length === 1 ? upper : s.slice(0, firstLen);
  const name = `${head}${s.slice(firstLen)}`;
  // MediaWiki titles are at most 255 bytes of UTF-8: a longer "file name" is not a file.
  if (Buffer.byteLength(name, "utf8") > MAX_TITLE_BYTES) return null;
  return `File:${name}`;
}
