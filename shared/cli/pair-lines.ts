/**
 * The lines of `paracap score`'s stdin as caption pairs. The layout is told by the first line, as
 * `compare` tells a corpus file's (shared/compare/corpus-formats.ts), so a researcher can pipe in the
 * paraphrase corpora as downloaded:
 * - caption1<TAB>caption2 (paracap's own layout);
 * - a header line naming the two text columns (`sentence1`/`sentence2`, `question1`/`question2`,
 *   MSRPC's `#1 String`/`#2 String`, …: pair-columns.ts), tab- or comma-separated: PAWS, GLUE's QQP and
 *   MSRPC with their headers, Kaggle's Quora `train.csv` (a quoted question may hold line breaks), a
 *   spreadsheet's export; the header gets no output line;
 * - the headerless layouts of MSRPC (`label, id, id, s1, s2`), PAWS (`id, s1, s2, label`) and QQP
 *   (`id, qid1, qid2, q1, q2, label`), by their number columns;
 * - JSON lines: a Hugging Face dataset's `to_json` (keys naming the columns) or paracap's own pairs
 *   (`a.text`, `b.text`: a tier file scored again, say with a model).
 * Every later line (CSV: record) is read the same way; one that does not fit is a bad line.
 */
import { recordAt } from "../sources/caption-tsv/csv-records.ts";
import { pairColumns, textOf } from "../compare/pair-columns.ts";

/** Why a line of `score`'s input is no pair it scores, and what to tell the user. */
export interface BadPairLine {
  skipped: "not_a_pair" | "caption_too_long";
  message: string;
}

export type PairLine = { pair: [string, string] } | BadPairLine;

/** A line that is no record of its own: a header, or a line inside a quoted CSV field. */
export const NO_RECORD = Symbol("no record");

type Layout =
  | { kind: "plain" }
  | { kind: "tsv"; a: number; b: number; width: number }
  | { kind: "csv"; a: number; b: number; width: number }
  | { kind: "json"; a: string; b: string }
  | { kind: "paracap" }
  | { kind: "unknown_json"; keys: string[] };

const INT = /^-?\d+$/;
const LABEL = /^[01]$/;

/** The columns of a headerless corpus layout the first line fits, or null. */
function headerless(f: readonly string[]): Layout | null {
  const label = (s: string) => LABEL.test(s.trim());
  if (f.length === 5 && label(f[0]!) && INT.test(f[1]!) && INT.test(f[2]!)) return { kind: "tsv", a: 3, b: 4, width: 5 }; // MSRPC
  if (f.length === 4 && INT.test(f[0]!) && label(f[3]!)) return { kind: "tsv", a: 1, b: 2, width: 4 }; // PAWS
  if (f.length === 6 && INT.test(f[0]!) && INT.test(f[1]!) && INT.test(f[2]!) && label(f[5]!)) return { kind: "tsv", a: 3, b: 4, width: 6 }; // QQP
  return null;
}

const HEADERS = "sentence1/sentence2, question1/question2, #1 String/#2 String, text_a/text_b, … in TSV, CSV or JSON lines";

/** A CSV record held open across lines longer than this is no record (a quote never closed). */
const MAX_RECORD_CHARS = 1 << 20;

/**
 * Reads one input's lines in order. `layout` names how it is read once the first line was seen
 * (for the user: "columns question1 and question2 of a CSV header"), null before.
 */
export class PairLineReader {
  private layout: Layout | null = null;
  private pending: { text: string; n: number } | null = null;
  /** how the input is read, for a note on stderr; null for paracap's own caption1<TAB>caption2 */
  described: string | null = null;

  constructor(private readonly maxChars = Infinity) {}

  read(line: string, n: number): PairLine | typeof NO_RECORD {
    if (this.layout === null) {
      const header = this.decide(line);
      if (header) return NO_RECORD;
    }
    const layout = this.layout!;
    switch (layout.kind) {
      case "plain": {
        const fields = line.split("\t");
        if (fields.length !== 2) {
          const got = fields.length === 1 ? "no tab" : `${fields.length - 1} tabs`;
          // the first line is where a table's header would be: say which headers are read
          return { skipped: "not_a_pair", message: `stdin line ${n}: expected caption1<TAB>caption2, found ${got}${n === 1 ? ` (or a first line naming the two text columns: ${HEADERS})` : ""}` };
        }
        return this.pair(fields[0]!, fields[1]!, n);
      }
      case "tsv": {
        const fields = line.split("\t");
        if (fields.length !== layout.width) return { skipped: "not_a_pair", message: `stdin line ${n}: ${fields.length} columns, the header's ${layout.width}` };
        return this.pair(fields[layout.a]!, fields[layout.b]!, n);
      }
      case "csv":
        return this.csv(line, n, layout);
      case "json":
      case "paracap":
        return this.json(line, n, layout);
      case "unknown_json":
        return { skipped: "not_a_pair", message: `stdin line ${n}: JSON lines without known text keys (keys: ${layout.keys.slice(0, 12).join(", ")}); expected ${HEADERS}` };
    }
  }

