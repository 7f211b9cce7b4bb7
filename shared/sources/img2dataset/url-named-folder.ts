/**
 * `--images <dir>` when the folder is not an img2dataset output but plain files named after their
 * URLs: which file holds the image of which caption-list URL. The rule, per URL of the list (in list
 * order), first match wins:
 *
 * 1. **wget -x path** (exact): `<dir>/<host>/<path>` (or `<dir>/<scheme>/<host>/<path>`, wget's
 *    `--protocol-directories`), the host with its port when not the default, the path as in the URL
 *    or percent-decoded, followed by `?<query>` when the URL has one (wget's file name on Unix);
 * 2. **hash of the URL** (exact): a file anywhere in the folder whose name without extension is the
 *    lower-case hex md5, sha1 or sha256 of the URL as the list writes it or of its normalised form;
 * 3. **basename**: a file whose name is the URL's last path segment (percent-decoded), used only when
 *    no other list URL has a different normalised form with the same basename and no other file in
 *    the folder has that name; otherwise it is ambiguous (counted) and not used.
 *
 * The image is keyed by the URL's normalised form, as the list's references are, so the pixels meet
 * the captions in the pixel pipeline's rekey phase. A URL matched by several files takes the first by
 * rule, then by path; a file matched by nothing is counted. Memory is the folder's file list (one
 * entry per file) and one entry per matched file; the list is streamed.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { urlFolderCounter } from "../../core/counter-names.ts";
import { folderEntries, walkFrom } from "../../io/folder-entries.ts";
import type { Counters } from "../../core/counters.ts";
import { imageUrlKey } from "../caption-tsv/image-url.ts";
import { captionListRecords } from "../caption-tsv/caption-tsv-source.ts";

export type MatchRule = "wget" | "hash" | "basename";

export interface UrlFileMatch {
  /** path relative to the folder, `/`-separated */
  readonly file: string;
  /** the URL's normalised form (caption-tsv/image-url.ts): the reference's image key */
  readonly image: string;
  readonly rule: MatchRule;
}

const HASH_STEM = /^(?:[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64})$/;
const RULE_ORDER: Record<MatchRule, number> = { wget: 0, hash: 1, basename: 2 };

/** Every file under `dir`, relative and `/`-separated, in name order. */
export async function folderFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const seen = await walkFrom(dir);
  const walk = async (rel: string) => {
    for (const e of await folderEntries(join(dir, rel), seen)) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.kind === "dir") await walk(path);
      else out.push(path);
    }
  };
  await walk("");
  return out;
}

const lastSegment = (path: string) => path.slice(path.lastIndexOf("/") + 1);
const stemOf = (name: string) => (name.includes(".") ? name.slice(0, name.indexOf(".")) : name);

function decoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const hexOf = (alg: string, text: string) => createHash(alg).update(text).digest("hex");

/** The wget paths and hash names a URL's file may have (rules 1 and 2), and its basename (rule 3). */
export function candidatesOf(raw: string, key: string): { wget: string[]; hashes: string[]; basename: string | null } {
  const url = new URL(key);
  const wget = new Set<string>();
  for (const path of [url.pathname, decoded(url.pathname)]) {
    const file = `${url.host}${path}${url.search}`;
    wget.add(file);
    wget.add(`${url.protocol.slice(0, -1)}/${file}`);
  }
  const hashes = new Set<string>();
  for (const text of new Set([raw, key])) for (const alg of ["md5", "sha1", "sha256"]) hashes.add(hexOf(alg, text));
  const base = decoded(lastSegment(url.pathname));
  return { wget: [...wget], hashes: [...hashes], basename: base === "" ? null : base };
}

/**
 * The files of `files` (folderFiles) that hold the images of the URLs in `urls` (raw, in list
 * order), one per image key, in file order.
 */
export async function matchUrlFiles(files: readonly string[], urls: AsyncIterable<string>, counters: Counters): Promise<UrlFileMatch[]> {
  const byPath = new Set(files);
  const byStem = new Map<string, string[]>();
  const byBasename = new Map<string, string[]>();
  for (const f of files) {
    const name = lastSegment(f);
    const stem = stemOf(name);
    if (HASH_STEM.test(stem)) byStem.set(stem, [...(byStem.get(stem) ?? []), f]);
    byBasename.set(name, [...(byBasename.get(name) ?? []), f]);
  }
  const exact = new Map<string, UrlFileMatch>();
  // basename → the one normalised URL naming it, or null once two different ones do
  const basenames = new Map<string, string | null>();
  for await (const raw of urls) {
    const parsed = imageUrlKey(raw);
    if ("drop" in parsed) continue;
    const c = candidatesOf(raw.trim(), parsed.key);
    const hit =
      c.wget.filter((p) => byPath.has(p)).map((file) => ({ file, rule: "wget" as const })).at(0) ??
      c.hashes.flatMap((h) => byStem.get(h) ?? []).sort().map((file) => ({ file, rule: "hash" as const })).at(0);
    if (hit && !exact.has(hit.file)) exact.set(hit.file, { ...hit, image: parsed.key });
    // every URL counts towards a basename's ambiguity, an exactly matched one too
    if (c.basename === null || !byBasename.has(c.basename)) continue;
    const seen = basenames.get(c.basename);
    if (seen === undefined) basenames.set(c.basename, parsed.key);
    else if (seen !== null && seen !== parsed.key) basenames.set(c.basename, null);
  }
  const candidates: UrlFileMatch[] = [...exact.values()];
  const exactImages = new Set(candidates.map((m) => m.image));
  for (const [name, image] of basenames) {
    if (image !== null && exactImages.has(image)) continue;
    const holders = byBasename.get(name)!.filter((f) => !exact.has(f));
    if (image === null || holders.length !== 1) {
      counters.inc(urlFolderCounter("ambiguous_basename"));
      continue;
    }
    candidates.push({ file: holders[0]!, image, rule: "basename" });
  }
  // one file per image: the first by rule, then by path
  candidates.sort((a, b) => RULE_ORDER[a.rule] - RULE_ORDER[b.rule] || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const byImage = new Map<string, UrlFileMatch>();
  for (const m of candidates) {
    if (byImage.has(m.image)) counters.inc(urlFolderCounter("duplicate"));
    else byImage.set(m.image, m);
  }
  const matched = [...byImage.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  for (const m of matched) counters.inc(urlFolderCounter(`matched.${m.rule}`));
  counters.inc(urlFolderCounter("files"), files.length);
  counters.inc(urlFolderCounter("unmatched"), files.length - new Set(candidates.map((m) => m.file)).size);
  return matched;
}

/** The URLs of caption lists (any layout the list source reads), in order; malformed lines are the list source's to count. */
export async function* captionListUrls(paths: readonly string[]): AsyncGenerator<string> {
  for (const path of paths) for await (const line of captionListRecords(path)) yield line.url;
}
