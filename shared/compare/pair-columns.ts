/**
 * Which columns of a headed corpus table hold the two sentences and the paraphrase label, by their names: the
 * names the published corpora and their re-publications use (GLUE's and Hugging Face's `sentence1`/`question1`,
 * MSRPC's `#1 String`, Kaggle's Quora `question1`, `text_a`, `s1`, …). Names are compared lower-cased, with
 * spaces, `_`, `-` and `#` removed, so `Sentence 1`, `sentence_1` and `#1 String` are found alike.
 */

/** The two texts' column names, normalised (nameKey), most common first. */
const TEXT_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ["sentence1", "sentence2"],
  ["question1", "question2"],
  ["1string", "2string"],
  ["texta", "textb"],
  ["text1", "text2"],
  ["sentencea", "sentenceb"],
  ["s1", "s2"],
  ["string1", "string2"],
  ["phrase1", "phrase2"],
  ["caption1", "caption2"],
];

/** Binary paraphrase labels (1 = paraphrase / duplicate / equivalent). */
const LABEL_NAMES = ["label", "isduplicate", "quality", "isparaphrase", "paraphrase", "goldlabel"];
/** Graded similarity (STS-B's 0–5): not a paraphrase label; named so a reader can say why the pairs are unlabelled. */
const SCORE_NAMES = ["score", "similarityscore", "relatednessscore"];

export function nameKey(name: string): string {
  return name.trim().toLowerCase().replace(/[\s_#-]+/g, "");
}

export interface PairColumns {
  /** indexes into the header */
  a: number;
  b: number;
  /** the binary label's column, -1 when there is none */
  label: number;
  /** a graded score column instead of a label (the pairs are then unlabelled), -1 when there is none */
  score: number;
}

/** TaPaCo as re-published in tables (Hugging Face's `tapaco`): sentences grouped by their set. */
export interface SetColumns {
  set: number;
  text: number;
}

/** The pair's columns of a header, or null when no known pair of names is in it. */
export function pairColumns(header: readonly string[]): PairColumns | null {
  const keys = header.map(nameKey);
  for (const [x, y] of TEXT_PAIRS) {
    const a = keys.indexOf(x);
    const b = keys.indexOf(y);
    if (a < 0 || b < 0) continue;
    const label = keys.findIndex((k) => LABEL_NAMES.includes(k));
    return { a, b, label, score: label >= 0 ? -1 : keys.findIndex((k) => SCORE_NAMES.includes(k)) };
  }
  return null;
}

/** TaPaCo's set and sentence columns, or null. */
export function setColumns(header: readonly string[]): SetColumns | null {
  const keys = header.map(nameKey);
  const set = keys.indexOf("paraphrasesetid");
  const text = keys.indexOf("paraphrase");
  return set >= 0 && text >= 0 ? { set, text } : null;
}

/**
 * A label cell as a paraphrase label: true, false, or null for a pair without one (GLUE's test files mark
 * them -1, Hugging Face's exports leave them empty); undefined when the cell is not a label at all (the row is
 * then not a pair of this corpus).
 */
export function labelOf(cell: unknown): boolean | null | undefined {
  if (cell === null || cell === undefined) return null;
  if (typeof cell === "boolean") return cell;
  if (typeof cell === "bigint") return labelOf(Number(cell));
  if (typeof cell === "number") return cell === 1 ? true : cell === 0 ? false : cell === -1 ? null : undefined;
  if (typeof cell !== "string") return undefined;
  const s = cell.trim().toLowerCase();
  if (s === "" || s === "-1") return null;
  if (s === "1" || s === "true" || s === "yes" || s === "paraphrase" || s === "equivalent" || s === "duplicate") return true;
  if (s === "0" || s === "false" || s === "no" || s === "not_paraphrase" || s === "not_equivalent" || s === "not_duplicate") return false;
  return undefined;
}

/** A text cell as a sentence, or null when it holds none. */
export function textOf(cell: unknown): string | null {
  if (typeof cell === "string") return cell.trim() === "" ? null : cell;
  if (typeof cell === "number" || typeof cell === "bigint") return String(cell);
  return null;
}
