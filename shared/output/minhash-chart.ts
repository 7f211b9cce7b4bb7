/**
 * Charts of the min-hash evaluation (scripts/bench/minhash.ts writes the data): estimated vs exact
 * Jaccard per paragraph pair, one panel per number of permutaries (the paper's Figures 4 and 5), and
 * precision / recall / F by threshold (Figures 6–9). Vega-Lite specs, rendered like the report's
 * other charts (charts.ts: SVG at build time, nothing fetched when viewed).
 */
import type { TopLevelSpec } from "vega-lite";
import { z } from "zod";
import { renderSvg } from "./charts.ts";

export const ScatterPoint = z.strictObject({ perms: z.int().positive(), exact: z.number().min(0).max(1), estimate: z.number().min(0).max(1) });
export type ScatterPoint = z.infer<typeof ScatterPoint>;

export const PrfPoint = z.strictObject({
  /** "exact" or "m = 256" */
  method: z.string(),
  threshold: z.number(),
  precision: z.number().min(0).max(1),
  recall: z.number().min(0).max(1),
  f: z.number().min(0).max(1),
});
export type PrfPoint = z.infer<typeof PrfPoint>;

/** The JSON the bench writes (and a report may read). */
export const MinhashEvaluation = z.object({
  corpus: z.string(),
  scatter: z.array(ScatterPoint),
  /** against the automatic alignment key */
  prfKey: z.array(PrfPoint),
  /** against the exact method's pairs at the same threshold */
  prfExact: z.array(PrfPoint),
}).loose();
export type MinhashEvaluation = z.infer<typeof MinhashEvaluation>;

/**
 * At most `perBin` points per (m, exact-Jaccard bin of 0.05), taken evenly in input order: most pairs
 * have a low J, so an unthinned cloud is tens of thousands of SVG circles (megabytes in the page)
 * that hide the high-J tail the chart is about.
 */
export function thinScatter(points: readonly ScatterPoint[], perBin = 50): ScatterPoint[] {
  const bins = new Map<string, ScatterPoint[]>();
  for (const p of points) {
    const key = `${p.perms}:${Math.min(19, Math.floor(p.exact * 20))}`;
    let bin = bins.get(key);
    if (!bin) bins.set(key, (bin = []));
    bin.push(p);
  }
  const out: ScatterPoint[] = [];
  for (const bin of bins.values()) {
    const step = Math.max(1, bin.length / perBin);
    for (let x = 0; x < bin.length; x += step) out.push(bin[Math.floor(x)]!);
  }
  return out;
}

/** Estimated (x) vs exact (y) Jaccard, one small-multiple per m, with the diagonal; points thinned by thinScatter. */
export function minhashScatterSpec(points: readonly ScatterPoint[], perBin = 50): TopLevelSpec {
  const perms = [...new Set(points.map((p) => p.perms))].sort((a, b) => a - b);
  return {
    data: { values: thinScatter(points, perBin).map((p) => ({ ...p, panel: `${p.perms} permutaries` })) },
    facet: { column: { field: "panel", type: "nominal", sort: perms.map((m) => `${m} permutaries`), title: null } },
    spec: {
      width: 220,
      height: 220,
      layer: [
        {
          mark: { type: "circle", size: 6, opacity: 0.35, color: "#4c78a8" },
          encoding: {
            x: { field: "estimate", type: "quantitative", scale: { domain: [0, 1] }, title: "estimated Jaccard" },
            y: { field: "exact", type: "quantitative", scale: { domain: [0, 1] }, title: "Jaccard" },
          },
        },
        {
          data: { values: [{ x: 0, y: 0 }, { x: 1, y: 1 }] },
          mark: { type: "line", color: "#e45756", strokeDash: [4, 3], strokeWidth: 1 },
          encoding: { x: { field: "x", type: "quantitative" }, y: { field: "y", type: "quantitative" } },
        },
      ],
    },
  } as TopLevelSpec;
}

/** Precision, recall and F by threshold, one panel per method. */
export function minhashPrfSpec(points: readonly PrfPoint[]): TopLevelSpec {
  const methods = [...new Set(points.map((p) => p.method))];
  const values = points.flatMap((p) => (["precision", "recall", "f"] as const).map((measure) => ({ method: p.method, threshold: p.threshold, measure, value: p[measure] })));
  return {
    data: { values },
    facet: { column: { field: "method", type: "nominal", sort: methods, title: null } },
    spec: {
      width: 160,
      height: 140,
      mark: { type: "line", point: { size: 12 } },
      encoding: {
        x: { field: "threshold", type: "quantitative", scale: { domain: [0, 1] }, title: "Jaccard threshold" },
        y: { field: "value", type: "quantitative", scale: { domain: [0, 1] }, title: null, axis: { format: ".0%" } },
        color: { field: "measure", type: "nominal", sort: ["precision", "recall", "f"], scale: { range: ["#4c78a8", "#f58518", "#54a24b"] }, legend: { orient: "top", title: null } },
      },
    },
  } as TopLevelSpec;
}

export function minhashScatterChart(points: readonly ScatterPoint[], perBin = 50): Promise<string> {
  return renderSvg(minhashScatterSpec(points, perBin));
}

export function minhashPrfChart(points: readonly PrfPoint[]): Promise<string> {
  return renderSvg(minhashPrfSpec(points));
}