  /** At the end of the input: a CSV record whose quote was never closed (with its first line's number), or nothing. */
  end(): { bad: BadPairLine; n: number } | typeof NO_RECORD {
    if (!this.pending) return NO_RECORD;
    const { n } = this.pending;
    this.pending = null;
    return { bad: { skipped: "not_a_pair", message: `stdin line ${n}: a CSV record whose quoted field is never closed` }, n };
  }

  /** Sets the layout from the first line; true when that line is a header (no record). */
  private decide(line: string): boolean {
    if (line.trimStart().startsWith("{")) {
      this.layout = jsonLayout(line);
      if (this.layout.kind === "json") this.described = `keys ${this.layout.a} and ${this.layout.b} of JSON lines`;
      else if (this.layout.kind === "paracap") this.described = "a.text and b.text of paracap's JSON lines";
      return false;
    }
    if (line.includes("\t")) {
      const fields = line.split("\t");
      const cols = pairColumns(fields);
      if (cols) {
        this.layout = { kind: "tsv", a: cols.a, b: cols.b, width: fields.length };
        this.described = `columns ${fields[cols.a]!.trim()} and ${fields[cols.b]!.trim()} of the header on line 1`;
        return true;
      }
      const known = headerless(fields);
      if (known && known.kind === "tsv") {
        this.layout = known;
        this.described = `columns ${known.a + 1} and ${known.b + 1} of ${known.width} (${known.width === 5 ? "MSRPC" : known.width === 4 ? "PAWS" : "QQP"} without a header)`;
        return false;
      }
    } else if (line.includes(",")) {
      const r = recordAt(Buffer.from(line + "\n", "utf8"), 0, true);
      const cols = typeof r === "object" ? pairColumns(r.fields) : null;
      if (typeof r === "object" && cols) {
        this.layout = { kind: "csv", a: cols.a, b: cols.b, width: r.fields.length };
        this.described = `columns ${r.fields[cols.a]!.trim()} and ${r.fields[cols.b]!.trim()} of the CSV header on line 1`;
        return true;
      }
    }
    this.layout = { kind: "plain" };
    return false;
  }

  private pair(a: string, b: string, n: number): PairLine {
    const long = [a, b].find((f) => f.length > this.maxChars);
    if (long !== undefined) return { skipped: "caption_too_long", message: `stdin line ${n}: a caption of ${long.length} characters, over captions.maxChars (${this.maxChars}; a --config file may raise it)` };
    return { pair: [a, b] };
  }

  /** A CSV record, which may go on over the next lines while a quoted field is open. */
  private csv(line: string, n: number, layout: { a: number; b: number; width: number }): PairLine | typeof NO_RECORD {
    const text = this.pending ? `${this.pending.text}\n${line}` : line;
    const first = this.pending?.n ?? n;
    this.pending = null;
    const r = recordAt(Buffer.from(text + "\n", "utf8"), 0, false);
    if (r === "more" || r === "unterminated") {
      if (text.length > MAX_RECORD_CHARS) return { skipped: "not_a_pair", message: `stdin line ${first}: a CSV record whose quoted field is never closed` };
      this.pending = { text, n: first };
      return NO_RECORD;
    }
    if (r.fields.length === 1 && r.fields[0]!.trim() === "") return { skipped: "not_a_pair", message: `stdin line ${first}: an empty line` };
    if (r.fields.length !== layout.width) return { skipped: "not_a_pair", message: `stdin line ${first}: a CSV record of ${r.fields.length} fields, the header's ${layout.width}` };
    return this.pair(r.fields[layout.a]!, r.fields[layout.b]!, first);
  }

  private json(line: string, n: number, layout: { kind: "json"; a: string; b: string } | { kind: "paracap" }): PairLine {
    let o: unknown;
    try {
      o = JSON.parse(line);
    } catch {
      return { skipped: "not_a_pair", message: `stdin line ${n}: not a JSON object` };
    }
    const rec = o !== null && typeof o === "object" && !Array.isArray(o) ? (o as Record<string, unknown>) : {};
    const cell = (v: unknown) => (layout.kind === "paracap" ? (v !== null && typeof v === "object" ? textOf((v as Record<string, unknown>).text) : null) : textOf(v));
    const a = cell(layout.kind === "paracap" ? rec.a : rec[layout.a]);
    const b = cell(layout.kind === "paracap" ? rec.b : rec[layout.b]);
    if (a === null || b === null) return { skipped: "not_a_pair", message: `stdin line ${n}: no text under ${layout.kind === "paracap" ? "a.text and b.text" : `${layout.a} and ${layout.b}`}` };
    return this.pair(a, b, n);
  }
}

/** JSON lines: paracap's own pairs, or objects whose keys name the columns. */
function jsonLayout(first: string): Layout {
  let o: unknown;
  try {
    o = JSON.parse(first);
  } catch {
    return { kind: "plain" }; // not JSON after all: read as a caption pair (or told as no pair)
  }
  if (o === null || typeof o !== "object" || Array.isArray(o)) return { kind: "plain" };
  const rec = o as Record<string, unknown>;
  if ("a" in rec && "b" in rec) return { kind: "paracap" };
  const keys = Object.keys(rec);
  const cols = pairColumns(keys);
  return cols ? { kind: "json", a: keys[cols.a]!, b: keys[cols.b]! } : { kind: "unknown_json", keys };
}
