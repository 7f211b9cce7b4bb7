import { describe, expect, it } from "vitest";
import { scorePair } from "../../shared/metrics/score-pair.ts";
import { sumo } from "../../shared/metrics/sumo.ts";
import { INVESTIGATION, MOORE, SOLDIERS, VICTIMS } from "./msrp-pairs.ts";

describe("sumo (thesis eq. 4.6–4.7, α = β = 0.5, k = 3)", () => {
  it("MSRP line 2531: S < 1 branch", () => {
    // λ = 4 (every, day, american, soldiers), |a| = 6, |b| = 10
    // S = 0.5·log2(10/4) + 0.5·log2(6/4) = 0.5·1.321928 + 0.5·0.584963 = 0.953445 < 1 → 0.953445
    expect(scorePair(...SOLDIERS).sumo).toBeCloseTo(0.5 * Math.log2(2.5) + 0.5 * Math.log2(1.5), 12);
    expect(scorePair(...SOLDIERS).sumo).toBeCloseTo(0.953445, 6);
  });

  it("MSRP line 1225: S < 1", () => {
    // λ = 5, |a| = |b| = 9 → S = log2(9/5) = 0.847997
    expect(scorePair(...VICTIMS).sumo).toBeCloseTo(0.847997, 6);
  });

  it("MSRP lines 411 and 1135: S ≥ 1 branch, e^(−3S)", () => {
    // 411: λ = 3, 8 and 6 words: S = 0.5·log2(8/3) + 0.5·log2(2) = 0.707519 + 0.5 = 1.207519 → e^(−3.622556) = 0.026714
    expect(scorePair(...MOORE).sumo).toBeCloseTo(0.026714, 6);
    // 1135: λ = 4, 8 and 8 words: S = 0.5 + 0.5 = 1 (not < 1) → e^(−3) = 0.049787
    expect(scorePair(...INVESTIGATION).sumo).toBeCloseTo(Math.exp(-3), 12);
  });

  it("identical texts score 0 by design; no links → 0", () => {
    expect(scorePair("the cat sat on the mat", "The cat sat on the mat.").sumo).toBe(0); // S = log2(1) = 0
    expect(scorePair("the cat", "dogs bark").sumo).toBe(0);
    expect(scorePair("", "dogs bark").sumo).toBe(0);
    expect(scorePair("dog", "dog").sumo).toBe(0);
  });

  it("λ counts exclusive links (multiset intersection), not distinct words", () => {
    // "the the cat" vs "the dog": λ = min(2,1) for "the" = 1; S = 0.5·log2(3) + 0.5·log2(2) = 1.292481 → e^(−3.877443)
    expect(scorePair("the the cat", "the dog").sumo).toBeCloseTo(Math.exp(-3 * (0.5 * Math.log2(3) + 0.5)), 12);
    expect(sumo(3, 2, 2)).toBeCloseTo(0.5 * Math.log2(1.5), 12); // S = 0.292481 < 1
  });
});
