import { describe, expect, it } from "vitest";
import { brevityPenalty, nltkSentenceBleu } from "../../shared/metrics/bleu.ts";
import { scorePair } from "../../shared/metrics/score-pair.ts";
import { INVESTIGATION, MOORE, SOLDIERS, VICTIMS } from "./msrp-pairs.ts";

/** Geometric mean with weights ¼ (every smoothed precision here is > 0). */
const geo4 = (p: number[]): number => Math.exp(p.reduce((s, x) => s + 0.25 * Math.log(x), 0));

/**
 * nltk method5 applied by hand to the listed precisions: p1' = (p1+1 + p1 + p2)/3, p_n' = (p_{n−1}' + p_n + p_{n+1})/3,
 * with p5 the raw 5-gram precision. Written out per test as numbers too.
 */
const method5 = (p: number[], p5: number): number[] => {
  const next = [...p, p5];
  const out: number[] = [];
  let m = p[0]! + 1;
  for (let i = 0; i < 4; i++) out.push((m = (m + p[i]! + next[i + 1]!) / 3));
  return out;
};

describe("bleu4 (nltk 3.7 sentence_bleu, method7, symmetric)", () => {
  it("MSRP line 1225: no zero order, so only method5 acts", () => {
    // 9 | 9 stemmed tokens; clipped matches 6, 3, 2, 1, 0 (orders 1..5); denominators 9, 8, 7, 6, 5
    // p = 6/9, 3/8, 2/7, 1/6; p5 = 0/5
    // p1' = (5/3 + 2/3 + 3/8)/3 = 0.902778; p2' = (0.902778 + 0.375 + 0.285714)/3 = 0.521164
    // p3' = (0.521164 + 0.285714 + 0.166667)/3 = 0.324515; p4' = (0.324515 + 0.166667 + 0)/3 = 0.163727
    // BP = 1 (equal lengths); BLEU = (0.902778·0.521164·0.324515·0.163727)^(1/4) = 0.397629, same both ways
    const p = method5([6 / 9, 3 / 8, 2 / 7, 1 / 6], 0);
    expect(p[0]).toBeCloseTo(0.902778, 6);
    expect(p[3]).toBeCloseTo(0.163727, 6);
    expect(scorePair(...VICTIMS).bleu4).toBeCloseTo(geo4(p), 12);
    expect(scorePair(...VICTIMS).bleu4).toBeCloseTo(0.397629, 6);
  });

  it("MSRP line 1135: method4 fills the zero orders", () => {
    // 8 | 8 tokens; matches 4, 1, 0, 0, 0. p1 = 4/8, p2 = 1/7;
    // p3 = ln8/(2·5)/6 = 2.079442/60 = 0.0346574; p4 = ln8/(4·5)/5 = 2.079442/100 = 0.0207944; p5 = 0
    // method5: 0.714286, 0.297267, 0.117573, 0.046122 → BLEU = 0.184208 (both directions, BP 1)
    const p = method5([0.5, 1 / 7, Math.log(8) / 10 / 6, Math.log(8) / 20 / 5], 0);
    expect(scorePair(...INVESTIGATION).bleu4).toBeCloseTo(geo4(p), 12);
    expect(scorePair(...INVESTIGATION).bleu4).toBeCloseTo(0.184208, 6);
  });

  it("MSRP line 411: different lengths, brevity penalty on one direction", () => {
    // 6 | 8 tokens; matches 3, 0, 0, 0, 0
    // ref a, hyp b (8): p = 3/8, ln8/10/7, ln8/20/6, ln8/40/5 → method5 0.593235, 0.213423, 0.080383, 0.030260
    //   BP = 1 (8 > 6) → 0.132473
    // ref b, hyp a (6): p = 3/6, ln6/10/5, ln6/20/4, ln6/40/3 → method5 0.678612, 0.245615, 0.094314, 0.036415
    //   BP = e^(1 − 8/6) = 0.716531 → 0.110833
    // mean = 0.121653
    const ab = geo4(method5([3 / 8, Math.log(8) / 10 / 7, Math.log(8) / 20 / 6, Math.log(8) / 40 / 5], 0));
    const ba = Math.exp(1 - 8 / 6) * geo4(method5([0.5, Math.log(6) / 50, Math.log(6) / 80, Math.log(6) / 120], 0));
    expect(ab).toBeCloseTo(0.132473, 6);
    expect(ba).toBeCloseTo(0.110833, 6);
    expect(scorePair(...MOORE).bleu4).toBeCloseTo((ab + ba) / 2, 12);
  });

  it("MSRP line 2531", () => {
    // 6 | 10 tokens; matches 4, 2, 0, 0, 0
    // ref a, hyp b: p = 4/10, 2/9, ln10/10/8, ln10/20/7 → 0.674074, 0.308360, 0.117863, 0.044770; BP 1 → 0.181984
    // ref b, hyp a: p = 4/6, 2/5, ln6/10/4, ln6/20/3 → 0.911111, 0.451968, 0.175542, 0.068468; BP e^(−2/3) → 0.136178
    // mean = 0.159081
    expect(scorePair(...SOLDIERS).bleu4).toBeCloseTo(0.159081, 6);
  });

  it("identical short texts: nltk's smoothing gives < 1 (and > 1 precisions are clipped)", () => {
    // "dog" | "dog": hyp length 1 → method4 skipped; p = 1, 0, 0, 0; p5 = 0
    // method5: (2+1+0)/3 = 1, (1+0+0)/3 = 1/3, 1/9, 1/27 → (1·3^−1·3^−2·3^−3)^(1/4) = 3^−1.5 = 0.192450
    expect(scorePair("dog", "dog").bleu4).toBeCloseTo(3 ** -1.5, 12);
    // 3 tokens identical: p = 1, 1, 1, ln3/10 (method4, c = 1); p5 = 0
    // method5: 4/3, 10/9, (10/9 + 1 + 0.109861)/3 = 0.740324, (0.740324 + 0.109861)/3 = 0.283395 → 0.746668
    expect(scorePair("a dog runs", "a dog runs").bleu4).toBeCloseTo(0.746668, 6);
    // 6 identical tokens: every precision 1 → p1' = 4/3 > 1 … → unclipped > 1, clipped to 1
    expect(nltkSentenceBleu([6, 5, 4, 3, 2], 6, 6)).toBeGreaterThan(1);
    expect(scorePair("the cat sat on a mat", "The cat sat on a mat.").bleu4).toBe(1);
  });

  it("disjoint or empty texts score 0 (no unigram match)", () => {
    expect(scorePair("the cat", "dogs bark loudly").bleu4).toBe(0);
    expect(scorePair("", "dogs bark").bleu4).toBe(0);
    expect(scorePair("", "").bleu4).toBe(0);
  });

  it("brevity penalty", () => {
    expect(brevityPenalty(6, 8)).toBe(1);
    expect(brevityPenalty(8, 6)).toBeCloseTo(Math.exp(-1 / 3), 12);
    expect(brevityPenalty(3, 0)).toBe(0);
  });
});
