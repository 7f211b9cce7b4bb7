/**
 * Readers for published paraphrase corpora, as users download them, and for paracap's own datasets. The format is
 * told by the content, not the file name:
 * - MSRPC (`msr_paraphrase_*.txt`): `Quality\t#1 ID\t#2 ID\t#1 String\t#2 String`, header optional, UTF-8 BOM
 *   optional. Read with quoting disabled: its sentences hold unbalanced `"` that break CSV readers.
 * - PAWS (`train/dev/test.tsv`): `id\tsentence1\tsentence2\tlabel`, header optional, CRLF or LF.
 * - QQP (GLUE `train/dev.tsv`): `id\tqid1\tqid2\tquestion1\tquestion2\tis_duplicate` with header; GLUE's test file
 *   (`id\tquestion1\tquestion2`, no labels) too.
 * - TaPaCo (`tapaco_v1.0/<lang>.txt`): `paraphrase_set_id\tsentence_id\tparaphrase[\tlists[\ttags]]`, no header;
 *   every unordered pair of sentences of one set is a pair (as the paper's code built them), all labelled paraphrase.
 * - paracap datasets (`gold.jsonl`, `.jsonl.gz`): one ScoredPair per line; unlabelled.
 * - Any of these re-published as a table whose header names the columns (pair-columns.ts): a headed TSV in
 *   another column order (STS-B, PAWS-X), CSV (Kaggle's Quora `train.csv`, a spreadsheet export), JSON lines
 *   (a Hugging Face dataset's `to_json`) or Parquet (the Hub's downloads; readCorpusFile): format `pairs`, or
 *   the corpus's own name where its columns say it (`question1`: QQP, `#1 String`: MSRPC, `paraphrase_set_id`: TaPaCo).
 * An empty file (a tier without pairs) is a corpus of no pairs.
 * Text is UTF-8 (BOM optional), UTF-16 (with or without its mark), or a whole file in a single-byte
 * legacy encoding read as windows-1252 (an older corpus, a file saved by Excel); a line that is not
 * UTF-8 in a UTF-8 file (cut inside a character) is a skipped line, never a pair with U+FFFD.
 */
import { isUtf8 } from "node:buffer";
import { gunzipSync } from "node:zlib";
import { decodeText, guessTextEncoding, type GuessedEncoding } from "../io/text-encoding.ts";
import { decodeWindows1252 } from "../io/windows-1252.ts";
import { recordsOf } from "../sources/caption-tsv/csv-records.ts";
import { labelOf, nameKey, pairColumns, setColumns, textOf, type PairColumns, type SetColumns } from "./pair-columns.ts";

export type CorpusFormat = "msrp" | "paws" | "qqp" | "tapaco" | "paracap" | "pairs" | "empty";

/** How a table-shaped corpus was read (absent: the corpus's own text layout). */
export type CorpusTable = "tsv" | "csv" | "jsonl" | "parquet";

export interface LabelledPair {
  a: string;
  b: string;
  /** the corpus's own paraphrase label; null when it has none */
  label: boolean | null;
}

export interface Corpus {
  format: CorpusFormat;
  /** how the file's text was read (guessTextEncoding): a caller says so when it is not UTF-8 */
  encoding: GuessedEncoding;
  pairs: LabelledPair[];
  /** lines that could not be read as a pair (counted, with the first few line numbers) */
  skipped: number;
  skippedLines: number[];
  /** a corpus read by its header's column names (skippedLines are then row numbers, the header row 1) */
  table?: CorpusTable;
  /** the graded-score column that made the pairs unlabelled (STS-B's `score`): not a paraphrase label */
  scoreColumn?: string;
}

export class CorpusFormatError extends Error {}

const INT_RE = /^-?\d+$/;
const LABEL_RE = /^[01]$/;

/** A corpus file's text: its encoding, and the (0-based) lines that were not UTF-8 in a UTF-8 file, left empty in `text`. */
export interface CorpusText {
  text: string;
  encoding: GuessedEncoding;
  badLines: Set<number>;
}

