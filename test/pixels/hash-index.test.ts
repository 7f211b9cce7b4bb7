/**
 * The near-duplicate index: exact recall against brute force (pigeonhole), partitioned tasks give the
 * same edges with none twice, groups are deterministic, identical hashes collapse, and the chaining
 * guard splits a component whose ends are too far apart.
 */
import { mulberry32 as rng } from "../seeded-random.ts";
import { describe, expect, it } from "vitest";
import { candidateEdges, distanceAt, groupNearDuplicates, nearDuplicateEdges, packHashes, planIndex, type HashedItem } from "../../shared/pixels/hash-index.ts";


/** `n` hashes: clusters of near duplicates (≤ spread bits from a centre) and noise. */
function clustered(n: number, spread: number, seed = 7): HashedItem[] {
  const next = rng(seed);
  const random64 = () => (BigInt(next()) << 32n) | BigInt(next());
  const out: HashedItem[] = [];
  while (out.length < n) {
    const centre = random64();
    const size = 1 + (next() % 5);
    for (let c = 0; c < size && out.length < n; c++) {
      let h = centre;
      for (let f = next() % (spread + 1); f > 0; f--) h ^= 1n << BigInt(next() % 64);
      out.push({ key: `k${String(out.length).padStart(5, "0")}`, hash: h });
    }
  }
  return out;
}

function bruteForcePairs(items: HashedItem[], k: number): string[] {
  const p = packHashes(items);
  const pairs: string[] = [];
  for (let a = 0; a < p.keys.length; a++) for (let b = a + 1; b < p.keys.length; b++) if (distanceAt(p, a, b) <= k) pairs.push(`${a}-${b}`);
  return pairs;
}

describe("multi-index hashing", () => {
  it("plans chunks that cover the 64 bits, with the probe radius of the pigeonhole", () => {
    for (const [k, n] of [[8, 1_000_000], [8, 1000], [3, 50_000], [12, 100_000], [0, 10]] as const) {
      const plan = planIndex(k, n);
      expect(plan.chunks.reduce((s, c) => s + c.width, 0)).toBe(64);
      expect(plan.radius).toBe(Math.floor(k / plan.chunks.length));
      expect(Math.max(...plan.chunks.map((c) => c.width))).toBeLessThanOrEqual(24);
    }
    expect(planIndex(8, 1_000_000).chunks.map((c) => c.width)).toEqual([22, 21, 21]);
    expect(() => planIndex(40, 10)).toThrow(/threshold/);
  });

  it.each([2, 5, 8, 11])("finds every pair within %i bits that brute force finds, each once", (k) => {
    const items = clustered(2500, k);
    const p = packHashes(items);
    const edges = nearDuplicateEdges(p, planIndex(k, p.keys.length));
    const got = edges.map((e) => `${e.a}-${e.b}`);
    expect(new Set(got).size).toBe(got.length);
    expect(got.sort()).toEqual(bruteForcePairs(items, k).sort());
    for (const e of edges) expect(e.distance).toBe(distanceAt(p, e.a, e.b));
    expect(edges.length).toBeGreaterThan(500);
  });

  it("partitioned tasks (chunk × top bits of its value) together find exactly the unpartitioned edges", () => {
    const items = clustered(3000, 8, 11);
    const p = packHashes(items);
    const plan = planIndex(8, p.keys.length);
    const whole = nearDuplicateEdges(p, plan).map((e) => `${e.a}-${e.b}-${e.distance}`);
    for (const count of [2, 8, 32]) {
      const parts: string[] = [];
      for (let c = 0; c < plan.chunks.length; c++) for (let index = 0; index < count; index++) for (const e of candidateEdges(p, plan, c, { count, index })) parts.push(`${e.a}-${e.b}-${e.distance}`);
      expect(parts.sort(), `${count} partitions`).toEqual([...whole].sort());
    }
    expect(() => candidateEdges(p, plan, 0, { count: 3, index: 0 })).toThrow(/partition/);
  });
});

