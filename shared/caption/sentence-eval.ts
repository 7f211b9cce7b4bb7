/**
 * Precision/recall of a sentence classifier on the hand-labelled captions
 * (test/fixtures/caption/sentence-labels.tsv: label<TAB>caption<TAB>source, with a header line).
 * Every 3rd labelled row (rows 3, 6, 9, … counting from 1) is the dev split the rules were tuned on;
 * the rest is the held-out test split.
 */
import { readFileSync } from "node:fs";

export interface LabelledCaption {
  readonly sentence: boolean;
  readonly caption: string;
  readonly source: string;
  readonly split: "dev" | "test";
}

export interface Confusion {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
}

/** Parses the labels file; a malformed line is an error naming its line number. */
export function loadSentenceLabels(path: string): LabelledCaption[] {
  const lines = readFileSync(path, "utf8").split("\n").filter((l) => l !== "");
  const rows: LabelledCaption[] = [];
  lines.slice(1).forEach((line, i) => {
    const [label, caption, source, extra] = line.split("\t");
    if ((label !== "sentence" && label !== "fragment") || !caption || source === undefined || extra !== undefined) {
      throw new Error(`${path}:${i + 2}: expected "sentence|fragment<TAB>caption<TAB>source", got ${JSON.stringify(line)}`);
    }
    rows.push({ sentence: label === "sentence", caption, source, split: (i + 1) % 3 === 0 ? "dev" : "test" });
  });
  return rows;
}

export function confusion(rows: readonly LabelledCaption[], predict: (caption: string) => boolean): Confusion {
  const c: Confusion = { tp: 0, fp: 0, fn: 0, tn: 0 };
  for (const r of rows) {
    const p = predict(r.caption);
    if (p && r.sentence) c.tp++;
    else if (p) c.fp++;
    else if (r.sentence) c.fn++;
    else c.tn++;
  }
  return c;
}

export const precision = (c: Confusion) => (c.tp + c.fp === 0 ? 0 : c.tp / (c.tp + c.fp));
export const recall = (c: Confusion) => (c.tp + c.fn === 0 ? 0 : c.tp / (c.tp + c.fn));
