/**
 * Caption lists: one record is one document with one image reference, keyed by its normalised URL.
 * TSV (Conceptual Captions 3M's `caption<TAB>URL`, 12M's `URL<TAB>caption`, or a header naming the
 * columns), CSV with a header, JSON Lines, parquet caption metadata (LAION, COYO; a list column of an
 * image's captions gives a record per element), COCO captions and Karpathy split JSON (one shard). The layout is
 * decided once per file from its head (list-layout.ts), the same in every shard. TSV and JSONL split
 * at any byte (a shard owns the lines that start in its range: tsv-lines.ts); a parquet file of
 * several row groups between them (a shard owns the groups that start in its range: parquet-rows.ts);
 * a CSV at record starts the planner finds by reading it once (quoted fields may hold line breaks, so
 * a shard could not find them itself: csv-records.ts), a shard reading exactly its range.
 */
import { basename } from "node:path";
import type { ByteRange, DocumentRefs, PlanningView, Source } from "../source.ts";
import type { ShardEncoding, ShardSpec } from "../shard-spec.ts";
import { isAscii } from "node:buffer";
import { wholeFileEncoding } from "../../io/text-encoding.ts";
import type { Counters } from "../../core/counters.ts";
import { UserError } from "../../core/errors.ts";
import { DumpError } from "../../dump/errors.ts";
import { drained, knownSize, type ByteSource } from "../../io/byte-source.ts";
import { fileBytes } from "../../io/file-bytes.ts";
import { imageNameKey, imageUrlKey } from "./image-url.ts";
import { cocoLines } from "./coco-captions.ts";
import { karpathyLines } from "./karpathy-split.ts";
import { jsonArrayLayout, jsonArrayLines } from "./json-array.ts";
import { JsonListError } from "./json-values.ts";
import { tsvLines, tsvShardBytes, type TsvRecord } from "./tsv-lines.ts";
import { csvCuts, csvRecords } from "./csv-records.ts";
import { csvLine, lineParser, listText, type ListLine } from "./line-parsers.ts";
import { formatByName, formatOf, HEAD_BYTES, isJsonName, LayoutError, listEncoding, textLayout, type ListEncoding, type ListFormat } from "./list-layout.ts";
import { asyncBufferOf, parquetList, parquetRows, rowGroupSpans, type RowGroupSpan } from "./parquet-rows.ts";
import { gunzipHead, gunzipped, isGzipName } from "./gzipped-list.ts";
import { TSV_ENCODING_PREFIX, TSV_SKIPPED_PREFIX, tsvCounter, tsvSkippedCounter } from "../../core/counter-names.ts";

/** A record of the file, named by the file and its byte offset (a parquet file's: its row index), stable under any sharding. */
export interface CaptionLine extends TsvRecord {
  file: string;
}

/**
 * The format a planned file is read as: its name says, else its first bytes (Conceptual Captions' TSV when
 * neither does). Null: a `.json` file whose bytes are not known yet (a planner seeing names), or are none
 * of JSON lines, COCO captions and a Karpathy split.
 */
const formatIn = (name: string, head: Buffer | null): ListFormat | null => (head ? formatOf(basename(name), head) : formatByName(name)) ?? (isJsonName(name) ? null : "tsv");

/** A `.json` file none of whose JSON layouts its first bytes are. */
const notJsonList = () =>
  new LayoutError('it is neither JSON lines naming an image and its caption(s) per line (nor an array of such objects), nor COCO-style captions (an object of "images" and "annotations"), nor a Karpathy split (an object of "images" holding their "sentences")');

/**
 * The first bytes of a file, as a shard reads them to decide the file's layout, and whether they are
 * all of it. Data damaged inside them (a gzipped list cut short) ends the head there: the shard's read
 * of its lines then meets the same damage after the lines before it.
 */
async function headOf(bytes: ByteSource): Promise<{ head: Buffer; whole: boolean }> {
  const chunks: Buffer[] = [];
  try {
    for await (const c of drained(bytes.read(0, HEAD_BYTES))) chunks.push(c);
  } catch (e) {
    if (!(e instanceof DumpError)) throw e;
    return { head: Buffer.concat(chunks), whole: false };
  }
  const head = Buffer.concat(chunks).subarray(0, HEAD_BYTES);
  return { head, whole: head.length < HEAD_BYTES };
}

