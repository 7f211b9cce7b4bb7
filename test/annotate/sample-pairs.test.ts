/** The annotation sample: deterministic, seeded, stratified by Δsem,syn or map cell, proportional. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { allocate, samplePairs, stratumOf } from "../../shared/annotate/sample-pairs.ts";
import { stableId } from "../../shared/core/hash.ts";
import { wordTokens } from "../../shared/metrics/word-tokens.ts";
import { levelOf } from "../../shared/compare/characteristic-map.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";
import { annotationDataset, jsonl } from "./dataset.ts";

afterAll(removeTempDirs);

describe("allocate", () => {
  it("shares places in proportion (largest remainders) and moves what a small stratum cannot take", () => {
    expect(allocate([50, 30, 20], 10)).toEqual([5, 3, 2]);
    expect(allocate([2, 2, 96], 50)).toEqual([1, 1, 48]);
    // 6 × (5, 1, 1)/7 = 4.29, 0.86, 0.86: floors 4, 0, 0 and the two largest remainders
    expect(allocate([5, 1, 1], 6)).toEqual([4, 1, 1]);
    // 10 × (1, 100)/101: 0.099 and 9.9 → 0 and 10
    expect(allocate([1, 100], 10)).toEqual([0, 10]);
    expect(allocate([1, 3], 4)).toEqual([1, 3]);
    expect(allocate([1, 3], 99)).toEqual([1, 3]);
    expect(allocate([4, 4], null)).toEqual([4, 4]);
    for (const n of [1, 7, 33, 99]) expect(allocate([40, 3, 0, 57, 1], n).reduce((a, b) => a + b, 0)).toBe(n);
  });
});

describe("samplePairs", () => {
  const dir = tempDir("paracap-sample-");
  const { gold, silver } = annotationDataset(dir);
  const all = [...gold, ...silver];

  it("without strata: the N pairs with the smallest hash of (seed, id), from a folder's tiers, gzip or not", async () => {
    const s = await samplePairs(dir, { n: 10, stratify: null, seed: "1" });
    expect(s.read).toBe(300);
    expect(s.sources).toEqual(["gold.jsonl.gz", "silver.jsonl"]);
    const expected = [...all].sort((a, b) => (stableId("1", a.id) < stableId("1", b.id) ? -1 : 1)).slice(0, 10).map((p) => p.id);
    expect(s.pairs.map((p) => p.pair.id)).toEqual(expected);
    expect(s.pairs.map((p) => p.tier)).toEqual(expected.map((id) => id.split("-")[0]));
    // another seed, another sample
    const t = await samplePairs(dir, { n: 10, stratify: null, seed: "2" });
    expect(t.pairs.map((p) => p.pair.id)).not.toEqual(expected);
  });

  it("stratified by Δsem,syn: every stratum gets its proportional share, the same whatever the file order", async () => {
    const s = await samplePairs(dir, { n: 40, stratify: "delta", seed: "paper" });
    expect(s.pairs).toHaveLength(40);
    const strata = Object.entries(s.strata);
    expect(strata.reduce((a, [, [n]]) => a + n, 0)).toBe(300);
    expect(strata.map(([, [, k]]) => k)).toEqual(allocate(strata.map(([, [n]]) => n), 40));
    expect(strata.length).toBeGreaterThan(3);
    for (const p of s.pairs) {
      const d = p.pair.metrics.deltaSemSyn!;
      const lo = Number(/\[(-?[\d.]+),/.exec(p.stratum)![1]);
      expect(d).toBeGreaterThanOrEqual(lo - 1e-9);
      expect(d).toBeLessThan(lo + 0.1 + 1e-9);
    }
    // the same pairs from one file with the lines reversed
    const one = join(tempDir(), "mixed.jsonl");
    writeFileSync(one, jsonl([...all].reverse()));
    const r = await samplePairs(one, { n: 40, stratify: "delta", seed: "paper" });
    expect(r.pairs.map((p) => p.pair.id)).toEqual(s.pairs.map((p) => p.pair.id));
    expect(r.datasetDir).toBe(join(one, ".."));
  });

  it("stratified by map cell: the cell of (syntactic, semantic = syntactic + Δ)", async () => {
    const s = await samplePairs(dir, { n: 25, stratify: "map-cell", seed: "1" });
    expect(s.pairs).toHaveLength(25);
    for (const p of s.pairs) {
      const m = p.pair.metrics;
      expect(p.stratum).toBe(`syn-${levelOf(m.syntactic!)}/sem-${levelOf(m.bagOfWordsCosine!)}`);
    }
    expect(Object.values(s.strata).reduce((a, [, k]) => a + k, 0)).toBe(25);
  });

  it("a pair in two tiers is one pair; pairs without the metrics are counted and left out; none with them is an error", async () => {
    const d = tempDir();
    const noDelta = gold.slice(0, 5).map((p) => ({ ...p, metrics: { syntactic: p.metrics.syntactic! } }));
    writeFileSync(join(d, "gold.jsonl"), jsonl([...gold.slice(5, 20), ...noDelta]));
    writeFileSync(join(d, "silver.jsonl"), jsonl(gold.slice(5, 20).map((p) => ({ ...p, tier: "silver" }))));
    const s = await samplePairs(d, { n: 100, stratify: "delta", seed: "1" });
    expect([s.read, s.unstratifiable, s.pairs.length]).toEqual([20, 5, 15]);
    expect(new Set(s.pairs.map((p) => p.tier))).toEqual(new Set(["gold"]));
    writeFileSync(join(d, "only.jsonl"), jsonl(noDelta));
    await expect(samplePairs(join(d, "only.jsonl"), { n: 3, stratify: "delta", seed: "1" })).rejects.toThrow(/deltaSemSyn/);
    await expect(samplePairs(join(d, "nothing"), { n: 3, stratify: null, seed: "1" })).rejects.toThrow(/no such file/);
    await expect(samplePairs(tempDir(), { n: 3, stratify: null, seed: "1" })).rejects.toThrow(/no gold\/silver\/bronze/);
  });

  it("--words keeps pairs whose captions both have min to max words (the paper's 10 to 30)", async () => {
    const s = await samplePairs(dir, { n: 300, stratify: "delta", seed: "1", words: [10, 30] });
    const n = (t: string) => wordTokens(t).length;
    const inside = all.filter((p) => [p.a.text, p.b.text].every((t) => n(t) >= 10 && n(t) <= 30));
    expect(inside.length).toBeGreaterThan(50);
    expect(inside.length).toBeLessThan(300);
    expect(s.outOfLength).toBe(300 - inside.length);
    expect(new Set(s.pairs.map((p) => p.pair.id))).toEqual(new Set(inside.map((p) => p.id)));
  });

  it("stratumOf: Δ bins of width 0.1, closed at 1", () => {
    const p = (deltaSemSyn: number) => ({ ...gold[0]!, metrics: { syntactic: 0.3, deltaSemSyn } });
    expect(stratumOf(p(0.05), "delta")).toBe("Δ [0.0, 0.1)");
    expect(stratumOf(p(-0.05), "delta")).toBe("Δ [-0.1, 0.0)");
    expect(stratumOf(p(1), "delta")).toBe("Δ [0.9, 1.0]");
    expect(stratumOf(p(0.2), "map-cell")).toBe("syn-1/sem-2");
  });
});
