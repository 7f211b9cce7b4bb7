import { describe, expect, it } from "vitest";
import { characteristicMap, summarisePairs, type SummaryPair } from "../../shared/compare/corpus-summary.ts";
import { levelOf } from "../../shared/compare/characteristic-map.ts";
import { TierSummaryBuilder } from "../../shared/output/tier-summary.ts";

const pair = (syntactic: number, semantic: number, paraphrase?: boolean, label?: boolean): SummaryPair => ({
  a: "Neil Armstrong descends a ladder",
  b: "Armstrong climbs down the ladder to the surface",
  metrics: { rouge1F: syntactic, syntactic, semantic, deltaSemSyn: semantic - syntactic },
  ...(paraphrase === undefined ? {} : { paraphrase }),
  ...(label === undefined ? {} : { label }),
});

describe("characteristic map", () => {
  it("bins [0, 1] into five levels, 1.0 in the top one", () => {
    expect([0, 0.19, 0.2, 0.59, 0.8, 0.99, 1].map(levelOf)).toEqual([0, 0, 1, 2, 4, 4, 4]);
  });

  it("gives the share of pairs per (syntactic level, semantic level) cell", () => {
    const map = characteristicMap([pair(0.1, 0.9), pair(0.1, 0.95), pair(0.5, 0.5), pair(1, 1)])!;
    expect(map[0]![4]).toBe(0.5);
    expect(map[2]![2]).toBe(0.25);
    expect(map[4]![4]).toBe(0.25);
    expect(map.flat().reduce((s, v) => s + v, 0)).toBe(1);
  });

  it("puts a score in the cell the report puts it in: 0.7 − 0.1 (0.59999…) is level 3, as printed", () => {
    const x = 0.7 - 0.1;
    const map = characteristicMap([pair(x, x)])!;
    const tier = new TierSummaryBuilder("gold");
    tier.add({ id: "1", tier: "gold", image: "File:A.jpg", type: "caption", a: { text: "a", page: "P" }, b: { text: "b", page: "Q" }, metrics: { syntactic: x, semantic: x, deltaSemSyn: 0 } } as never);
    expect(map[3]![3]).toBe(1);
    expect(tier.toJSON().semantic!.map.shares).toEqual(map);
  });

  it("is null for pairs without a semantic score", () => {
    expect(characteristicMap([{ a: "x", b: "y", metrics: { syntactic: 0.5 } }])).toBeNull();
  });
});

describe("summarisePairs", () => {
  const pairs = [pair(0.2, 0.9, true, true), pair(0.6, 0.8, true, false), pair(0.4, 0.3, false, true), pair(0.5, 0.2, false, false)];

  it("describes the pairs judged paraphrase (Table 7's subset): n, share, μ/σ, map, verdict vs labels", () => {
    const s = summarisePairs("tier", pairs);
    expect([s.subset, s.pairs, s.n, s.paraphraseShare]).toEqual(["paraphrase", 4, 2, 0.5]);
    expect(s.metrics.syntactic!.mean).toBeCloseTo(0.4, 12);
    expect(s.metrics.syntactic!.sd).toBeCloseTo(0.2, 12);
    expect(s.metrics.deltaSemSyn!.mean).toBeCloseTo(0.45, 12);
    expect(Object.keys(s.metrics)).toEqual(["rouge1F", "syntactic", "semantic", "deltaSemSyn"]);
    // words per text: 5 and 8
    expect(s.length).toEqual({ mean: 6.5, sd: 1.5 });
    expect(s.decision).toEqual({ labelled: 4, positives: 2, precision: 0.5, recall: 0.5, f1: 0.5 });
    expect(s.map![1]![4]).toBe(0.5);
  });

  it("describes every pair with subset all, and works without labels or verdicts (syntactic-only datasets)", () => {
    expect(summarisePairs("tier", pairs, { subset: "all" }).n).toBe(4);
    const plain = summarisePairs("gold", [{ a: "a b", b: "a c", metrics: { syntactic: 0.5 } }]);
    expect([plain.subset, plain.n, plain.paraphraseShare, plain.decision, plain.map]).toEqual(["all", 1, null, null, null]);
  });
});
