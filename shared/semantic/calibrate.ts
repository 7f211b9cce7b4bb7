/** Choosing and checking a paraphrase threshold on a labelled corpus. */
import type { Calibration } from "./semantic-score.ts";

export interface Labelled {
  score: number;
  label: boolean;
}

/** Precision, recall and F1 of `score > threshold` against the labels (0 where undefined). */
export function evaluateThreshold(rows: readonly Labelled[], threshold: number): Omit<Calibration, "threshold"> {
  let tp = 0, fp = 0, fn = 0;
  for (const r of rows) {
    const yes = r.score > threshold;
    if (yes && r.label) tp++;
    else if (yes) fp++;
    else if (r.label) fn++;
  }
  const precision = tp + fp === 0 ? 0 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 0 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1 };
}

/**
 * The paper's operating point: it chose ST > 0.8 on MSRPC for precision 0.82 at recall 0.77. Here: of the thresholds
 * whose recall is at least `minRecall`, the one with the highest precision (ties: the higher threshold). A threshold
 * sits halfway between two adjacent distinct scores, so `score > threshold` reproduces the cut.
 */
export function calibrateThreshold(rows: readonly Labelled[], minRecall: number): Calibration {
  const positives = rows.filter((r) => r.label).length;
  if (positives === 0) throw new Error("calibration needs positive examples");
  const sorted = [...rows].sort((x, y) => y.score - x.score);
  let tp = 0, fp = 0;
  let best: { precision: number; threshold: number } | null = null;
  for (let i = 0; i < sorted.length; i++) {
    if (sorted[i]!.label) tp++;
    else fp++;
    const next = sorted[i + 1];
    if (next && next.score === sorted[i]!.score) continue; // a cut only between distinct scores
    if (tp / positives < minRecall) continue;
    const precision = tp / (tp + fp);
    const threshold = next ? (sorted[i]!.score + next.score) / 2 : sorted[i]!.score - 1e-9;
    if (!best || precision > best.precision) best = { precision, threshold };
  }
  if (!best) throw new Error(`no threshold reaches recall ${minRecall}`);
  return { threshold: best.threshold, ...evaluateThreshold(rows, best.threshold) };
}