/** Decodes gzip when the bytes start with its magic number, then the text in the encoding the bytes show (guessTextEncoding); drops a BOM. */
export function decodeCorpus(bytes: Uint8Array): CorpusText {
  let raw: Uint8Array = bytes;
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      raw = gunzipSync(bytes);
    } catch (err) {
      throw new CorpusFormatError(`cut or corrupt gzip data (${(err as Error).message})`);
    }
  }
  const { encoding, bom } = guessTextEncoding(raw, true);
  const badLines = new Set<number>();
  if (encoding === "windows-1252") return { text: decodeWindows1252(raw), encoding, badLines };
  if (encoding !== "utf-8") return { text: new TextDecoder(encoding, { ignoreBOM: true }).decode(raw.subarray(bom)), encoding, badLines };
  const buf = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  if (isUtf8(buf)) return { text: decodeText(raw), encoding, badLines };
  // damage in a UTF-8 file: each line on its own, a line that is not UTF-8 left empty and named
  const lines: string[] = [];
  for (let at = bom, n = 0; at <= buf.length; n++) {
    let end = buf.indexOf(0x0a, at);
    if (end < 0) end = buf.length;
    const line = buf.subarray(at, end);
    if (isUtf8(line)) lines.push(line.toString("utf8"));
    else {
      lines.push("");
      badLines.add(n);
    }
    at = end + 1;
  }
  return { text: lines.join("\n"), encoding, badLines };
}

/** A corpus file's text (decodeCorpus's). */
export function corpusText(bytes: Uint8Array): string {
  return decodeCorpus(bytes).text;
}

function lines(text: string): string[] {
  const out = text.split(/\r?\n/);
  if (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out;
}

/** The first `n` non-blank lines of a text, however long they are. */
function firstLines(text: string, n: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length && out.length < n; ) {
    let end = text.indexOf("\n", at);
    if (end < 0) end = text.length;
    const line = text.slice(at, end).replace(/\r$/, "");
    if (line.trim() !== "") out.push(line);
    at = end + 1;
  }
  return out;
}

/** A corpus read by its header's column names: where the header is, and which columns the texts are. */
export interface TableLayout {
  table: CorpusTable;
  header: string[];
  columns: { kind: "pairs"; cols: PairColumns } | { kind: "sets"; cols: SetColumns };
}

/** What a corpus's skipped numbers count: lines of a text, CSV records (a quoted sentence may hold line breaks), Parquet rows. */
export function skippedUnit(corpus: Pick<Corpus, "table">): "line" | "record" | "row" {
  return corpus.table === "csv" ? "record" : corpus.table === "parquet" ? "row" : "line";
}

/** A corpus's format, and for a table how it is laid out. */
export interface CorpusLayout {
  format: CorpusFormat;
  table?: TableLayout;
}

const EXPECTED = "expected MSRPC, PAWS, QQP, TaPaCo, paracap JSONL, or a table (TSV, CSV, JSON lines, Parquet) whose header names its two sentence columns (sentence1/sentence2, question1/question2, #1 String/#2 String, text_a/text_b, …)";

/** The table layout of a header, or null when its names hold no sentence pair nor TaPaCo's sets. */
export function tableLayout(table: CorpusTable, header: string[]): TableLayout | null {
  const sets = setColumns(header);
  if (sets) return { table, header, columns: { kind: "sets", cols: sets } };
  const pairs = pairColumns(header);
  return pairs ? { table, header, columns: { kind: "pairs", cols: pairs } } : null;
}

/** The corpus a table's columns say it is: its own name where they are its own, else `pairs`. */
function tableFormat(layout: TableLayout): CorpusFormat {
  if (layout.columns.kind === "sets") return "tapaco";
  const keys = layout.header.map(nameKey);
  if (keys.includes("question1")) return "qqp";
  if (keys.includes("1string")) return "msrp";
  if (keys.join(",") === "id,sentence1,sentence2,label") return "paws";
  return "pairs";
}

/**
 * The format of a corpus text, from its first 20 lines: a header naming the columns (a table), else the layout
 * most of them fit (a stray line, an extra tab in one sentence, is for the reader to skip and count, not a reason
 * to refuse the file).
 */