/** A layout that cannot be told, as the runner's one-line damage report of the shard (the planner refuses it first where it can read the file). */
async function layoutOr<T>(label: string, decide: () => T | Promise<T>): Promise<T> {
  try {
    return await decide();
  } catch (e) {
    if (e instanceof LayoutError) throw new DumpError(label, null, `not a caption list paracap can read: ${e.message}`);
    throw e;
  }
}

/** The whole file in memory, for a parquet read with no size to go by (a shard without a range, not a local file). */
async function inMemory(bytes: ByteSource): Promise<{ source: ByteSource; size: number }> {
  const chunks: Buffer[] = [];
  for await (const c of drained(bytes.read(0))) chunks.push(c);
  const buf = Buffer.concat(chunks);
  return { source: { label: bytes.label, read: async function* (from = 0, to) { yield buf.subarray(from, to); } }, size: buf.length };
}

/**
 * The records a shard owns, read by the file's layout, and what names where one is (a byte offset; a
 * parquet file's row). `declared`: the encoding the run names for every list (else the head tells).
 */
async function shardLines(shard: ShardSpec, stored: ByteSource, declared?: string): Promise<{ unit: "byte" | "row" | "annotation" | "image" | "object"; encoding?: ListEncoding; lines: AsyncIterable<ListLine> }> {
  const start = shard.start ?? 0;
  // a gzipped list is one shard, read as its decompressed bytes (offsets are in those)
  const bytes = isGzipName(shard.uri) ? gunzipped(stored) : stored;
  const byName = formatByName(shard.uri);
  const { head, whole } = byName === "parquet" ? { head: null, whole: false } : await headOf(bytes);
  const format = await layoutOr(bytes.label, () => {
    const f = formatIn(shard.uri, head);
    if (f === null) throw notJsonList();
    return f;
  });
  if (format === "parquet") {
    return { unit: "row", lines: (async function* () {
      const size = knownSize(bytes);
      const whole = size === null ? await inMemory(bytes) : { source: bytes, size };
      const file = asyncBufferOf(whole.source, whole.size);
      const list = await layoutOr(bytes.label, () => parquetList(file));
      // the planner's cut (planRanges): the groups that start in the range; a file it could not cut is the first range's
      const spans = rowGroupSpans(list.metadata, whole.size);
      const end = shard.end ?? Infinity;
      if (!spans && start > 0) return;
      yield* parquetRows(file, list, (g) => !spans || (spans[g]!.start >= start && spans[g]!.start < end));
    })() };
  }
  // one JSON value (COCO's object, a Karpathy split, an array of objects): the whole file is the first shard's (planRanges does not cut it)
  if (format === "coco") return wholeJson(start, "annotation", bytes, cocoLines);
  if (format === "karpathy") return wholeJson(start, "image", bytes, karpathyLines);
  if (format === "jsonarray") {
    const layout = start > 0 ? null : await layoutOr(bytes.label, () => jsonArrayLayout(head!, whole));
    return wholeJson(start, "object", bytes, (chunks) => jsonArrayLines(chunks, layout!));
  }
  const layout = await layoutOr(bytes.label, () => textLayout(format, head!, whole));
  // the run's, else the planner's from the whole file, else decided from the head as the layout is: every shard of the file reads its lines alike
  const encoding = declared ?? shard.encoding ?? listEncoding(head!, whole);
  if (format === "csv") {
    // the planner's cut (planRanges): a record start, from where the records are the whole file's
    const text = listText(encoding);
    return { unit: "byte", encoding, lines: (async function* () {
      for await (const record of csvRecords(drained(bytes.read(start, shard.end ?? undefined)), undefined, start, "latin1")) yield csvLine(record, layout, text);
    })() };
  }
  const lines = tsvLines(tsvShardBytes((from, to) => bytes.read(from, to), start, shard.end), start, shard.end ?? Infinity, lineParser(layout, encoding));
  return { unit: "byte", encoding, lines: layout.format === "jsonl" ? flat(lines) : (lines as AsyncIterable<ListLine>) };
}