describe("groupNearDuplicates", () => {
  it("is deterministic: the same groups whatever the input order", () => {
    const items = clustered(2000, 4, 3);
    const a = groupNearDuplicates(items, { threshold: 4 });
    const shuffled = [...items].reverse();
    shuffled.push(shuffled.shift()!);
    expect(groupNearDuplicates(shuffled, { threshold: 4 })).toEqual(a);
    expect(a.groups.length).toBeGreaterThan(100);
    for (const g of a.groups) {
      expect(g.members.map((m) => m.key)).toEqual([...g.members.map((m) => m.key)].sort());
      expect(g.members.some((m) => m.key === g.centre && m.distance === 0)).toBe(true);
      expect(g.diameter).toBeLessThanOrEqual(8);
    }
  });

  it("collapses identical hashes: 5 copies and one near copy are one group, nothing quadratic", () => {
    const h = 0x0123456789abcdefn;
    const items = [...Array.from({ length: 5 }, (_, i) => ({ key: `same${i}`, hash: h })), { key: "near", hash: h ^ 0b1011n }, { key: "far", hash: ~h & 0xffffffffffffffffn }];
    const { groups, stats } = groupNearDuplicates(items, { threshold: 4 });
    expect(groups).toEqual([
      { centre: "same0", diameter: 3, members: [{ key: "near", distance: 3 }, ...Array.from({ length: 5 }, (_, i) => ({ key: `same${i}`, distance: 0 }))] },
    ]);
    expect(stats).toMatchObject({ items: 7, edges: 1, components: 1, groups: 1, groupedItems: 6, splitComponents: 0 });
  });

  it("splits a chain whose ends are farther apart than 2 × threshold, and counts the split", () => {
    // a0 — a1 — a2 — a3, each step 4 bits (threshold 4); a0…a3 are 12 bits apart
    let h = 0n;
    const chain: HashedItem[] = [];
    for (let i = 0; i < 4; i++) {
      chain.push({ key: `a${i}`, hash: h });
      h ^= 0xfn << BigInt(4 * i);
    }
    chain.push({ key: "a1x", hash: chain[1]!.hash ^ 1n }); // a1 has most neighbours
    const { groups, stats } = groupNearDuplicates(chain, { threshold: 4 });
    expect(stats.splitComponents).toBe(1);
    expect(groups.map((g) => [g.centre, g.members.map((m) => m.key)])).toEqual([
      ["a1", ["a0", "a1", "a1x", "a2"]],
    ]);
    expect(stats.splitSingletons).toBe(1); // a3: its only neighbour went to a1's group
    for (const g of groups) expect(g.diameter).toBeLessThanOrEqual(8);
    // with a looser bound nothing is split
    expect(groupNearDuplicates(chain, { threshold: 4, maxDiameter: 16 }).groups).toHaveLength(1);
  });

  it("a maxDiameter below 2 × threshold holds in every group, split ones included", () => {
    // a centre with two neighbours 3 bits away on disjoint bits: 6 apart from each other, no edge between them at k = 4
    const c = 0n;
    const items = [{ key: "c", hash: c }, { key: "a", hash: 0b111n }, { key: "b", hash: 0b111000n }, { key: "c2", hash: 1n << 40n }];
    const { groups, stats } = groupNearDuplicates(items, { threshold: 4, maxDiameter: 4 });
    expect(stats.splitComponents).toBe(1);
    for (const g of groups) expect(g.diameter).toBeLessThanOrEqual(4);
    expect(groups.map((g) => g.members.map((m) => m.key))).toEqual([["a", "c", "c2"]]);
    // random clusters: the bound holds in every group for bounds from k to 2k
    for (const maxDiameter of [4, 5, 6, 7, 8]) {
      for (const g of groupNearDuplicates(clustered(400, 4, 11), { threshold: 4, maxDiameter }).groups) expect(g.diameter).toBeLessThanOrEqual(maxDiameter);
    }
  });

  it("refuses two items with one key", () => {
    expect(() => groupNearDuplicates([{ key: "x", hash: 1n }, { key: "x", hash: 2n }], { threshold: 2 })).toThrow(/duplicate key/);
  });
});
