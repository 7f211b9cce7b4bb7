/**
 * A caption list's layout, decided once per file from the file's own evidence, never per line: its
 * format (by name, else by its first bytes), then which column is the image URL and which the caption
 * (a header's names; without one, the field that is an http(s) URL in most of the first lines). Every
 * shard of a file decides from the same bytes (the file's head), so a shard starting mid-file reads
 * its lines as the first does.
 */
import { ACCEPTED_NAMES, isColumnName, pickColumns } from "./column-names.ts";
import { isImageName } from "./image-url.ts";
import { looksLikeCoco, looksLikeKarpathy } from "./coco-head.ts";
import { notCaptions } from "./list-items.ts";
import { recordsOf } from "./csv-records.ts";
import { guessTextEncoding } from "../../io/text-encoding.ts";

/**
 * How a text list's lines are decoded: UTF-8 (a line that is not is a counted drop), windows-1252 for
 * a whole legacy file, or the encoding the run names (extraction.captionEncoding: a canonical WHATWG name).
 */
export type ListEncoding = "utf-8" | "windows-1252" | (string & {});

/**
 * `coco`, `karpathy`: one JSON object (COCO captions, a Karpathy split); `jsonarray`: one JSON array of
 * objects, each a JSON line's (`[{"image": …, "caption": …}, …]`, as many datasets' `.json` files are): each read
 * whole as one shard.
 */
export type ListFormat = "tsv" | "csv" | "jsonl" | "parquet" | "coco" | "karpathy" | "jsonarray";

/** Columns by index (TSV, CSV: `width` fields per line) or by key (JSONL). */
export type TextLayout =
  | { format: "tsv" | "csv"; header: boolean; width: number; url: number; caption: number }
  | { format: "jsonl"; url: string; caption: string };

/** Conceptual Captions 3M's layout: `caption<TAB>url`, no header. */
export const CC3M_LAYOUT = { format: "tsv", header: false, width: 2, url: 1, caption: 0 } as const;

/** The bytes of a file's start its layout is decided from, and the lines of them looked at. */
export const HEAD_BYTES = 64 * 1024;
export const HEAD_LINES = 100;

/** The file's columns cannot be told (one line for the user: the columns found, the names accepted). */
export class LayoutError extends Error {
  override readonly name = "LayoutError";
}

const PARQUET_MAGIC = "PAR1";
const isHttpUrl = (s: string) => /^https?:\/\/\S/i.test(s.trim());

/**
 * A `.json` name: JSON lines, COCO captions or a Karpathy split, which only its bytes tell apart (an
 * upload so named is a caption list's, planned as one shard where the planner cannot read its head).
 */
export const isJsonName = (name: string): boolean => /\.json$/i.test(name);

/** A file's format by its name alone (what an upload is planned by). */
export function formatByName(name: string): ListFormat | null {
  // a gzipped text list (`.tsv.gz`) by the name under its `.gz` (gzipped-list.ts); a parquet file compresses its own columns
  const gz = /\.gz$/i.test(name);
  const ext = /\.([a-z]+)$/i.exec(gz ? name.slice(0, -3) : name)?.[1]?.toLowerCase();
  if (ext === "tsv" || ext === "csv" || (ext === "parquet" && !gz)) return ext;
  if (ext === "jsonl" || ext === "ndjson") return "jsonl";
  return null;
}

/** The first line of `head`, less its CR (and a byte order mark). */
function firstLine(head: Buffer): string {
  return head.toString("utf8", 0, Math.min(head.length, 4096)).split("\n", 1)[0]!.replace(/\r$/, "").replace(/^\uFEFF/, "");
}

/**
 * A file's format by its name, else by its first bytes when they say it plainly: parquet's magic, a
 * first line that is a JSON object with a URL key, a first line of tab- (or comma-) separated fields
 * holding an http(s) URL or naming the columns. Null: not a caption list.
 */