/** A file that is one JSON value, read whole by the shard at its start; invalid JSON is the shard's damage after the lines before it. */
function wholeJson<U extends string>(start: number, unit: U, bytes: ByteSource, read: (chunks: AsyncIterable<Buffer>) => AsyncIterable<ListLine>): { unit: U; lines: AsyncIterable<ListLine> } {
  if (start > 0) return { unit, lines: (async function* () {})() };
  return { unit, lines: (async function* () {
    try {
      yield* read(drained(bytes.read(0)));
    } catch (e) {
      if (e instanceof JsonListError) throw new DumpError(bytes.label, null, e.message);
      throw e;
    }
  })() };
}

/** Lines of which some are several (a JSON line holding its image's captions as a list), one at a time. */
async function* flat(lines: AsyncIterable<ListLine | ListLine[]>): AsyncGenerator<ListLine> {
  for await (const line of lines) {
    if (Array.isArray(line)) yield* line;
    else yield line;
  }
}

/** Reads a file's head in a planning view that can (a local file); null where it cannot (the cloud planner sees names). */
async function planningHead(view: PlanningView, name: string, size: number): Promise<Buffer | null> {
  if (!view.readRange) return null;
  const head = await view.readRange(name, 0, Math.min(size, HEAD_BYTES));
  // a gzipped list's decompressed start: as much as its first compressed bytes hold
  return isGzipName(name) ? gunzipHead(head, HEAD_BYTES) : head;
}

/**
 * windows-1252 for a text list whose head is plain ASCII and whose later bytes are not UTF-8 (with
 * no UTF-8 character among them), told by reading the file through where the view can at planning
 * time (a local file: wholeFileEncoding at memory speed, ending at the first UTF-8 character); null
 * where the head decides (it holds a byte beyond ASCII, or is the whole file), the run names the
 * encoding, or the view plans from heads (the cloud planner).
 */
async function scannedEncoding(name: string, size: number, head: Buffer, view: PlanningView): Promise<ShardEncoding | null> {
  if (!view.readWhole || view.config?.extraction.captionEncoding !== undefined) return null;
  if (size <= head.length || !isAscii(head)) return null;
  return (await wholeFileEncoding(view.readWhole(name))) === "windows-1252" ? "windows-1252" : null;
}

/** The layout check a plan makes, as the user's one-line error before any work. */
async function refuseUnreadable<T>(name: string, check: () => T | Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (e) {
    if (e instanceof LayoutError) throw new UserError(`${name}: not a caption list paracap can read: ${e.message}`);
    throw e;
  }
}

