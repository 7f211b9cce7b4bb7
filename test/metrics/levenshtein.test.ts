import { describe, expect, it } from "vitest";
import { levenshteinDistance } from "../../shared/metrics/levenshtein.ts";
import { scorePair } from "../../shared/metrics/score-pair.ts";
import { INVESTIGATION, MOORE, SOLDIERS, VICTIMS } from "./msrp-pairs.ts";

describe("levenshtein (word-level, normalised distance)", () => {
  it("MSRP line 411", () => {
    // moore had no immediate comment tuesday | moore did not have an immediate response tuesday
    // LCS 3 (moore, immediate, tuesday) → distance ≥ max(6,8) − 3 = 5; had→did, no→not, +have, +an, comment→response = 5
    expect(scorePair(...MOORE).levenshtein).toBeCloseTo(5 / 8, 12);
  });

  it("MSRP line 1135", () => {
    // that investigation closed without any charges being laid | the investigation was closed without charges in 2001
    // with the 4 LCS matches: that→the, +was, −any, being→in, laid→2001 = 5; fewer matches cost ≥ 8 − 3 = 5 → 5/8
    expect(scorePair(...INVESTIGATION).levenshtein).toBeCloseTo(5 / 8, 12);
  });

  it("MSRP line 2531", () => {
    // every day more american soldiers die | we 're losing one or two american soldiers every day
    // LCS 2 → ≥ 10 − 2 = 8; around "american soldiers": 3 subs + 3 ins, then die→every + ins day = 8 → 8/10
    expect(scorePair(...SOLDIERS).levenshtein).toBeCloseTo(0.8, 12);
  });

  it("MSRP line 1225", () => {
    // 4 shared words, then were dismayed by / expressed dismay at = 3 subs, the, development→possibility = 4 → 4/9
    expect(scorePair(...VICTIMS).levenshtein).toBeCloseTo(4 / 9, 12);
  });

  it("edge cases: identical 0, disjoint 1, one empty 1, both empty 0, one word", () => {
    expect(scorePair("a dog runs", "A dog runs!").levenshtein).toBe(0);
    expect(scorePair("the cat", "dog barks loudly").levenshtein).toBe(1); // 2 subs + 1 ins = 3 / 3
    expect(scorePair("", "dog").levenshtein).toBe(1);
    expect(scorePair("", "").levenshtein).toBe(0);
    expect(scorePair("dog", "dogs").levenshtein).toBe(1); // one substitution / 1 word
  });

  it("raw distance on ids", () => {
    expect(levenshteinDistance(Int32Array.of(1, 2, 3), Int32Array.of(2, 3, 4))).toBe(2); // −1, +4
    expect(levenshteinDistance(Int32Array.of(), Int32Array.of(7, 7))).toBe(2);
  });
});
