/**
 * The index's tasks read only the hashes written to them: tasks that see only the hashes
 * `tasksNeeding` sends them together find every pair brute force finds, each once, and with many
 * tasks a task reads a fraction of the hashes.
 */
import { describe, expect, it } from "vitest";
import { candidateEdges, distanceAt, packHashes, type HashedItem } from "../../shared/pixels/hash-index.ts";
import { hashToHex } from "../../shared/pixels/hashes.ts";
import { indexLayout, pairwiseSliceEdges, tasksNeeding } from "../../shared/pixels/index-slices.ts";
import { mulberry32 as rng } from "../seeded-random.ts";

/** Clusters of near duplicates (≤ spread bits from a centre), keyed by their hex value (distinct). */
function clustered(n: number, spread: number, seed: number): HashedItem[] {
  const next = rng(seed);
  const random64 = () => (BigInt(next()) << 32n) | BigInt(next());
  const byHex = new Map<string, bigint>();
  while (byHex.size < n) {
    const centre = random64();
    for (let c = 1 + (next() % 5); c > 0 && byHex.size < n; c--) {
      let h = centre;
      for (let f = next() % (spread + 1); f > 0; f--) h ^= 1n << BigInt(next() % 64);
      byHex.set(hashToHex(h), h);
    }
  }
  return [...byHex].map(([key, hash]) => ({ key, hash }));
}

/** Edges of one task's slices as pairs of keys. */
function taskEdges(items: readonly HashedItem[], k: number, tasks: number, q: number): string[] {
  const p = packHashes(items);
  const { plan, slices } = indexLayout(k, tasks);
  const out: string[] = [];
  for (let s = q; s < slices.length; s += tasks) {
    const { chunk, count, index } = slices[s]!;
    for (const e of candidateEdges(p, plan, chunk, { count, index })) out.push(`${p.keys[e.a]} ${p.keys[e.b]} ${e.distance}`);
  }
  return out.sort();
}

describe("the index's tasks read only the hashes written to them", () => {
  it.each([
    [8, 4],
    [8, 32],
    [3, 16],
  ])("threshold %i over %i tasks: the tasks, each over its own hashes only, find brute force's pairs, each once", (k, tasks) => {
    const items = clustered(1500, k, 5 + tasks);
    const layout = indexLayout(k, tasks);
    const mine = Array.from({ length: tasks }, () => [] as HashedItem[]);
    for (const it of items) for (const q of tasksNeeding(it.hash, layout)) mine[q]!.push(it);
    const all: string[] = [];
    for (let q = 0; q < tasks; q++) {
      // with nothing missing and nothing twice in the union, every task found exactly its edges
      all.push(...taskEdges(mine[q]!, k, tasks, q));
    }
    const p = packHashes(items);
    const brute: string[] = [];
    for (let a = 0; a < p.keys.length; a++) for (let b = a + 1; b < p.keys.length; b++) if (distanceAt(p, a, b) <= k) brute.push(`${p.keys[a]} ${p.keys[b]} ${distanceAt(p, a, b)}`);
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort()).toEqual(brute.sort());
    expect(brute.length).toBeGreaterThan(300);
  });

  it("the plan does not depend on the run's size; with many tasks a task reads a fraction of the hashes", () => {
    expect(indexLayout(8, 64).plan.chunks.map((c) => c.width)).toEqual([22, 21, 21]);
    const items = clustered(4000, 8, 3);
    const share = (k: number, tasks: number) => {
      const layout = indexLayout(k, tasks);
      const reads = items.reduce((s, it) => s + tasksNeeding(it.hash, layout).length, 0);
      return reads / (items.length * tasks);
    };
    // 4 tasks: 2 slices per chunk, both within r = 2 of any value: every task reads everything
    expect(share(8, 4)).toBe(1);
    // 64 tasks: 32 slices per chunk, a value within r = 2 top bits of 16 of them; 256 tasks: 29 of 128
    expect(share(8, 64)).toBeLessThan(0.8);
    expect(share(8, 256)).toBeLessThan(0.45);
    expect(share(3, 256)).toBeLessThan(0.05);
  });

  it.each([
    [8, 4],
    [10, 16],
    [2, 64],
  ])("small inputs (threshold %i, %i tasks): comparing every pair gives each slice's edges in candidateEdges' order", (k, tasks) => {
    const p = packHashes(clustered(600, k, 17 + k));
    const layout = indexLayout(k, tasks);
    const mine = layout.slices.map((_, s) => s).filter((s) => s % tasks === 1 % tasks);
    const pairwise = pairwiseSliceEdges(p, layout, mine);
    let total = 0;
    for (const s of mine) {
      const { chunk, count, index } = layout.slices[s]!;
      expect(pairwise.get(s), `slice ${s}`).toEqual(candidateEdges(p, layout.plan, chunk, { count, index }));
      total += pairwise.get(s)!.length;
    }
    expect(total).toBeGreaterThan(0);
  });
});