export const captionTsvSource: Source<CaptionLine> = {
  name: "caption-tsv",
  description: "caption lists: .tsv (caption<TAB>URL or URL<TAB>caption, or a header naming the columns), .csv with a header, .jsonl, .parquet caption metadata (LAION, COYO; a list column of an image's captions, as Hugging Face's), COCO-style captions JSON, Karpathy split JSON, a JSON array of such objects",
  counterPrefix: "tsv",
  webReferenceSources: ["row"],
  documentsCounter: tsvCounter("lines.emitted"),
  documentsNoun: "lines",
  document: { one: "caption line", other: "caption lines" },
  claims: (fileName, head) => formatOf(fileName, head) !== null,
  // (a `.json` upload: JSON lines, COCO captions or a Karpathy split, told by its bytes; a `*.manifest.json` is the planner's before any source's)
  uploadRole: (name) => (formatByName(name) || isJsonName(name) ? { role: "input" } : null),
  // TSV and JSONL lines split at any byte: a shard owns the lines that start in its range; parquet between row groups; CSV at record starts.
  async planRanges({ name, size }, targetBytes, view): Promise<ByteRange[] | null> {
    const head = await planningHead(view, name, size);
    const format = formatIn(name, head);
    if (format === "parquet") {
      const read = view.readRange;
      if (!read || size === 0) return size > 0 ? [{ start: 0, end: size, fragment: false }] : null;
      const list = await refuseUnreadable(name, () => parquetList(asyncBufferOf({ label: name, read: async function* (from = 0, to = size) { yield await read(name, from, to); } }, size)));
      return rowGroupRanges(rowGroupSpans(list.metadata, size), size, targetBytes);
    }
    // one JSON object (COCO captions, a Karpathy split) is one shard; so is a `.json` upload whose bytes the planner cannot read
    if (format === "coco" || format === "karpathy" || (format === null && !head)) return null;
    if (format === "jsonarray") {
      if (head) await refuseUnreadable(name, () => jsonArrayLayout(head, head.length < HEAD_BYTES && !isGzipName(name)));
      return null;
    }
    if (format === null) return refuseUnreadable(name, () => {
      throw notJsonList();
    });
    if (head) await refuseUnreadable(name, () => textLayout(format, head, head.length < HEAD_BYTES && !isGzipName(name)));
    if (isGzipName(name)) return null;
    // set only where it differs from the head's decision, so every other file plans as before
    const scanned = head && (await scannedEncoding(name, size, head, view));
    const told = scanned ? { encoding: scanned } : {};
    if (format === "csv") {
      const whole = scanned ? [{ start: 0, end: null, fragment: false, ...told }] : null;
      // cut at record starts, found by reading the file once (in bounded ranges); a file of one shard's size is not read
      if (!view.readRange || size <= targetBytes) return whole;
      const read = view.readRange;
      const cuts = await csvCuts((from, to) => read(name, from, to), size, targetBytes);
      if (cuts.length === 0) return whole;
      const starts = [0, ...cuts];
      return starts.map((start, i) => ({ start, end: starts[i + 1] ?? null, fragment: start > 0, ...told }));
    }
    const ranges: ByteRange[] = [];
    const step = Math.max(1, targetBytes);
    for (let start = 0; start < size || ranges.length === 0; start += step) {
      const end = Math.min(size, start + step);
      ranges.push({ start, end: end >= size ? null : end, fragment: start > 0, ...told });
      if (end >= size) break;
    }
    return ranges;
  },
  async *documents(shard, bytes, config, counters) {
    const file = basename(shard.uri);
    const declared = config.extraction.captionEncoding;
    const { unit, encoding, lines } = await shardLines(shard, bytes, declared);
    // once per file: its first shard's
    if (encoding !== undefined && (shard.start ?? 0) === 0) {
      if (declared !== undefined) counters.inc(tsvCounter(`files.encoding.${declared}`));
      else if (encoding === "windows-1252") counters.inc(tsvCounter(shard.encoding ? "files.windows_1252_by_scan" : "files.windows_1252"));
    }
    for await (const line of lines) {
      const record = countLine(line, file, unit, counters);
      if (record) yield { ...record, file };
    }
  },
  createExtractor() {
    return (line: CaptionLine): DocumentRefs => {
      // a caption of a list (an image's captions held together) is its own page: the record's, then its place
      const page = line.item === undefined ? `${line.file}:${line.offset}` : `${line.file}:${line.offset}#${line.item}`;
      const base = { page, pageId: line.offset, revisionId: line.offset };
      const url = imageUrlKey(line.url);
      // an image named by its file name (a caption dataset shipping its images): that name is its key
      const key = "key" in url ? url.key : imageNameKey(line.url);
      if (key === null) return { ...base, refs: null, skipped: (url as { drop: string }).drop };
      return { ...base, refs: [{ image: key, source: "row", caption: line.caption, alt: null }] };
    };
  },
  pack: (docs) => docs,
  unpack: (packed) => packed as CaptionLine[],
  size: (line) => line.caption.length + line.url.length,
  reportLines(x) {
    const lines = x[tsvCounter("lines")];
    if (lines === undefined) return [];
    const skipped = Object.entries(x).filter(([k]) => k.startsWith(TSV_SKIPPED_PREFIX)).map(([k, v]) => `${v.toLocaleString("en-US")} skipped (${k.slice(TSV_SKIPPED_PREFIX.length)})`);
    const headers = x[tsvCounter("header")] ?? 0;
    const named = headers > 0 ? ` (and ${headers.toLocaleString("en-US")} header row${headers === 1 ? "" : "s"} naming the columns)` : "";
    const out = [`- ${lines.toLocaleString("en-US")} caption lines read = ${[`${(x[tsvCounter("lines.emitted")] ?? 0).toLocaleString("en-US")} used`, ...skipped].join(" + ")}${named}.`];
    const legacy = x[tsvCounter("files.windows_1252")] ?? 0;
    if (legacy > 0) out.push(`- ${legacy.toLocaleString("en-US")} caption list${legacy === 1 ? "" : "s"} read as windows-1252: not UTF-8, and no UTF-8 character in the first ${HEAD_BYTES / 1024} KiB (a file saved by Excel on Windows or an older tool); save it as UTF-8 if it is another encoding.`);
    for (const [k, n] of Object.entries(x).filter(([k]) => k.startsWith(TSV_ENCODING_PREFIX))) {
      out.push(`- ${n.toLocaleString("en-US")} caption list${n === 1 ? "" : "s"} read as ${k.slice(TSV_ENCODING_PREFIX.length)} (extraction.captionEncoding, --encoding).`);
    }
    const unmapped = x[tsvSkippedCounter("not_in_encoding")] ?? 0;
    if (unmapped > 0) out.push(`- ${unmapped.toLocaleString("en-US")} line${unmapped === 1 ? "" : "s"} skipped as holding a byte the caption lists' encoding has no character for (another encoding, or damage): their byte offsets are in stats.json.`);
    const scanned = x[tsvCounter("files.windows_1252_by_scan")] ?? 0;
    if (scanned > 0) out.push(`- ${scanned.toLocaleString("en-US")} caption list${scanned === 1 ? "" : "s"} read as windows-1252: its first ${HEAD_BYTES / 1024} KiB plain ASCII, the rest not UTF-8 and holding no UTF-8 character (read through when the run was planned); save it as UTF-8, or name its encoding (--encoding), if it is another encoding.`);
    const invalid = x[tsvSkippedCounter("invalid_utf8")] ?? 0;
    if (invalid > 0) out.push(`- ${invalid.toLocaleString("en-US")} line${invalid === 1 ? "" : "s"} skipped as not UTF-8 (a line cut inside a character, or a file in a legacy encoding whose first ${HEAD_BYTES / 1024} KiB were plain ASCII): their byte offsets are in stats.json.`);
    return out;
  },
};