export function formatOf(name: string, head: Buffer): ListFormat | null {
  const byName = formatByName(name);
  if (byName) return byName;
  if (head.subarray(0, 4).toString("latin1") === PARQUET_MAGIC) return "parquet";
  // one JSON array of objects (its layout is then decided from its first objects: json-array.ts)
  if (/^\uFEFF?\s*\[\s*\{/.test(head.toString("utf8", 0, Math.min(head.length, 4096)))) return "jsonarray";
  const line = firstLine(head);
  if (line.startsWith("{")) {
    try {
      const obj: unknown = JSON.parse(line);
      if (obj !== null && typeof obj === "object" && !Array.isArray(obj) && !("error" in pickColumns(Object.keys(obj)))) return "jsonl";
    } catch {
      // not JSON Lines
    }
    // one object holding the images and their captions (a Karpathy split's images hold their sentences; COCO's layout; minified or not)
    if (looksLikeKarpathy(head)) return "karpathy";
    return looksLikeCoco(head) ? "coco" : null;
  }
  // (two fields, one an image's file name: Flickr's `1000092795.jpg#0<TAB>caption`)
  const looks = (fields: string[]) => fields.length >= 2 && (fields.some(isHttpUrl) || !("error" in pickColumns(fields)) || (fields.length === 2 && fields.some(isImageName)));
  if (looks(line.split("\t"))) return "tsv";
  const csv = recordsOf(head, false, 1)[0];
  if (csv && "fields" in csv && !csv.fields.some(isHttpUrl) && !("error" in pickColumns(csv.fields))) return "csv";
  return null;
}

/** The complete lines of a head (the last, cut one, left out unless the head is the whole file), less their CRs. */
function headLines(head: Buffer, whole: boolean): string[] {
  const text = head.toString("utf8");
  const lines = text.split("\n");
  if (!whole || lines.at(-1) === "") lines.pop();
  return lines.slice(0, HEAD_LINES).map((l) => l.replace(/\r$/, ""));
}

/**
 * A text list's encoding, from its head as its layout is (the same in every shard): UTF-8, or
 * windows-1252 when the head is not UTF-8 and holds no UTF-8 character of two or more bytes (a list
 * saved by Excel on Windows, an older corpus). UTF-16 is refused: its lines are not split at LF bytes.
 */
export function listEncoding(head: Buffer, whole: boolean): ListEncoding {
  const { encoding } = guessTextEncoding(head, whole);
  if (encoding === "utf-16le" || encoding === "utf-16be") {
    throw new LayoutError(`it is ${encoding === "utf-16le" ? "UTF-16LE" : "UTF-16BE"} text (what Windows tools save as "Unicode"): save it as UTF-8 (e.g. iconv -f ${encoding} -t utf-8)`);
  }
  return encoding;
}

/** The layout of a TSV, CSV or JSONL file from its head (`whole`: the head is the whole file). */
export function textLayout(format: Exclude<ListFormat, "parquet" | "coco" | "karpathy" | "jsonarray">, head: Buffer, whole: boolean): TextLayout {
  listEncoding(head, whole);
  if (format === "jsonl") return jsonlLayout(headLines(head, whole));
  const records =
    format === "tsv"
      ? headLines(head, whole).map((l) => l.split("\t"))
      : recordsOf(head, whole, HEAD_LINES).flatMap((r) => ("fields" in r ? [r.fields] : []));
  return columnLayout(format, records);
}

/**
 * Header or not, and which field is which. A first record with no http(s) URL that names a column is
 * a header: its names decide. Otherwise the file has two columns, the URL being the field that is an
 * http(s) URL in more of the first lines (Conceptual Captions 3M: caption first; 12M: URL first).
 */
function columnLayout(format: "tsv" | "csv", records: string[][]): TextLayout {
  const first = records[0];
  if (!first) return { ...CC3M_LAYOUT, format };
  if (!first.some(isHttpUrl) && first.some(isColumnName)) {
    const picked = pickColumns(first);
    if ("error" in picked) throw new LayoutError(`the header row's ${picked.error}`);
    return { format, header: true, width: first.length, ...picked };
  }
  const pairs = records.filter((r) => r.length === 2);
  if (pairs.length === 0) {
    throw new LayoutError(`its first line has ${first.length === 1 ? "1 field" : `${first.length} fields`} ${JSON.stringify(first.slice(0, 8).map((f) => f.slice(0, 40)))} and no header row names the columns: without a header a caption list is two columns, caption and image URL in either order; with one, the columns are chosen by name (${ACCEPTED_NAMES}, names compared ignoring case)`);
  }
  let urlsIn = [0, 1].map((i) => pairs.filter((r) => isHttpUrl(r[i]!)).length) as [number, number];
  // no URLs: an image's file name in place of one (Flickr8k/Flickr30k token files)
  if (urlsIn[0] === 0 && urlsIn[1] === 0) urlsIn = [0, 1].map((i) => pairs.filter((r) => isImageName(r[i]!)).length) as [number, number];
  if (urlsIn[0] === 0 && urlsIn[1] === 0) {
    throw new LayoutError(`no field of its first ${pairs.length} two-field lines is an http(s) URL, and its first line ${JSON.stringify(first.map((f) => f.slice(0, 40)))} names no columns (${ACCEPTED_NAMES}, names compared ignoring case)`);
  }
  // ties (both fields URLs as often) keep Conceptual Captions 3M's order
  const url = urlsIn[0] > urlsIn[1] ? 0 : 1;
  return { format, header: false, width: 2, url, caption: 1 - url };
}

function jsonlLayout(lines: string[]): TextLayout {
  const objects = headObjects(lines);
  if (objects.length === 0) {
    if (lines.every((l) => l.trim() === "")) return { format: "jsonl", url: "url", caption: "caption" };
    throw new LayoutError(`none of its first ${lines.length} lines is a JSON object`);
  }
  return objectsLayout(objects);
}

/** The URL and caption keys of JSON objects (a JSON lines file's first lines, a JSON array's first objects). */
export function objectsLayout(objects: readonly Record<string, unknown>[]): TextLayout & { format: "jsonl" } {
  const keys: string[] = [];
  for (const obj of objects) for (const k of Object.keys(obj)) if (!keys.includes(k)) keys.push(k);
  const picked = pickColumns(keys, "the JSON keys");
  if ("error" in picked) throw new LayoutError(`${picked.error}`);
  const caption = keys[picked.caption]!;
  // a key holding each image's captions as a list: lists of something else are no captions
  const lists = objects.map((o) => o[caption]).filter((v): v is unknown[] => Array.isArray(v));
  const held = notCaptions(lists);
  if (held) throw new LayoutError(`the JSON key ${JSON.stringify(caption)} holds lists of ${held}, not of caption strings`);
  return { format: "jsonl", url: keys[picked.url]!, caption };
}

/** The JSON objects among a head's lines. */
function headObjects(lines: string[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of lines) {
    try {
      const obj: unknown = JSON.parse(line);
      if (obj !== null && typeof obj === "object" && !Array.isArray(obj)) out.push(obj as Record<string, unknown>);
    } catch {
      // counted when read
    }
  }
  return out;
}

/**
 * The URL and caption columns of a parquet file, by its schema's names. Without a URL column, a file-name
 * column (`filename`: nlphuji/flickr30k) names the image, but only one `mayName` allows (parquet-rows.ts: one
 * of single values, never `image`, which on the Hub is the image itself, a struct of its bytes and path).
 */
export function parquetColumns(names: readonly string[], mayName: (column: number) => boolean = () => false): { url: string; caption: string } {
  const byUrl = pickColumns(names, "the parquet columns", false);
  const picked = "error" in byUrl ? pickColumns(names, "the parquet columns", mayName) : byUrl;
  if ("error" in picked) throw new LayoutError(picked.error);
  return { url: names[picked.url]!, caption: names[picked.caption]! };
}

