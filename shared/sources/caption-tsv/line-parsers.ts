/**
 * A caption list's lines (TSV, JSONL) and records (CSV) read by the file's layout: its caption and
 * URL, its header (the line at byte 0 of a file with one), or why it holds none (a counted drop).
 */
import type { CsvRecord } from "./csv-records.ts";
import type { ListEncoding, TextLayout } from "./list-layout.ts";
import { fieldsRecord, lineText, utf8Text, type LineParser, type TsvDrop, type TsvLine } from "./tsv-lines.ts";
import { decodeWindows1252 } from "../../io/windows-1252.ts";
import { lineDecoder } from "../../io/line-encoding.ts";
import { itemLines } from "./list-items.ts";

/** A line of a caption list as read: a record, a drop, or the header row naming the columns. */
export type ListLine = TsvLine | { offset: number; header: true };

/**
 * How a list's bytes become text in its encoding, and the drop of bytes that are none: a UTF-8 file's
 * damaged line (`invalid_utf8`), a byte a named encoding has no character for (`not_in_encoding`).
 */
export interface ListText {
  decode: (bytes: Buffer) => string | null;
  drop: TsvDrop["drop"];
}

export const UTF8_TEXT: ListText = { decode: utf8Text, drop: "invalid_utf8" };

/** The ListText of an encoding (a canonical WHATWG name), its decoder made once per file. */
export function listText(encoding: ListEncoding): ListText {
  if (encoding === "utf-8") return UTF8_TEXT;
  if (encoding === "windows-1252") return { decode: decodeWindows1252, drop: "not_in_encoding" };
  return { decode: lineDecoder(encoding), drop: "not_in_encoding" };
}

/** A line's caption lines: one, or (a JSON line holding its image's captions as a list) one per element. */
export function lineParser(layout: TextLayout, encoding: ListEncoding = "utf-8"): LineParser<ListLine | ListLine[]> {
  const { decode, drop } = listText(encoding);
  const text = (bytes: Buffer, offset: number, read: (text: string) => ListLine | ListLine[]): ListLine | ListLine[] => {
    const t = lineText(bytes, decode);
    return t === null ? { offset, drop } : read(t);
  };
  if (layout.format === "jsonl") return (bytes, offset) => text(bytes, offset, (t) => jsonlLine(t, offset, layout.url, layout.caption));
  const { header, width, caption, url } = layout;
  return (bytes, offset) => (header && offset === 0 ? { offset, header: true } : text(bytes, offset, (t) => fieldsRecord(t.split("\t"), offset, width, caption, url)));
}

/** A CSV record read with its fields as Latin-1 (one character a byte, csvRecords' "latin1"), by the file's layout and encoding. */
export function csvLine(record: CsvRecord, layout: TextLayout, text: ListText = UTF8_TEXT): ListLine {
  if ("drop" in record) return record;
  if (layout.format === "jsonl") throw new Error("a CSV record read by a JSONL layout");
  if (layout.header && record.offset === 0) return { offset: 0, header: true };
  const fields: string[] = [];
  for (const f of record.fields) {
    const field = text.decode(Buffer.from(f, "latin1"));
    if (field === null) return { offset: record.offset, drop: text.drop };
    fields.push(field);
  }
  return fieldsRecord(fields, record.offset, layout.width, layout.caption, layout.url);
}

/** A JSON Lines object's caption and URL: strings under the layout's keys (null or absent: empty); a list of captions, each element a line. */
function jsonlLine(text: string, offset: number, urlKey: string, captionKey: string): ListLine | ListLine[] {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    return { offset, drop: "invalid_json" };
  }
  return jsonObjectLine(obj, offset, urlKey, captionKey);
}

/** A JSON object's caption and URL (a JSON line's, a JSON array's element): as jsonlLine, once parsed. */
export function jsonObjectLine(obj: unknown, offset: number, urlKey: string, captionKey: string): ListLine | ListLine[] {
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) return { offset, drop: "malformed_line" };
  const rec = obj as Record<string, unknown>;
  const caption = rec[captionKey] ?? "";
  const url = rec[urlKey] ?? "";
  if (Array.isArray(caption)) return itemLines(caption, url, offset);
  if (typeof caption !== "string" || typeof url !== "string") return { offset, drop: "malformed_line" };
  return fieldsRecord([caption, url], offset, 2, 0, 1);
}