export function detectLayout(text: string): CorpusLayout {
  const sample = firstLines(text, 20);
  if (sample.length === 0) return { format: "empty" };
  const first = sample[0]!;
  if (first.trimStart().startsWith("{")) return jsonLayout(first);
  if (first.includes("\t")) {
    const table = tableLayout("tsv", first.split("\t"));
    if (table) return { format: tableFormat(table), table };
  } else if (first.includes(",")) {
    const head = recordsOf(Buffer.from(first, "utf8"), true)[0];
    const table = head && "fields" in head ? tableLayout("csv", head.fields) : null;
    if (table) return { format: tableFormat(table), table };
  }
  const rows = sample.map((l) => l.split("\t"));
  const all = (test: (f: string[]) => boolean) => rows.filter(test).length >= Math.max(1, Math.ceil(rows.length * 0.8));
  if (all((f) => f.length === 5 && LABEL_RE.test(f[0]!) && INT_RE.test(f[1]!) && INT_RE.test(f[2]!))) return { format: "msrp" };
  if (all((f) => f.length === 4 && INT_RE.test(f[0]!) && LABEL_RE.test(f[3]!.trim()))) return { format: "paws" };
  if (all((f) => f.length === 6 && INT_RE.test(f[0]!) && LABEL_RE.test(f[5]!.trim()))) return { format: "qqp" };
  if (all((f) => f.length >= 3 && f.length <= 6 && INT_RE.test(f[0]!) && INT_RE.test(f[1]!) && !INT_RE.test(f[2]!))) return { format: "tapaco" };
  throw new CorpusFormatError(`unknown corpus format (first line: ${JSON.stringify(first.slice(0, 120))}); ${EXPECTED}`);
}

/** JSON lines: paracap's own pairs (`a.text`, `b.text`), or objects whose keys name the columns. */
function jsonLayout(first: string): CorpusLayout {
  let o: unknown;
  try {
    o = JSON.parse(first);
  } catch {
    return { format: "paracap" }; // a damaged first line: read as paracap's, it is a counted skip
  }
  if (o === null || typeof o !== "object" || Array.isArray(o)) return { format: "paracap" };
  const rec = o as Record<string, unknown>;
  if ("a" in rec && "b" in rec) return { format: "paracap" };
  const table = tableLayout("jsonl", Object.keys(rec));
  if (table) return { format: tableFormat(table), table };
  throw new CorpusFormatError(`JSON lines with neither paracap's pairs (a.text, b.text) nor known sentence columns (keys: ${Object.keys(rec).slice(0, 12).join(", ")}); ${EXPECTED}`);
}

/** The format of a corpus text (detectLayout's). */
export function detectFormat(text: string): CorpusFormat {
  return detectLayout(text).format;
}

/** One row of a table: its number (as the reader reports it) and its cells in header order, or null when it could not be read. */
type TableRow = { n: number; cells: readonly unknown[] | null };

/** A label column whose cells are mostly graded numbers (STS-B on the Hub calls its 0–5 score `label`). */
function gradedColumn(rows: readonly TableRow[], col: number): boolean {
  let numbers = 0;
  let graded = 0;
  for (const r of rows) {
    const cell = r.cells?.[col];
    if (cell === null || cell === undefined || cell === "") continue;
    const x = typeof cell === "number" ? cell : typeof cell === "string" ? Number(cell.trim()) : NaN;
    if (!Number.isFinite(x)) continue;
    numbers++;
    if (x !== 0 && x !== 1 && x !== -1) graded++;
  }
  return numbers > 0 && graded * 2 >= numbers;
}

/** The pairs of a table's rows (every unordered pair of a set for TaPaCo's sets), each row a pair or a counted skip. */
export function tableCorpus(layout: TableLayout, rows: readonly TableRow[], encoding: GuessedEncoding, format: CorpusFormat, maxChars = Infinity): Corpus {
  const corpus: Corpus = { format, encoding, pairs: [], skipped: 0, skippedLines: [], table: layout.table };
  const skip = (n: number) => {
    corpus.skipped++;
    if (corpus.skippedLines.length < 10) corpus.skippedLines.push(n);
  };
  const fits = (t: string | null): t is string => t !== null && t.length <= maxChars;
  if (layout.columns.kind === "sets") {
    const { set, text } = layout.columns.cols;
    const sets = new Map<string, string[]>();
    for (const r of rows) {
      const id = r.cells?.[set];
      const t = textOf(r.cells?.[text]);
      if (!r.cells || id === null || id === undefined || !fits(t)) {
        skip(r.n);
        continue;
      }
      let s = sets.get(String(id));
      if (!s) sets.set(String(id), (s = []));
      s.push(t);
    }
    for (const s of sets.values()) for (let i = 0; i < s.length; i++) for (let j = i + 1; j < s.length; j++) corpus.pairs.push({ a: s[i]!, b: s[j]!, label: true });
    return corpus;
  }
  const cols = layout.columns.cols;
  let label = cols.label;
  let score = cols.score;
  if (label >= 0 && gradedColumn(rows, label)) [score, label] = [label, -1];
  if (score >= 0) corpus.scoreColumn = layout.header[score]!.trim();
  for (const r of rows) {
    const a = textOf(r.cells?.[cols.a]);
    const b = textOf(r.cells?.[cols.b]);
    const l = label < 0 ? null : labelOf(r.cells?.[label]);
    if (!r.cells || !fits(a) || !fits(b) || l === undefined) skip(r.n);
    else corpus.pairs.push({ a, b, label: l });
  }
  return corpus;
}

