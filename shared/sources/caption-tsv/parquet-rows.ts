/**
 * Caption metadata as parquet (LAION's `URL`/`TEXT`, COYO's `url`/`text`, img2dataset's
 * `url`/`caption`): each row a document, read a row group at a time and only its two columns. A row
 * is named by its index in the file. The footer is the only map of the rows: a file without one (cut
 * short, not parquet) cannot be read at all (LayoutError); rows of a row group that does not decode
 * are counted drops (`damaged_parquet`), the others read. A file of several row groups is split into
 * shards by them (rowGroupSpans): a shard reads the groups whose bytes start in its range. A caption
 * column holding each image's captions as a list (the Hub's `list<string>`) gives a line per element,
 * named by its row and its place (list-items.ts).
 */
import type { AsyncBuffer, FileMetaData, SchemaTree } from "hyparquet";
import { drained, type ByteSource } from "../../io/byte-source.ts";
import { parquetCompressors, READABLE_CODECS } from "../../io/parquet-codecs.ts";
import { LayoutError, parquetColumns } from "./list-layout.ts";
import type { ListLine } from "./line-parsers.ts";
import { fieldsRecord } from "./tsv-lines.ts";
import { itemLines } from "./list-items.ts";
import { normalName } from "./column-names.ts";

/** A file of `size` bytes read through a ByteSource, as hyparquet reads it (ranged slices). */
export function asyncBufferOf(bytes: ByteSource, size: number): AsyncBuffer {
  return {
    byteLength: size,
    async slice(start, end = size) {
      const chunks: Buffer[] = [];
      for await (const c of drained(bytes.read(start, end))) chunks.push(c);
      const b = Buffer.concat(chunks);
      return b.buffer.slice(b.byteOffset, b.byteOffset + b.length) as ArrayBuffer;
    },
  };
}

export interface ParquetList {
  metadata: FileMetaData;
  url: string;
  caption: string;
  /** the caption column holds each image's captions as a list (a Hugging Face `list<string>`) */
  list?: true;
}

/** A list column's element (a LIST's `list.element`, a bare repeated field's leaf); null: the column is no list. */
function listElement(column: SchemaTree): SchemaTree | null {
  const e = column.element;
  const isList = e.converted_type === "LIST" || e.logical_type?.type === "LIST" || e.repetition_type === "REPEATED";
  if (!isList) return null;
  let node = column;
  // down through the repeated group(s) of one child to the element
  while (node.children.length === 1 && (node === column || node.element.repetition_type === "REPEATED" || node.element.converted_type === "LIST")) node = node.children[0]!;
  return node;
}

/** Why a list column's elements are no captions (one line), or null: they are strings. */
function notStrings(element: SchemaTree): string | null {
  if (element.children.length > 0) return `structs (${element.children.map((c) => c.element.name).join(", ")})`;
  const { type, converted_type, logical_type } = element.element;
  if (type === "BYTE_ARRAY" && (converted_type === undefined || converted_type === "UTF8" || logical_type?.type === "STRING")) return null;
  return type === "BYTE_ARRAY" ? `${converted_type ?? logical_type?.type}` : `${type}`;
}

/** The file's footer and its URL and caption columns; LayoutError (one line) when either cannot be had. */
export async function parquetList(file: AsyncBuffer): Promise<ParquetList> {
  const { parquetMetadataAsync, parquetSchema } = await import("hyparquet");
  let metadata: FileMetaData;
  try {
    metadata = await parquetMetadataAsync(file);
  } catch (e) {
    throw new LayoutError(`not a parquet file, or cut short: its footer, the map of its rows, cannot be read (${e instanceof Error ? e.message : String(e)})`);
  }
  const columns = parquetSchema(metadata).children;
  const names = columns.map((c) => c.element.name);
  // a file name in place of a URL: a column of single values, never `image` (on the Hub the image itself, a struct of its bytes and path)
  const { url, caption } = parquetColumns(names, (i) => normalName(names[i]!) !== "image" && columns[i]!.children.length === 0 && columns[i]!.element.repetition_type !== "REPEATED");
  const element = listElement(columns[names.indexOf(caption)]!);
  const held = element && notStrings(element);
  if (held) throw new LayoutError(`column ${caption} is a list of ${held}, not of caption strings`);
  for (const group of metadata.row_groups) {
    for (const chunk of group.columns) {
      const column = chunk.meta_data?.path_in_schema[0];
      const codec = chunk.meta_data?.codec;
      if ((column === url || column === caption) && codec !== undefined && !READABLE_CODECS.has(codec)) {
        throw new LayoutError(`column ${column} is compressed with ${codec}, which paracap does not decode (${[...READABLE_CODECS].join(", ")} it does): rewrite the file with one of those`);
      }
    }
  }
  return element ? { metadata, url, caption, list: true } : { metadata, url, caption };
}

