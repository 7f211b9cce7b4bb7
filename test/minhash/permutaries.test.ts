import { describe, expect, it } from "vitest";
import { encodeCorpus } from "../../shared/minhash/corpus.ts";
import { permutarySeeds, signatureInto, wordHashes } from "../../shared/minhash/hash-family.ts";
import { exactPairs, jaccard } from "../../shared/minhash/jaccard.ts";
import { greedyOneToOne } from "../../shared/minhash/one-to-one.ts";
import { collisionsNeeded, minhashPairs } from "../../shared/minhash/permutaries.ts";
import { findTextPairs } from "../../shared/minhash/text-pairs.ts";
import { MERCIER, verneParagraphs, WALTER } from "./verne.ts";

const A = verneParagraphs(MERCIER);
const B = verneParagraphs(WALTER);

/** Collisions / m of two paragraphs' signatures, straight from the hash family. */
function estimate(c: ReturnType<typeof encodeCorpus>, x: Int32Array, y: Int32Array, m: number, seed = 7): number {
  const seeds = permutarySeeds(m, seed), h = wordHashes(c.vocabulary);
  const sx = new Int32Array(m), sy = new Int32Array(m);
  signatureInto(x, h, seeds, sx, 0);
  signatureInto(y, h, seeds, sy, 0);
  let n = 0;
  for (let k = 0; k < m; k++) if (sx[k] === sy[k]) n++;
  return n / m;
}

describe("min-hash permutaries", () => {
  it("estimates converge to the exact Jaccard as m grows (fixed seed)", () => {
    // 60 real cross-translation pairs spread over Jaccard values: each Mercier paragraph with its best Walter match in the first 400
    const a = A.slice(0, 250), b = B.slice(0, 400);
    const c = encodeCorpus(a, b);
    const pairs: [Int32Array, Int32Array, number][] = [];
    exactPairs(c, 0.15, (i, j, s) => { if (pairs.length < 60 && i % 3 === 0) pairs.push([c.a[i]!, c.b![j]!, s]); });
    expect(pairs.length).toBe(60);
    const meanAbsError = (m: number) => pairs.reduce((sum, [x, y, s]) => sum + Math.abs(estimate(c, x, y, m) - s), 0) / pairs.length;
    const errors = [16, 64, 256, 1024, 4096].map(meanAbsError);
    // the standard error of a collision rate is sqrt(J(1-J)/m): ≈ 0.1 at m = 16, ≈ 0.006 at m = 4096
    for (let k = 1; k < errors.length; k++) expect(errors[k]).toBeLessThan(errors[k - 1]!);
    expect(errors[0]).toBeGreaterThan(0.04);
    expect(errors[4]).toBeLessThan(0.012);
    // no bias: the mean signed error at m = 4096 is within 4 standard errors of 0
    const signed = pairs.map(([x, y, s]) => estimate(c, x, y, 4096) - s);
    const mean = signed.reduce((p, q) => p + q, 0) / signed.length;
    expect(Math.abs(mean)).toBeLessThan(4 * (0.5 / Math.sqrt(4096)) / Math.sqrt(signed.length));
  });

  it("emits exactly the pairs whose signatures collide in ≥ ⌈t·m⌉ tables, as the paper's pair table H would", () => {
    const a = A.slice(0, 150), b = B.slice(0, 250);
    const c = encodeCorpus(a, b);
    const m = 64, t = 0.3;
    const seeds = permutarySeeds(m, 20070101), h = wordHashes(c.vocabulary);
    const sig = (x: Int32Array) => { const s = new Int32Array(m); signatureInto(x, h, seeds, s, 0); return s; };
    const sa = c.a.map(sig), sb = c.b!.map(sig);
    const brute: string[] = [];
    sa.forEach((x, i) => sb.forEach((y, j) => {
      let n = 0;
      for (let k = 0; k < m; k++) if (x[k] === y[k] && x[k]! >= 0) n++;
      if (n >= collisionsNeeded(t, m)) brute.push(`${i},${j},${n / m}`);
    }));
    const got: string[] = [];
    // the paper's method: no exact verification
    const stats = minhashPairs(c, { perms: m, threshold: t, verify: "estimate" }, (i, j, s) => got.push(`${i},${j},${s}`));
    expect(brute.length).toBeGreaterThan(20);
    expect(got).toEqual(brute);
    expect(stats.pairs).toBe(brute.length);
  });

  it("caps buckets of frequent words, counts them, and keeps every estimate the uncapped run gives", () => {
    const a = A.slice(0, 600), b = B.slice(0, 900);
    const c = encodeCorpus(a, b);
    const opts = { perms: 128, threshold: 0.4 };
    const free: string[] = [], capped: string[] = [];
    const s1 = minhashPairs(c, { ...opts, bucketCap: 1_000_000 }, (i, j, s) => free.push(`${i},${j},${s}`));
    const s2 = minhashPairs(c, { ...opts, bucketCap: 20 }, (i, j, s) => capped.push(`${i},${j},${s}`));
    expect(s1.bucketsCapped).toBe(0);
    expect(s2.bucketsCapped).toBeGreaterThan(0);
    expect(s2.entriesCapped).toBeGreaterThan(20 * s2.bucketsCapped);
    // fewer collisions enumerated: the point of the cap
    expect(s2.collisionsEnumerated).toBeLessThan(s1.collisionsEnumerated / 2);
    // a pair is lost only when it collides in nothing but capped tables; at t = 0.4 that did not happen here
    expect(s2.rowsAtRisk).toBeLessThan(a.length);
    expect(capped).toEqual(free);
  });

  it("within one set: near-duplicate paragraphs, i < j, and a self pair never", () => {
    const b = B.slice(0, 1500);
    const c = encodeCorpus(b);
    const pairs: [number, number, number][] = [];
    minhashPairs(c, { perms: 256, threshold: 0.8 }, (i, j, s) => pairs.push([i, j, s]));
    expect(pairs.length).toBeGreaterThan(0);
    for (const [i, j, s] of pairs) {
      expect(i).toBeLessThan(j);
      // estimates this high are near-duplicates in fact
      expect(jaccard(c.a[i]!, c.a[j]!)).toBeGreaterThan(0.6);
      expect(s).toBeGreaterThanOrEqual(0.8);
    }
  });

  it("is deterministic for one seed and differs for another", () => {
    const items = A.slice(0, 200).map((text, k) => ({ id: `a${k}`, text }));
    const others = B.slice(0, 300).map((text, k) => ({ id: `b${k}`, text }));
    const r1 = findTextPairs(items, others, { perms: 32, threshold: 0.2 });
    const r2 = findTextPairs(items, others, { perms: 32, threshold: 0.2 });
    const r3 = findTextPairs(items, others, { perms: 32, threshold: 0.2, seed: 99 });
    expect(r1.pairs.length).toBeGreaterThan(10);
    expect(r2.pairs).toEqual(r1.pairs);
    expect(r3.pairs).not.toEqual(r1.pairs);
  });
});