/** Rows of a table in text (TSV, CSV, JSON lines), numbered as its reader reports them. */
function textRows(layout: TableLayout, text: string, badLines: ReadonlySet<number>): TableRow[] {
  const rows: TableRow[] = [];
  const width = layout.header.length;
  if (layout.table === "csv") {
    const buf = Buffer.from(text, "utf8");
    // a record over a line that was not UTF-8 (left empty by decodeCorpus) is not read
    const lineStarts = [0];
    for (let at = buf.indexOf(0x0a); at >= 0; at = buf.indexOf(0x0a, at + 1)) lineStarts.push(at + 1);
    const lineOf = (offset: number) => {
      let lo = 0;
      let hi = lineStarts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (lineStarts[mid]! <= offset) lo = mid;
        else hi = mid - 1;
      }
      return lo;
    };
    const records = recordsOf(buf, true);
    records.forEach((r, i) => {
      if (i === 0) return; // the header
      const n = i + 1;
      if ("drop" in r) return void rows.push({ n, cells: null });
      if (r.fields.length === 1 && r.fields[0]!.trim() === "") return; // a blank line
      const end = i + 1 < records.length ? records[i + 1]!.offset : buf.length;
      for (let l = lineOf(r.offset); l < lineStarts.length && lineStarts[l]! < end; l++) if (badLines.has(l)) return void rows.push({ n, cells: null });
      rows.push({ n, cells: r.fields.length === width ? r.fields : null });
    });
    return rows;
  }
  lines(text).forEach((line, i) => {
    if (layout.table === "tsv" && i === 0) return; // the header
    if (badLines.has(i)) return void rows.push({ n: i + 1, cells: null });
    if (line.trim() === "") return;
    if (layout.table === "tsv") {
      const c = line.split("\t");
      return void rows.push({ n: i + 1, cells: c.length === width ? c : null });
    }
    let o: unknown;
    try {
      o = JSON.parse(line);
    } catch {
      return void rows.push({ n: i + 1, cells: null });
    }
    const rec = o !== null && typeof o === "object" && !Array.isArray(o) ? (o as Record<string, unknown>) : null;
    rows.push({ n: i + 1, cells: rec ? layout.header.map((k) => rec[k]) : null });
  });
  return rows;
}

/**
 * Reads a corpus from its bytes (gzip or plain), detecting the format unless given. `maxChars`: a
 * sentence longer than this makes its line a skipped one (scoring cost grows with length; a run
 * bounds its captions the same way, captions.maxChars). Parquet is readCorpusFile's.
 */