/** A row group where a shard finds it: the byte its column chunks start at, and the bytes up to the next group's. */
export interface RowGroupSpan {
  start: number;
  bytes: number;
}

/**
 * The file's row groups as byte spans, when its shards may be cut between them: every group's count
 * of rows to be believed (so a shard knows the index of its first row without reading the groups
 * before it) and the groups' bytes in file order. Null: the file is read as one shard.
 */
export function rowGroupSpans(metadata: FileMetaData, size: number): RowGroupSpan[] | null {
  const total = Number(metadata.num_rows);
  let rows = 0;
  const starts: number[] = [];
  for (const group of metadata.row_groups) {
    const n = Number(group.num_rows);
    if (!Number.isSafeInteger(n) || n < 0) return null;
    rows += n;
    // (a dictionary offset of 0 is a writer's "none", as hyparquet reads it)
    const offsets = group.columns.map((c) => Number(c.meta_data?.dictionary_page_offset || c.meta_data?.data_page_offset));
    const start = offsets.length > 0 ? Math.min(...offsets) : NaN;
    if (!Number.isSafeInteger(start) || start < 0 || start >= size || start <= (starts.at(-1) ?? -1)) return null;
    starts.push(start);
  }
  if (rows !== total) return null;
  return starts.map((start, i) => ({ start, bytes: (starts[i + 1] ?? size) - start }));
}

/** Every row of the file (of the row groups `owns` says) as a line: its index, caption and URL, or why it has none. */
export async function* parquetRows(file: AsyncBuffer, list: ParquetList, owns: (group: number) => boolean = () => true): AsyncGenerator<ListLine> {
  const { parquetReadObjects } = await import("hyparquet");
  const { metadata, url, caption } = list;
  const codecs = await parquetCompressors();
  let row = 0;
  for (const [g, group] of metadata.row_groups.entries()) {
    const expected = Number(group.num_rows);
    // another shard's: its count is believed (rowGroupSpans), so the rows after it keep their index
    if (!owns(g)) {
      row += expected;
      continue;
    }
    let rows: Record<string, unknown>[] = [];
    try {
      // each group alone: a damaged count in one does not shift where the others' rows are looked for
      rows = await parquetReadObjects({ file, metadata: { ...metadata, row_groups: [group] }, columns: [url, caption], rowStart: 0, rowEnd: expected, compressors: codecs });
    } catch {
      rows = [];
    }
    for (const r of rows) {
      const u = r[url] ?? "";
      if (list.list) {
        // each element a caption line of the row's image (a value that is no list: a malformed row)
        const items = r[caption];
        yield* items === null || items === undefined || Array.isArray(items) ? itemLines(items, u, row) : [{ offset: row, drop: "malformed_line" as const }];
        row++;
        continue;
      }
      const c = r[caption] ?? "";
      // (a JSON column holding a list, as hyparquet-writer writes an array column: each element a line)
      if (Array.isArray(c)) yield* itemLines(c, u, row);
      else yield typeof c === "string" && typeof u === "string" ? fieldsRecord([c, u], row, 2, 0, 1) : { offset: row, drop: "malformed_line" };
      row++;
    }
    // rows the group holds but did not give, each counted; a group whose count is not to be believed (past the
    // file's own total) and gave nothing: one
    const sane = Number.isSafeInteger(expected) && expected <= Number(metadata.num_rows);
    const lost = sane ? Math.max(0, expected - rows.length) : rows.length === 0 ? 1 : 0;
    for (let i = 0; i < lost; i++) yield { offset: row++, drop: "damaged_parquet" };
  }
}