/**
 * A parquet file's shards: runs of whole row groups of about `targetBytes`, each range from its first
 * group's start to the next range's (the first from 0, the last to the file's end, so every group
 * starts in exactly one). A file that cannot be cut (no spans) is one range.
 */
export function rowGroupRanges(spans: readonly RowGroupSpan[] | null, size: number, targetBytes: number): ByteRange[] {
  const starts = [0];
  let bytes = 0;
  for (const span of spans ?? []) {
    if (bytes >= Math.max(1, targetBytes)) {
      starts.push(span.start);
      bytes = 0;
    }
    bytes += span.bytes;
  }
  return starts.map((start, i) => ({ start, end: starts[i + 1] ?? size, fragment: false }));
}

/** The records of a local caption list in order (any layout; drops and the header passed over: the source counts them). */
export async function* captionListRecords(path: string): AsyncGenerator<TsvRecord> {
  const shard: ShardSpec = { id: "list", uri: path, source: captionTsvSource.name, kind: "current", start: null, end: null, fragment: false };
  const { lines } = await shardLines(shard, fileBytes(path));
  for await (const line of lines) if (!("header" in line) && !("drop" in line)) yield line;
}

/** Counts a line (a header apart from the data lines), with where each drop is so a user can find it; the record if it is one. */
function countLine(line: ListLine, file: string, unit: string, counters: Counters): TsvRecord | null {
  if ("header" in line) {
    counters.inc(tsvCounter("header"));
    return null;
  }
  counters.inc(tsvCounter("lines"));
  if ("drop" in line) {
    counters.inc(tsvSkippedCounter(line.drop));
    // where, so a user can find the line (stats.json extraction_examples, report.md)
    counters.samples.add(tsvSkippedCounter(line.drop), `${file} ${unit} ${line.offset}${line.item === undefined ? "" : ` caption ${line.item}`}`);
    return null;
  }
  counters.inc(tsvCounter("lines.emitted"));
  return line;
}
