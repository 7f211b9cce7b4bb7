import { beforeAll, describe, expect, it } from "vitest";
import { minCostTransport } from "../../shared/semantic/transport.ts";
import { VectorSimilarity } from "../../shared/semantic/vector-similarity.ts";
import type { WordVectors } from "../../shared/semantic/word-vectors.ts";
import { processWordVectors, wordVectorScorer } from "../../shared/semantic/vector-scorer.ts";
import { fixturePairs, MOORE } from "../metrics/msrp-pairs.ts";
import { bruteForce } from "./brute-transport.ts";

// The real vectors, loaded once for the file (~1.5 s).
let vectors: WordVectors;
let sim: VectorSimilarity;
beforeAll(async () => {
  vectors = await processWordVectors(null);
  sim = new VectorSimilarity(vectors);
});

const unit = (w: string) => {
  const id = vectors.id(w);
  expect(id).toBeGreaterThanOrEqual(0);
  return [...vectors.unit.subarray(id * vectors.dims, (id + 1) * vectors.dims)];
};
const dot = (u: number[], v: number[]) => u.reduce((s, x, i) => s + x * v[i]!, 0);
const dist = (u: number[], v: number[]) => Math.hypot(...u.map((x, i) => x - v[i]!));

describe("VectorSimilarity", () => {
  it("scores one word against one word by their vectors: WMS = 1 − |u − v|/2, cosine = u·v", () => {
    const s = sim.score("Cat.", "A kitten!");
    expect(s.wordMoverSimilarity).toBeCloseTo(1 - dist(unit("cat"), unit("kitten")) / 2, 6);
    expect(s.vectorCosine).toBeCloseTo(dot(unit("cat"), unit("kitten")), 6);
    expect(s.vectorOov).toBe(0);
    // closer words are more similar
    expect(s.wordMoverSimilarity).toBeGreaterThan(sim.score("cat", "parliament").wordMoverSimilarity);
  });

  it("ignores stop words, case and punctuation: the same content words score 1", () => {
    const s = sim.score("The cat sat on the mat.", "cat sat, mat");
    expect(s.wordMoverSimilarity).toBe(1);
    expect(s.vectorCosine).toBeCloseTo(1, 12);
  });

  it("keeps stop words when a text has nothing else", () => {
    expect(sim.bag("it is what it is").words).toEqual(["it", "is", "what"]);
  });

  it("matches an out-of-vocabulary word only to itself, and counts it", () => {
    expect(vectors.id("1907")).toBe(-1); // the package has no numbers
    const same = sim.score("born 1907", "born in 1907");
    expect(same.wordMoverSimilarity).toBe(1);
    const other = sim.score("born 1907", "born 1970");
    // half the mass stays (born → born), half moves √2 (1907 → 1970, orthogonal): WMD = √2/2
    expect(other.wordMoverSimilarity).toBeCloseTo(1 - Math.SQRT2 / 4, 12);
    // (u + e1)·(u + e2) / (√2·√2) = 1/2
    expect(other.vectorCosine).toBeCloseTo(0.5, 6);
    expect(other.vectorOov).toBe(0.5);
  });

  it("looks an unknown hyphenated word up by its parts", () => {
    expect(vectors.id("armenian-americans")).toBe(-1);
    const bag = sim.bag("four Armenian-Americans");
    expect(bag.words).toEqual(["four", "armenian", "americans"]);
    expect(bag.oovTokens).toBe(0);
  });

  it("gives 0 when a text has no words", () => {
    expect(sim.score("", "cat")).toEqual({ vectorCosine: 0, wordMoverSimilarity: 0, vectorOov: 0 });
    expect(sim.score("—", "…")).toEqual({ vectorCosine: 0, wordMoverSimilarity: 0, vectorOov: 0 });
  });

  it("WMD equals the brute-force transport optimum on small real bags with repeated words", () => {
    const cases: [string, string][] = [
      ["cat cat dog", "kitten puppy"],
      ["king queen palace", "monarch castle castle"],
      ["river bank money", "stream finance finance"],
      [MOORE[0], "Moore comment"],
      // shared words: their common mass stays in place
      ["cat cat dog mouse", "cat dog dog horse"],
      ["red red red car", "red car car"],
    ];
    for (const [x, y] of cases) {
      const a = sim.bag(x), b = sim.bag(y);
      const cost: number[] = [];
      for (let i = 0; i < a.words.length; i++) for (let j = 0; j < b.words.length; j++) cost.push(sim.distance(a, i, b, j));
      const supply = Array.from(a.counts, (c) => c * b.tokens), demand = Array.from(b.counts, (c) => c * a.tokens);
      if (supply.reduce((s, v) => s + v, 0) > 16) throw new Error(`case too large for brute force: ${x} / ${y}`);
      expect(sim.wmd(a, b)).toBeCloseTo(bruteForce(supply, demand, cost) / (a.tokens * b.tokens), 10);
    }
  });

  it("exact WMD equals the unreduced transport problem and relaxed WMD is a lower bound on real MSRP pairs; scores are symmetric and in [0, 1]", () => {
    for (const [, x, y] of fixturePairs().slice(0, 150)) {
      const a = sim.bag(x), b = sim.bag(y);
      const exact = sim.wmd(a, b);
      expect(sim.relaxedWmd(a, b)).toBeLessThanOrEqual(exact + 1e-12);
      // keeping shared words' common mass in place loses nothing: the full problem has the same optimum
      const cost: number[] = [];
      for (let i = 0; i < a.words.length; i++) for (let j = 0; j < b.words.length; j++) cost.push(sim.distance(a, i, b, j));
      const full = minCostTransport(Array.from(a.counts, (c) => c * b.tokens), Array.from(b.counts, (c) => c * a.tokens), cost);
      expect(exact).toBeCloseTo(full.cost / (a.tokens * b.tokens), 10);
      expect(sim.wmd(b, a)).toBeCloseTo(exact, 10);
      const s = sim.score(x, y);
      for (const v of Object.values(s)) expect(v >= 0 && v <= 1).toBe(true);
    }
  });
});

describe("wordVectors scorer", () => {
  it("loads the vectors on its first non-empty batch only, and once", async () => {
    let loads = 0;
    const scorer = wordVectorScorer(() => (loads++, vectors));
    expect(await scorer.scoreBatch([])).toEqual([]);
    expect(loads).toBe(0);
    const [s] = await scorer.scoreBatch([["Cat.", "A kitten!"]]);
    expect(s).toEqual(sim.score("Cat.", "A kitten!"));
    await scorer.scoreBatch([["a dog", "a puppy"]]);
    expect(loads).toBe(1);
  });
});
