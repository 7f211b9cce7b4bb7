import { describe, expect, it } from "vitest";
import { encodeCorpus } from "../../shared/minhash/corpus.ts";
import { exactPairs } from "../../shared/minhash/jaccard.ts";
import { estimatePairs } from "../../shared/minhash/permutaries.ts";
import { MinhashEvaluation, minhashPrfChart, minhashScatterChart, minhashScatterSpec, type ScatterPoint } from "../../shared/output/minhash-chart.ts";
import { MERCIER, verneParagraphs, WALTER } from "../minhash/verne.ts";

describe("min-hash charts", () => {
  it("renders the estimated-vs-exact scatter of real pairs as SVG, one panel per m", async () => {
    const c = encodeCorpus(verneParagraphs(MERCIER).slice(0, 100), verneParagraphs(WALTER).slice(0, 200));
    const pairs: [number, number][] = [];
    const exact: number[] = [];
    exactPairs(c, 0.15, (i, j, s) => { pairs.push([i, j]); exact.push(s); });
    const points: ScatterPoint[] = [16, 256].flatMap((perms) => [...estimatePairs(c, pairs, { perms })].map((estimate, n) => ({ perms, exact: exact[n]!, estimate })));
    const spec = minhashScatterSpec(points) as { facet: { column: { sort: string[] } } };
    expect(spec.facet.column.sort).toEqual(["16 permutaries", "256 permutaries"]);
    const svg = await minhashScatterChart(points);
    expect(svg).toMatch(/^<svg/);
    expect(svg).toContain("256 permutaries");
    expect(svg).toContain("estimated Jaccard");
    expect(svg).toMatch(/class="mark-symbol/);
    expect(MinhashEvaluation.parse({ corpus: "x", scatter: points, prfKey: [], prfExact: [] }).scatter).toHaveLength(points.length);
  });

  it("renders precision / recall / F by threshold", async () => {
    const svg = await minhashPrfChart([
      { method: "exact", threshold: 0.2, precision: 0.1, recall: 0.9, f: 0.18 },
      { method: "exact", threshold: 0.5, precision: 0.6, recall: 0.3, f: 0.4 },
      { method: "m = 256", threshold: 0.2, precision: 0.12, recall: 0.88, f: 0.21 },
      { method: "m = 256", threshold: 0.5, precision: 0.62, recall: 0.28, f: 0.39 },
    ]);
    expect(svg).toContain("m = 256");
    expect(svg).toContain("Jaccard threshold");
  });
});

describe("thinScatter", () => {
  it("keeps at most perBin points per (m, 0.05 bin of exact J), all of a sparse bin", async () => {
    const { thinScatter } = await import("../../shared/output/minhash-chart.ts");
    const dense = Array.from({ length: 1000 }, (_, k) => ({ perms: 64, exact: 0.1 + (k % 10) / 1000, estimate: 0.1 }));
    const sparse = [{ perms: 64, exact: 0.9, estimate: 0.88 }, { perms: 256, exact: 0.1, estimate: 0.1 }];
    const thin = thinScatter([...dense, ...sparse], 100);
    expect(thin.filter((p) => p.perms === 64 && p.exact < 0.15)).toHaveLength(100);
    expect(thin).toContainEqual(sparse[0]);
    expect(thin).toContainEqual(sparse[1]);
  });
});