describe("greedy one-to-one assignment", () => {
  it("takes pairs best first and skips any pair touching a taken paragraph", () => {
    const pairs = [
      { i: 0, j: 0, score: 0.5 }, { i: 0, j: 1, score: 0.9 }, { i: 1, j: 1, score: 0.8 }, { i: 1, j: 0, score: 0.4 }, { i: 2, j: 2, score: 0.4 },
    ];
    expect(greedyOneToOne(pairs, false)).toEqual([{ i: 0, j: 1, score: 0.9 }, { i: 1, j: 0, score: 0.4 }, { i: 2, j: 2, score: 0.4 }]);
    // one index space: (0,1) takes 0 and 1, so (1,2) is skipped
    expect(greedyOneToOne([{ i: 0, j: 1, score: 0.9 }, { i: 1, j: 2, score: 0.8 }, { i: 2, j: 3, score: 0.7 }], true))
      .toEqual([{ i: 0, j: 1, score: 0.9 }, { i: 2, j: 3, score: 0.7 }]);
  });

  it("gives each real paragraph at most one partner", () => {
    const r = findTextPairs(A.slice(0, 300).map((text, k) => ({ id: String(k), text })), B.slice(0, 500).map((text, k) => ({ id: String(k), text })), { perms: 64, threshold: 0.2, oneToOne: true, withExact: true });
    expect(r.pairs.length).toBeGreaterThan(20);
    expect(new Set(r.pairs.map((p) => p.i)).size).toBe(r.pairs.length);
    expect(new Set(r.pairs.map((p) => p.j)).size).toBe(r.pairs.length);
    for (const p of r.pairs) expect(p.exact).toBeGreaterThan(0);
  });
});
