/**
 * Caption TSV files (`caption<TAB>image URL` per line, no header: Conceptual Captions' format) read
 * as a byte-range shard. A shard owns the lines that START in [start, end), so shards split at any
 * byte cover every line exactly once, and a line is read to its end even past `end`. Lines that are
 * not two non-empty fields are counted drops with their offset, never silently skipped.
 */
import { drained, windowedRead } from "../../io/byte-source.ts";
import { isUtf8 } from "node:buffer";
import { StringDecoder } from "node:string_decoder";

export interface TsvRecord {
  /** byte offset of the line in the file: a deterministic identity across shardings */
  offset: number;
  /** the caption's place in its record's list (a row holding an image's captions together); absent: the record's one caption */
  item?: number;
  caption: string;
  url: string;
}
export type TsvDrop = { offset: number; item?: number; drop: "malformed_line" | "empty_caption" | "empty_url" | "line_too_long" | "invalid_json" | "unterminated_quote" | "damaged_parquet" | "invalid_utf8" | "not_in_encoding" | "unknown_image" };
export type TsvLine = TsvRecord | TsvDrop;

const LF = 0x0a;

/**
 * The longest line held (CC lines are ~150 bytes, a caption over captions.maxChars is dropped anyway):
 * a longer one is read through without being held and counted `line_too_long`, so a file without
 * line breaks costs neither memory nor the quadratic time of growing one buffer.
 */
export const MAX_LINE_BYTES = 1024 * 1024;

/** Where the bytes handed to tsvLines for a shard starting at `start` must begin. */
export function tsvReadStart(start: number): number {
  return start === 0 ? 0 : start - 1;
}

/** Bytes read past a shard's end per step while its last line is unfinished (CC lines are ~150 bytes). */
export const TAIL_WINDOW = 64 * 1024;

/** What a shard reads from: a byte-range reader (a local file, a Cloud Storage object). */
export type RangeReader = (start: number, end?: number) => AsyncIterable<Buffer>;

/**
 * The bytes tsvLines needs for the shard [start, end): the range itself, then windows past `end`
 * until the shard's last line has ended. No read is left half-consumed when tsvLines stops: an HTTP
 * response abandoned mid-body (a Cloud Storage read) broke the next request on the kept-alive
 * connection ("socket hang up"), so each read is bounded and drained. A window asks for one byte
 * more than it hands on, to learn whether the file goes on without ever reading at its end.
 */
export async function* tsvShardBytes(read: RangeReader, start: number, end: number | null, window = TAIL_WINDOW): AsyncGenerator<Buffer> {
  const from = tsvReadStart(start);
  if (end === null) {
    yield* drained(read(from));
    return;
  }
  yield* drained(read(from, end));
  yield* windowedRead(read, end, window);
}

/** What a line's bytes (less the LF) at a file offset are: a caption list's layout reads them (line-parsers.ts). */
export type LineParser<T> = (bytes: Buffer, offset: number) => T;

/**
 * Lines of the shard [start, end) of a file, from `chunks` = the file's bytes from
 * tsvReadStart(start) on (bytes past `end` are only used to finish the last line), each read by
 * `parse` (default: Conceptual Captions 3M's `caption<TAB>url`).
 */
export function tsvLines(chunks: AsyncIterable<Buffer>, start?: number, end?: number): AsyncGenerator<TsvLine>;
export function tsvLines<T>(chunks: AsyncIterable<Buffer>, start: number, end: number, parse: LineParser<T>): AsyncGenerator<T | TsvDrop>;
export async function* tsvLines<T>(chunks: AsyncIterable<Buffer>, start = 0, end = Infinity, parse: LineParser<T | TsvLine> = parseLine): AsyncGenerator<T | TsvLine> {
  let pos = tsvReadStart(start); // file offset of pending[0]
  let pending: Buffer = Buffer.alloc(0);
  // Mid-file, the byte before `start` decides: the shard's first line begins after the first LF
  // at or after start - 1 (a line starting before `start` belongs to the previous shard).
  let skipping = start > 0;
  // the offset of a line over MAX_LINE_BYTES whose rest is being read through
  let overlong: number | null = null;
  for await (const chunk of chunks) {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let from = 0;
    for (let nl = pending.indexOf(LF); nl >= 0; nl = pending.indexOf(LF, from)) {
      if (skipping) skipping = false;
      else if (overlong !== null) {
        yield { offset: overlong, drop: "line_too_long" };
        overlong = null;
      } else {
        if (pos + from >= end) return;
        // over the bound whether or not one chunk happened to hold its end (a shard's reads fall elsewhere than the whole file's)
        yield nl - from > MAX_LINE_BYTES ? { offset: pos + from, drop: "line_too_long" } : parse(pending.subarray(from, nl), pos + from);
      }
      from = nl + 1;
    }
    pos += from;
    pending = pending.subarray(from);
    if (pending.length > MAX_LINE_BYTES) {
      if (!skipping && overlong === null) {
        if (pos >= end) return; // the next shard's line
        overlong = pos;
      }
      pos += pending.length;
      pending = Buffer.alloc(0);
    }
  }
  if (overlong !== null) yield { offset: overlong, drop: "line_too_long" };
  else if (!skipping && pending.length > 0 && pos < end) yield pending.length > MAX_LINE_BYTES ? { offset: pos, drop: "line_too_long" } : parse(pending, pos);
}

/**
 * A UTF-8 line's text; null when it is not UTF-8 (a line cut inside a character, a stray legacy
 * byte): U+FFFD in a caption would be silent loss, so the caller drops the line (`invalid_utf8`).
 */
export function utf8Text(bytes: Buffer): string | null {
  if (!isUtf8(bytes)) return null;
  const decoder = new StringDecoder("utf8");
  return decoder.write(bytes) + decoder.end();
}

/** A line's text by `decode` (default UTF-8), less a CR ending it; null where `decode` has none. */
export function lineText(bytes: Buffer, decode: (bytes: Buffer) => string | null = utf8Text): string | null {
  const text = decode(bytes);
  if (text === null) return null;
  return text.endsWith("\r") ? text.slice(0, -1) : text;
}

/** A line's caption and URL from its fields, or why it has none (the checks in Conceptual Captions' order). */
export function fieldsRecord(fields: readonly string[], offset: number, width: number, captionAt: number, urlAt: number): TsvLine {
  if (fields.length !== width) return { offset, drop: "malformed_line" };
  const caption = fields[captionAt]!.trim();
  const url = fields[urlAt]!.trim();
  if (caption === "") return { offset, drop: "empty_caption" };
  if (url === "") return { offset, drop: "empty_url" };
  return { offset, caption, url };
}

function parseLine(bytes: Buffer, offset: number): TsvLine {
  const text = lineText(bytes);
  return text === null ? { offset, drop: "invalid_utf8" } : fieldsRecord(text.split("\t"), offset, 2, 0, 1);
}