export function readCorpus(bytes: Uint8Array, format?: CorpusFormat, opts: { maxChars?: number } = {}): Corpus {
  const max = opts.maxChars ?? Infinity;
  const tooLong = (...texts: string[]) => texts.some((t) => t.length > max);
  if (isParquet(bytes)) throw new CorpusFormatError("a Parquet file: read it with readCorpusBytes");
  const { text, encoding, badLines } = decodeCorpus(bytes);
  const layout: CorpusLayout = format ? { format } : detectLayout(text);
  if (layout.table) return tableCorpus(layout.table, textRows(layout.table, text, badLines), encoding, layout.format, max);
  const f = layout.format;
  const corpus: Corpus = { format: f, encoding, pairs: [], skipped: 0, skippedLines: [] };
  const skip = (n: number) => {
    corpus.skipped++;
    if (corpus.skippedLines.length < 10) corpus.skippedLines.push(n);
  };
  const all = lines(text);
  if (f === "empty") return corpus;

  if (f === "paracap") {
    all.forEach((line, i) => {
      if (badLines.has(i)) return skip(i + 1);
      if (line.trim() === "") return;
      try {
        const o = JSON.parse(line) as { a?: { text?: unknown }; b?: { text?: unknown }; paraphrase?: unknown };
        if (typeof o.a?.text !== "string" || typeof o.b?.text !== "string" || tooLong(o.a.text, o.b.text)) return skip(i + 1);
        corpus.pairs.push({ a: o.a.text, b: o.b.text, label: null });
      } catch {
        skip(i + 1);
      }
    });
    return corpus;
  }
  if (f === "tapaco") {
    const sets = new Map<string, string[]>();
    all.forEach((line, i) => {
      if (badLines.has(i)) return skip(i + 1);
      const c = line.split("\t");
      if (c.length < 3 || !INT_RE.test(c[0]!) || c[2]!.trim() === "" || tooLong(c[2]!)) return skip(i + 1);
      let s = sets.get(c[0]!);
      if (!s) sets.set(c[0]!, (s = []));
      s.push(c[2]!);
    });
    for (const s of sets.values()) {
      for (let i = 0; i < s.length; i++) for (let j = i + 1; j < s.length; j++) corpus.pairs.push({ a: s[i]!, b: s[j]!, label: true });
    }
    return corpus;
  }
  // tab-separated pairs with an optional header: column positions per format
  let cols = f === "msrp" ? { a: 3, b: 4, label: 0, n: 5 } : f === "paws" ? { a: 1, b: 2, label: 3, n: 4 } : { a: 3, b: 4, label: 5, n: 6 };
  all.forEach((line, i) => {
    // a line that was not UTF-8 (its text left empty): a skipped line, whatever the format
    if (badLines.has(i)) return skip(i + 1);
    if (line.trim() === "") return;
    const c = line.split("\t");
    if (i === 0 && !INT_RE.test(c[0]!.trim())) {
      const h = c.map((x) => x.trim().toLowerCase());
      // GLUE's QQP test file: id, question1, question2
      if (f === "qqp" && !h.includes("is_duplicate")) cols = { a: h.indexOf("question1"), b: h.indexOf("question2"), label: -1, n: h.length };
      return; // a header
    }
    if (c.length !== cols.n) return skip(i + 1);
    const label = cols.label < 0 ? null : c[cols.label]!.trim();
    if (label !== null && !LABEL_RE.test(label)) return skip(i + 1);
    if (tooLong(c[cols.a]!, c[cols.b]!)) return skip(i + 1);
    corpus.pairs.push({ a: c[cols.a]!, b: c[cols.b]!, label: label === null ? null : label === "1" });
  });
  return corpus;
}

const PAR1 = [0x50, 0x41, 0x52, 0x31];

/** Parquet's magic number at both ends; a file that starts with it and lacks the end's is a Parquet file cut short. */
export function isParquet(bytes: Uint8Array): boolean {
  if (bytes.length < 4 || !PAR1.every((b, i) => bytes[i] === b)) return false;
  const n = bytes.length;
  if (n < 8 || !PAR1.every((b, i) => bytes[n - 4 + i] === b)) throw new CorpusFormatError("a Parquet file cut short: its footer, the map of its rows, is missing");
  return true;
}

/**
 * Reads a corpus file's bytes of any format readCorpus reads, and Parquet (a Hugging Face dataset's download:
 * `sentence1`/`sentence2`/`label`, `question1`/`question2`, TaPaCo's `paraphrase_set_id`/`paraphrase`, …).
 */
export async function readCorpusBytes(bytes: Uint8Array, opts: { maxChars?: number } = {}): Promise<Corpus> {
  if (!isParquet(bytes)) return readCorpus(bytes, undefined, opts);
  const { parquetMetadata, parquetReadObjects, parquetSchema } = await import("hyparquet");
  const { parquetCompressors } = await import("../io/parquet-codecs.ts");
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  let header: string[];
  try {
    header = parquetSchema(parquetMetadata(file)).children.map((c) => c.element.name);
  } catch (e) {
    throw new CorpusFormatError(`a Parquet file whose footer cannot be read (${e instanceof Error ? e.message : String(e)})`);
  }
  const layout = tableLayout("parquet", header);
  if (!layout) throw new CorpusFormatError(`a Parquet file without known sentence columns (columns: ${header.slice(0, 12).join(", ")}); ${EXPECTED}`);
  const wanted = layout.columns.kind === "sets" ? [layout.columns.cols.set, layout.columns.cols.text] : [layout.columns.cols.a, layout.columns.cols.b, layout.columns.cols.label, layout.columns.cols.score];
  const columns = header.filter((_, i) => wanted.includes(i));
  let objects: Record<string, unknown>[];
  try {
    objects = await parquetReadObjects({ file, columns, compressors: await parquetCompressors() });
  } catch (e) {
    throw new CorpusFormatError(`a Parquet file whose rows cannot be read (${e instanceof Error ? e.message : String(e)})`);
  }
  const rows = objects.map((o, i) => ({ n: i + 1, cells: header.map((k) => o[k]) }));
  return tableCorpus(layout, rows, "utf-8", tableFormat(layout), opts.maxChars ?? Infinity);
}
