/**
 * The names a dump's wiki gives its File namespace, read from the dump's <siteinfo>: its own name for
 * namespace 6 (`Файл` on bgwiki, `Datei` on dewiki) and the aliases MediaWiki's language file gives
 * that language (`Картинка`, `Bild`; wikitext/data/image-option-words.json). A non-English dump's
 * file links are written with them, and without them none is read. Reads only the start of the
 * dump, up to the end of <siteinfo> (at most `maxBytes` decompressed bytes).
 */
import { languageFileNamespaces } from "../wikitext/image-options.ts";
import { decodeXML } from "entities";
import { openDumpHead } from "./open-dump.ts";
import { decodeXmlText } from "./xml-text.ts";

export interface SiteFileNamespaces {
  /** the wiki's language code, from `<mediawiki xml:lang>` (or the dbname's prefix); null when not said */
  language: string | null;
  /** the File namespace's names other than the built-in English ones, as the wiki writes them */
  names: string[];
}

const BUILTIN = new Set(["file", "image", "media"]);

const aliasesOf = (language: string) => languageFileNamespaces(language);

/** The File namespace names of the head of a dump (its <siteinfo>), or null when it has none readable. */
export function fileNamespacesOfSiteinfo(head: string): SiteFileNamespaces | null {
  const end = head.indexOf("</siteinfo>");
  if (end < 0) return null;
  const info = head.slice(0, end);
  const lang = /<mediawiki\b[^>]*\bxml:lang="([a-z-]+)"/i.exec(head)?.[1] ?? /<dbname>([a-z_]+?)wiki<\/dbname>/i.exec(info)?.[1]?.replace(/_/g, "-") ?? null;
  const own = /<namespace\b[^>]*\bkey="6"[^>]*>([^<]*)<\/namespace>/.exec(info)?.[1]?.trim();
  const names = [...(own ? [decodeXML(own)] : []), ...(lang ? aliasesOf(lang.toLowerCase()) : [])];
  const seen = new Set<string>();
  const out = names.filter((n) => {
    const k = n.replace(/_/g, " ").toLowerCase();
    if (BUILTIN.has(k) || seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return { language: lang, names: out };
}

/** What the head is decoded in, at most (the decoder streams: a character may straddle two pieces). */
const HEAD_PIECE = 64 << 10;

async function* pieces(src: AsyncIterable<Buffer>, size: number): AsyncGenerator<Buffer> {
  for await (const chunk of src) for (let at = 0; at < chunk.length; at += size) yield chunk.subarray(at, at + size);
}

/** fileNamespacesOfSiteinfo of a dump file's start; null when unreadable or without siteinfo. */
export async function dumpFileNamespaces(path: string, maxChars = 1 << 20): Promise<SiteFileNamespaces | null> {
  const stream = openDumpHead(path);
  let head = "";
  try {
    // (the dump reader's own decoding: UTF-8, or UTF-16 as some exports are; in small pieces, since
    // a decoder chunk is a whole bz2 block of ~900 kB and <siteinfo> ends within its first few kB)
    for await (const { text } of decodeXmlText(pieces(stream as AsyncIterable<Buffer>, HEAD_PIECE)).chunks) {
      head += text;
      if (head.includes("</siteinfo>") || head.length >= maxChars) break;
    }
  } catch {
    return null; // unreadable here: the run reports it properly
  } finally {
    stream.destroy();
  }
  return fileNamespacesOfSiteinfo(head);
}

/** The extraction settings input files may call for (InputSettings in sources/source.ts). */
export interface ExtractionSettings {
  fileAliases?: readonly string[] | undefined;
  language?: string | undefined;
}

/**
 * The settings a non-English dump among `dumps` calls for: its file namespace's names and its
 * language (its image options), from its <siteinfo>, when `current` names neither; with a line per
 * such dump for the user. Null when none calls for any (English dumps, or the config names them).
 */
export async function siteSettings(dumps: readonly string[], current: ExtractionSettings): Promise<{ extraction: ExtractionSettings; notes: string[] } | null> {
  if ((current.fileAliases?.length ?? 0) > 0 || current.language !== undefined) return null;
  const names = new Set<string>();
  const languages = new Set<string>();
  const notes: string[] = [];
  for (const path of dumps) {
    const site = await dumpFileNamespaces(path);
    if (site === null || site.names.length === 0) continue;
    for (const n of site.names) names.add(n);
    if (site.language) languages.add(site.language);
    notes.push(`${path}: a${site.language ? ` ${site.language}` : ""} wiki, whose file links are also written ${site.names.map((n) => `[[${n}:…]]`).join(", ")}, with its own image options (extraction.fileAliases, extraction.language)`);
  }
  if (names.size === 0) return null;
  // one language's option words at a time: another's would take some of this one's captions for options
  return { extraction: { fileAliases: [...names], ...(languages.size === 1 ? { language: [...languages][0]! } : {}) }, notes };
}

/** Whether a path names a MediaWiki XML dump (plain, bzip2 or gzip). */
export const isDumpPath = (path: string) => /\.xml(\.bz2|\.gz|\.7z|\.xz|\.zst)?$|\.(bz2|7z)$/i.test(path);
