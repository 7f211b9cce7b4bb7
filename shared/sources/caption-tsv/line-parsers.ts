/**
 * A caption list's lines (TSV, JSONL) and records (CSV) read by the file's layout: its caption and
 * URL, its header (the line at byte 0 of a file with one), or why it holds none (a counted drop).
 */
import type { CsvRecord } from "./csv-records.ts";
import type { TextLayout } from "./list-layout.ts";
import { fieldsRecord, lineText, type LineParser, type TsvLine } from "./tsv-lines.ts";

/** A line of a caption list as read: a record, a drop, or the header row naming the columns. */
export type ListLine = TsvLine | { offset: number; header: true };

export function lineParser(layout: TextLayout): LineParser<ListLine> {
  if (layout.format === "jsonl") return (bytes, offset) => jsonlLine(lineText(bytes), offset, layout.url, layout.caption);
  const { header, width, caption, url } = layout;
  return (bytes, offset) => (header && offset === 0 ? { offset, header: true } : fieldsRecord(lineText(bytes).split("\t"), offset, width, caption, url));
}

export function csvLine(record: CsvRecord, layout: TextLayout): ListLine {
  if ("drop" in record) return record;
  if (layout.format === "jsonl") throw new Error("a CSV record read by a JSONL layout");
  if (layout.header && record.offset === 0) return { offset: 0, header: true };
  return fieldsRecord(record.fields, record.offset, layout.width, layout.caption, layout.url);
}

/** A JSON Lines object's caption and URL: strings under the layout's keys (null or absent: empty). */
function jsonlLine(text: string, offset: number, urlKey: string, captionKey: string): ListLine {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    return { offset, drop: "invalid_json" };
  }
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) return { offset, drop: "malformed_line" };
  const rec = obj as Record<string, unknown>;
  const caption = rec[captionKey] ?? "";
  const url = rec[urlKey] ?? "";
  if (typeof caption !== "string" || typeof url !== "string") return { offset, drop: "malformed_line" };
  return fieldsRecord([caption, url], offset, 2, 0, 1);
}
