import { describe, expect, it } from "vitest";
import { fMeasure, longestCommonSubsequence } from "../../shared/metrics/rouge.ts";
import { scorePair } from "../../shared/metrics/score-pair.ts";
import { AOL, INVESTIGATION, MOORE, SOLDIERS, VICTIMS } from "./msrp-pairs.ts";

// Values computed by hand from rouge-score 0.0.4's formulas: P = overlap/|prediction|, R = overlap/|target|,
// F = 2PR/(P+R); ROUGE-1 overlap = Σ min(counts); ROUGE-L overlap = LCS length; tokens stemmed (see rouge-tokens tests).
describe("rouge1F / rougeLF", () => {
  it("MSRP line 411", () => {
    // moor had no immedi comment tuesday (6) | moor did not have an immedi respons tuesday (8)
    // ROUGE-1: overlap 3 → P = 3/8, R = 3/6 → F = 2·(3/16)/(7/8) = 3/7; LCS = 3 (moor immedi tuesday) → 3/7
    const m = scorePair(...MOORE);
    expect(m.rouge1F).toBeCloseTo(3 / 7, 12);
    expect(m.rougeLF).toBeCloseTo(3 / 7, 12);
  });

  it("MSRP line 1135", () => {
    // that investig close without any charg be laid | the investig was close without charg in 2001 (8 | 8)
    // overlap 4 and LCS 4 → P = R = F = 0.5
    const m = scorePair(...INVESTIGATION);
    expect(m.rouge1F).toBeCloseTo(0.5, 12);
    expect(m.rougeLF).toBeCloseTo(0.5, 12);
  });

  it("MSRP line 2531: word order matters for ROUGE-L only", () => {
    // everi day more american soldier die (6) | we re lose one or two american soldier everi day (10)
    // ROUGE-1: overlap 4 → 2·(4/10)(4/6)/(4/10 + 4/6) = (32/60)/(64/60) = 0.5
    // ROUGE-L: LCS 2 (american soldier) → 2·(2/10)(2/6)/(2/10 + 2/6) = (8/60)/(32/60) = 0.25
    const m = scorePair(...SOLDIERS);
    expect(m.rouge1F).toBeCloseTo(0.5, 12);
    expect(m.rougeLF).toBeCloseTo(0.25, 12);
  });

  it("MSRP line 1225: stemming creates the dismayed/dismay match", () => {
    // repres of abus victim were dismay by the develop | repres of abus victim express dismay at the possibl
    // overlap 6 (repres of abus victim dismay the), LCS 6 → 6/9 each
    const m = scorePair(...VICTIMS);
    expect(m.rouge1F).toBeCloseTo(6 / 9, 12);
    expect(m.rougeLF).toBeCloseTo(6 / 9, 12);
  });

  it("MSRP line 1073 (label 0)", () => {
    // america onlin last quarter lost 846 000 dial up subscrib (10) | no wonder aol lost 846 000 subscrib last quarter (9)
    // overlap 6 (last quarter lost 846 000 subscrib) → 2·(6/9)(6/10)/(6/9 + 6/10) = 0.8/1.266667 = 12/19
    // LCS 4 (lost 846 000 subscrib) → 2·(4/9)(4/10)/(4/9 + 4/10) = (16/45)/(76/90) = 8/19
    const m = scorePair(...AOL);
    expect(m.rouge1F).toBeCloseTo(12 / 19, 12);
    expect(m.rougeLF).toBeCloseTo(8 / 19, 12);
  });

  it("edge cases", () => {
    expect(scorePair("the cat", "The cat!").rouge1F).toBe(1);
    expect(scorePair("the cat", "The cat!").rougeLF).toBe(1);
    expect(scorePair("the cat", "dogs bark").rouge1F).toBe(0);
    expect(scorePair("", "dogs bark").rougeLF).toBe(0);
    expect(scorePair("", "").rouge1F).toBe(0);
    // "the the" vs "the": clipped overlap 1 → P = 1/1, R = 1/2 → 2/3
    expect(scorePair("the the", "the").rouge1F).toBeCloseTo(2 / 3, 12);
    expect(fMeasure(0, 0)).toBe(0);
    expect(longestCommonSubsequence(Int32Array.of(1, 2, 3, 4), Int32Array.of(2, 4, 3))).toBe(2);
  });
});
