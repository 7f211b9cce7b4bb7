import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { calibrateThreshold, evaluateThreshold } from "../../shared/semantic/calibrate.ts";
import { scoringDifference, semanticScoreName, semanticScoring, semanticVerdict, shippedThresholds, type ThresholdsFile } from "../../shared/semantic/semantic-score.ts";

const file = (thresholds: ThresholdsFile["thresholds"]): (() => ThresholdsFile) => () => ({
  rule: "test",
  corpus: { file: "x", pairs: 1, positives: 1, sha256: "" },
  thresholds,
  evaluation: {},
});
const cal = (threshold: number) => ({ threshold, precision: 1, recall: 1, f1: 1 });

describe("semanticVerdict", () => {
  it("averages the configured metrics, subtracts the syntactic score and compares with the calibrated threshold", () => {
    const v = semanticVerdict(resolveConfig({ scoring: { semantic: ["x", "y"] } }), file({ "mean(x,y)": cal(0.5) }));
    expect(v({ syntactic: 0.25, x: 0.75, y: 0.5 })).toEqual({
      metrics: { syntactic: 0.25, x: 0.75, y: 0.5, semantic: 0.625, deltaSemSyn: 0.375 },
      paraphrase: true,
      paraphraseBy: { score: "mean(x,y)", threshold: 0.5 },
    });
    // strictly above, as "ST > 0.8"
    expect(v({ syntactic: 0.5, x: 0.5, y: 0.5 }).paraphrase).toBe(false);
  });

  it("passes syntactic-only metrics through unchanged", () => {
    const v = semanticVerdict(resolveConfig(), file({}));
    expect(v({ syntactic: 0.3 })).toEqual({ metrics: { syntactic: 0.3 } });
  });

  it("a semantic metric no scorer reports, or no threshold for the score, is an error naming the fix", () => {
    const v = semanticVerdict(resolveConfig({ scoring: { semantic: ["x", "y"] } }), file({ "mean(x,y)": cal(0.5) }));
    expect(() => v({ syntactic: 0.3, x: 0.5 })).toThrow(/y, which no configured scorer reports/);
    const none = semanticVerdict(resolveConfig({ scoring: { semantic: ["z"] } }), file({}));
    expect(() => none({ z: 0.9 })).toThrow(/no calibrated paraphrase threshold for z: set scoring.paraphraseThreshold/);
  });

  it("the shipped thresholds cover the offline scores and the default semantic score", () => {
    const t = shippedThresholds();
    const def = semanticScoreName(resolveConfig().scoring.semantic);
    expect(def).toBe("mean(vectorCosine,wordMoverSimilarity)");
    for (const name of ["vectorCosine", "wordMoverSimilarity", def]) {
      expect(t.thresholds[name]!.recall).toBeGreaterThanOrEqual(0.77);
      expect(t.evaluation["paws-wiki-labeled-final-dev.tsv"]![name]).toBeDefined();
    }
  });
});

describe("calibrateThreshold", () => {
  // scores with labels: 0.9+ 0.8+ 0.7- 0.6+ 0.5- 0.4+
  const rows = [[0.9, true], [0.8, true], [0.7, false], [0.6, true], [0.5, false], [0.4, true]].map(([score, label]) => ({ score: score as number, label: label as boolean }));

  it("picks the most precise cut that keeps the recall (halfway between two scores)", () => {
    // recall ≥ 0.5: cut after 0.8 → P 1, R 0.5
    expect(calibrateThreshold(rows, 0.5)).toEqual({ threshold: 0.75, precision: 1, recall: 0.5, f1: 2 / 3 });
    // recall ≥ 0.75: after 0.6 → P 3/4
    const r = calibrateThreshold(rows, 0.75);
    expect(r.threshold).toBeCloseTo(0.55, 12);
    expect(r.precision).toBe(0.75);
    // recall 1: everything
    expect(calibrateThreshold(rows, 1).recall).toBe(1);
  });

  it("never cuts between equal scores", () => {
    const tied = [{ score: 0.5, label: true }, { score: 0.5, label: false }, { score: 0.2, label: false }];
    expect(calibrateThreshold(tied, 0.5).threshold).toBeCloseTo(0.35, 12);
  });

  it("evaluates precision, recall and F1 of score > threshold", () => {
    const e = evaluateThreshold(rows, 0.65);
    expect([e.precision, e.recall]).toEqual([2 / 3, 0.5]);
    expect(e.f1).toBeCloseTo(4 / 7, 12);
    expect(evaluateThreshold(rows, 1)).toEqual({ precision: 0, recall: 0, f1: 0 });
  });
});

describe("semanticScoring", () => {
  const scoring = (s: object) => semanticScoring(resolveConfig({ scoring: s }).scoring);

  it("names what a semantic score's values depend on: the vocabulary for word-vector metrics, the model for others", () => {
    expect(scoring({})).toEqual({ semantic: "mean(vectorCosine,wordMoverSimilarity)", vectors: { maxWords: 100_000 } });
    // a model scorer next to the default semantic score does not change it
    expect(scoring({ scorers: ["syntactic", "wordVectors", "embedding"], transformer: { model: "/m" } })).toEqual(scoring({}));
    expect(scoring({ scorers: ["syntactic", "embedding"], semantic: ["embeddingCosine"], transformer: { model: "/m", dtype: "q8" } }))
      .toEqual({ semantic: "embeddingCosine", transformer: { model: "/m", dtype: "q8" } });
  });

  it("says in words what differs, or null", () => {
    expect(scoringDifference(scoring({}), scoring({}))).toBeNull();
    expect(scoringDifference(scoring({ vectors: { maxWords: null } }), scoring({}))).toBe("all word vectors here, the 100,000 most frequent word vectors there");
    expect(scoringDifference(scoring({ semantic: ["vectorCosine"] }), scoring({}))).toBe("semantic = vectorCosine here, mean(vectorCosine,wordMoverSimilarity) there");
    const model = (m: string) => scoring({ scorers: ["embedding"], semantic: ["embeddingCosine"], transformer: { model: m } });
    expect(scoringDifference(model("/a"), model("/b"))).toBe("model /a (fp32) here, model /b (fp32) there");
  });
});
