/**
 * Agreement statistics against published worked examples (each source named at its test), and the
 * correlations against values computed by hand here.
 */
import { describe, expect, it } from "vitest";
import { averageRanks, cohenKappa, fleissKappa, krippendorffAlpha, pearson, spearman } from "../../shared/annotate/agreement-stats.ts";

describe("Cohen's kappa", () => {
  // Wikipedia, "Cohen's kappa", Example: 50 grant proposals read by A and B; both yes 20, both no 15,
  // A yes/B no 5, A no/B yes 10. p_o = 0.7, p_e = 0.5·0.6 + 0.5·0.4 = 0.5, κ = 0.4.
  it("reproduces the grant-proposal example: κ = 0.4", () => {
    const a = [...Array(20).fill("yes"), ...Array(5).fill("yes"), ...Array(10).fill("no"), ...Array(15).fill("no")];
    const b = [...Array(20).fill("yes"), ...Array(5).fill("no"), ...Array(10).fill("yes"), ...Array(15).fill("no")];
    const r = cohenKappa(a, b);
    expect(r.n).toBe(50);
    expect(r.observed).toBeCloseTo(0.7, 12);
    expect(r.expected).toBeCloseTo(0.5, 12);
    expect(r.kappa).toBeCloseTo(0.4, 12);
  });

  it("is 1 for perfect agreement and NaN when both coders use one category throughout", () => {
    expect(cohenKappa([1, 2, 3, 1], [1, 2, 3, 1]).kappa).toBe(1);
    expect(cohenKappa(["x", "x"], ["x", "x"]).kappa).toBeNaN();
    expect(() => cohenKappa([1], [1, 2])).toThrow(RangeError);
  });
});

describe("Fleiss' kappa", () => {
  // Fleiss (1971) as worked in Wikipedia, "Fleiss' kappa", Worked example: 14 raters put 10 subjects
  // into 5 categories. Published: P̄ = 0.378, P̄e = 0.213, κ = 0.210 (p_j = 0.143, 0.200, 0.279, 0.150, 0.229).
  const TABLE = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
  ];

  it("reproduces the published worked example: κ = 0.210", () => {
    const r = fleissKappa(TABLE);
    expect(r.n).toBe(10);
    expect(r.raters).toBe(14);
    expect(r.observed).toBeCloseTo(0.378, 3);
    expect(r.expected).toBeCloseTo(0.213, 3);
    expect(r.kappa).toBeCloseTo(0.21, 3);
    // the category shares p_j, from the column sums 20, 28, 39, 21, 32 of 140 ratings
    const cols = [0, 1, 2, 3, 4].map((j) => TABLE.reduce((a, row) => a + row[j]!, 0) / 140);
    expect(cols.map((p) => p.toFixed(3))).toEqual(["0.143", "0.200", "0.279", "0.150", "0.229"]);
  });

  it("equals Cohen-style chance correction for unanimous subjects (κ = 1) and refuses ragged rows", () => {
    expect(fleissKappa([[3, 0], [0, 3], [3, 0]]).kappa).toBe(1);
    expect(() => fleissKappa([[2, 1], [1, 1]])).toThrow(RangeError);
  });
});

describe("Krippendorff's alpha", () => {
  // Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability" (Annenberg School for
  // Communication, University of Pennsylvania, https://repository.upenn.edu/asc_papers/43), section C,
  // "Nominal data, any number of observers, missing values": 4 observers × 12 units, values 1–5,
  // "." missing. Published: α_nominal = 0.743, α_ordinal = 0.815, α_interval = 0.849, α_ratio = 0.797.
  const M = null;
  const OBSERVERS = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, M, M, M], // A
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, M, 3], // B
    [M, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, M], // C
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, M], // D
  ];
  const units = OBSERVERS[0]!.map((_, u) => OBSERVERS.map((o) => o[u]).filter((v): v is number => v !== null));

  it("reproduces the published values for all four metrics", () => {
    const nominal = krippendorffAlpha(units, "nominal");
    // unit 12 has one value and is not pairable: 40 pairable values in 11 units
    expect(nominal.n).toBe(40);
    expect(nominal.units).toBe(11);
    expect(nominal.alpha).toBeCloseTo(0.743, 3);
    expect(krippendorffAlpha(units, "ordinal").alpha).toBeCloseTo(0.815, 3);
    expect(krippendorffAlpha(units, "interval").alpha).toBeCloseTo(0.849, 3);
    expect(krippendorffAlpha(units, "ratio").alpha).toBeCloseTo(0.797, 3);
  });

  it("nominal values may be strings, and the result does not depend on the order of coders within a unit", () => {
    const named = units.map((u) => u.map((v) => `c${v}`));
    expect(krippendorffAlpha(named, "nominal").alpha).toBeCloseTo(krippendorffAlpha(units, "nominal").alpha, 12);
    const reversed = units.map((u) => [...u].reverse());
    expect(krippendorffAlpha(reversed, "ordinal").alpha).toBeCloseTo(krippendorffAlpha(units, "ordinal").alpha, 12);
    expect(() => krippendorffAlpha(named, "interval")).toThrow(RangeError);
  });

  it("two coders on nominal data: α is Scott's π corrected for sample size (hand-computed)", () => {
    // 4 units, coders agree on 3: values a,a | a,a | b,b | a,b → n = 8, n_a = 5, n_b = 3,
    // D_o = 2/8 (the a,b unit contributes o_ab = o_ba = 1), D_e = 2·5·3 / (8·7) = 30/56; α = 1 − (2/8)/(30/56) = 1 − 14/30
    const r = krippendorffAlpha([["a", "a"], ["a", "a"], ["b", "b"], ["a", "b"]], "nominal");
    expect(r.alpha).toBeCloseTo(1 - 14 / 30, 12);
  });
});

describe("correlation", () => {
  // by hand: x = 1…5, y = 2,4,5,4,5; dx = −2,−1,0,1,2, dy = −2,0,1,0,1; Σdxdy = 6, Σdx² = 10, Σdy² = 6:
  // r = 6/√60. Ranks of y with ties: 1, 2.5, 4.5, 2.5, 4.5; Σ = 7 against Σdx² = 10, Σ = 9: ρ = 7/√90.
  it("Pearson and Spearman (average ranks for ties)", () => {
    const x = [1, 2, 3, 4, 5];
    const y = [2, 4, 5, 4, 5];
    expect(pearson(x, y)).toBeCloseTo(6 / Math.sqrt(60), 12);
    expect(averageRanks(y)).toEqual([1, 2.5, 4.5, 2.5, 4.5]);
    expect(spearman(x, y)).toBeCloseTo(7 / Math.sqrt(90), 12);
    // a monotone but non-linear relation: ρ = 1, r < 1
    expect(spearman([1, 2, 3, 4], [1, 8, 27, 64])).toBeCloseTo(1, 12);
    expect(pearson([1, 2, 3, 4], [1, 8, 27, 64])).toBeLessThan(0.99);
    expect(pearson([1, 1, 1], [1, 2, 3])).toBeNaN();
    expect(pearson([1], [1])).toBeNaN();
  });
});
