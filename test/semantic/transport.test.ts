import { describe, expect, it } from "vitest";
import { minCostTransport } from "../../shared/semantic/transport.ts";
import { bruteForce } from "./brute-transport.ts";

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Integer masses summing to `total` over `k` bins. */
function masses(r: () => number, k: number, total: number): number[] {
  const out = new Array<number>(k).fill(0);
  for (let t = 0; t < total; t++) out[Math.floor(r() * k)]! += 1;
  return out;
}

describe("minCostTransport", () => {
  it("moves all mass along the only possible route", () => {
    expect(minCostTransport([3], [1, 2], [0.5, 2]).cost).toBeCloseTo(0.5 + 4, 12);
  });

  it("prefers the cheaper assignment on a hand-checkable 2×2 (cross costs 1, straight costs 0 and 3)", () => {
    // straight: 0 + 3 = 3; crossed: 1 + 1 = 2
    const r = minCostTransport([1, 1], [1, 1], [0, 1, 1, 3]);
    expect(r.cost).toBe(2);
    expect([...r.flow]).toEqual([0, 1, 1, 0]);
  });

  it("equals the brute-force optimum on 300 random small problems, also on Euclidean costs of random points", () => {
    const r = rng(7);
    for (let c = 0; c < 300; c++) {
      const n = 1 + Math.floor(r() * 3), m = 1 + Math.floor(r() * 3);
      const total = 1 + Math.floor(r() * 5);
      const supply = masses(r, n, total), demand = masses(r, m, total);
      let cost: number[];
      if (c % 2 === 0) cost = Array.from({ length: n * m }, () => Math.round(r() * 10) / 4);
      else {
        const pa = Array.from({ length: n }, () => [r(), r()]), pb = Array.from({ length: m }, () => [r(), r()]);
        cost = pa.flatMap((a) => pb.map((b) => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!)));
      }
      const got = minCostTransport(supply, demand, cost);
      expect(got.cost).toBeCloseTo(bruteForce(supply, demand, cost), 10);
      // the flow is feasible: margins hold
      for (let i = 0; i < n; i++) expect(got.flow.slice(i * m, i * m + m).reduce((s, f) => s + f, 0)).toBe(supply[i]);
      for (let j = 0; j < m; j++) expect(Array.from({ length: n }, (_, i) => got.flow[i * m + j]!).reduce((s, f) => s + f, 0)).toBe(demand[j]);
    }
  });

  it("needs rerouting (a reverse edge) to reach the optimum", () => {
    // Greedy would send source 0 to sink 0 (cost 1); the optimum sends source 1 there (cost 2) and source 0 to sink 1.
    const cost = [1, 2, 2, 100];
    expect(minCostTransport([1, 1], [1, 1], cost).cost).toBe(bruteForce([1, 1], [1, 1], cost));
    expect(minCostTransport([1, 1], [1, 1], cost).cost).toBe(4);
  });

  it("rejects unequal totals, fractional or negative masses and negative costs", () => {
    expect(() => minCostTransport([1], [2], [0])).toThrow(/supply 1 ≠ demand 2/);
    expect(() => minCostTransport([0.5, 0.5], [1], [0, 0])).toThrow(/integer/);
    expect(() => minCostTransport([1], [1], [-1])).toThrow(/negative/);
    expect(() => minCostTransport([1], [1], [0, 0])).toThrow(/entries/);
  });
});
