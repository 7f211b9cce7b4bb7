/**
 * The min-hash section of report.html: estimated vs exact Jaccard, drawn with minhash-chart.ts.
 * Two sources, either or both: the pairs of a run whose pivot was min-hash (each carries its
 * estimate and exact Jaccard in `pivot`), and `minhash.json` in the folder (a MinhashEvaluation,
 * written by `paracap minhash --evaluation <dir>` or scripts/bench/minhash.ts). Every string from the
 * input goes through htmlText; an unreadable minhash.json is a one-line note, never a failed report.
 */
import type { BlobStore } from "../io/blob-store.ts";
import { scopeSvgIds } from "./charts.ts";
import { htmlText as h } from "./html-escape.ts";
import { MinhashEvaluation, minhashPrfChart, minhashScatterChart, type ScatterPoint } from "./minhash-chart.ts";
import type { Stats } from "./stats.ts";
import { readTier } from "./tier-dataset.ts";

export const MINHASH_JSON = "minhash.json";

export interface ReportSection { id: string; title: string; html: string }

/** Scatter points kept from a run's pairs: thinned per bin for the chart anyway, so memory stays bounded. */
const MAX_RUN_POINTS = 20_000;

function figure(id: string, svg: string, caption: string): string {
  return `<figure class="chart" data-chart="${h(id)}">${scopeSvgIds(svg, `chart-${id}`)}<figcaption>${h(caption)}</figcaption></figure>`;
}

/** The run's min-hash pairs as scatter points (m from stats.json), at most MAX_RUN_POINTS of them, and how many there were. */
async function runPoints(store: BlobStore, stats: Stats, objects: readonly string[]): Promise<{ points: ScatterPoint[]; pairs: number; perms: number } | null> {
  if (stats.pivot?.name !== "minhash") return null;
  const settings = stats.pivot.settings as { minhash?: { perms?: unknown } } | undefined;
  const perms = typeof settings?.minhash?.perms === "number" ? settings.minhash.perms : 64;
  const points: ScatterPoint[] = [];
  let pairs = 0;
  for (const name of objects) {
    for await (const p of readTier(store, name, { trusted: true })) {
      const m = (p as { pivot?: { estimate?: unknown; jaccard?: unknown } }).pivot;
      if (typeof m?.estimate !== "number" || typeof m.jaccard !== "number") continue;
      pairs++;
      if (points.length < MAX_RUN_POINTS) points.push({ perms, estimate: m.estimate, exact: m.jaccard });
    }
  }
  return { points, pairs, perms };
}

export async function minhashSections(store: BlobStore, stats: Stats, tierObjects: readonly string[]): Promise<ReportSection[]> {
  const parts: string[] = [];
  const run = await runPoints(store, stats, tierObjects);
  if (run) {
    const settings = stats.pivot?.settings as { minhash?: { threshold?: unknown; verify?: unknown } } | undefined;
    const t = settings?.minhash?.threshold, verify = settings?.minhash?.verify;
    parts.push(`<h3>This run's min-hash pairs</h3>`);
    if (run.pairs === 0) parts.push(`<p class="absent">The min-hash pivot ran, but no pair reached the datasets.</p>`);
    else {
      parts.push(`<p class="note">${h(`Each pair's estimated Jaccard (agreeing min-hashes of ${run.perms}) against its exact word-set Jaccard, ${run.pairs.toLocaleString("en-US")} pairs of the datasets${run.points.length < run.pairs ? ` (the first ${run.points.length.toLocaleString("en-US")} drawn)` : ""}; threshold t = ${String(t)}, verification ${String(verify)}${verify === "exact" ? " (exact Jaccard ≥ t: every point is at or above t on the vertical axis)" : " (estimate ≥ t, the paper's rule)"}.`)}</p>`);
      parts.push(figure("minhash-run", await minhashScatterChart(run.points), `Estimated vs exact Jaccard of this run's min-hash pairs (m = ${run.perms}); dashed: equality.`));
    }
  }
  const text = await store.readText(MINHASH_JSON);
  if (text !== null) {
    let parsed;
    try {
      parsed = MinhashEvaluation.safeParse(JSON.parse(text));
    } catch {
      parsed = null;
    }
    parts.push(`<h3>Min-hash evaluation</h3>`);
    if (!parsed?.success) parts.push(`<p class="absent">${h(`${MINHASH_JSON} is not a min-hash evaluation (rerun paracap minhash --evaluation); not shown.`)}</p>`);
    else {
      const e = parsed.data;
      parts.push(`<p class="note">${h(`${e.corpus}: estimated against exact Jaccard per pair, one panel per number of permutaries (Chung & Knight's Figures 4–5).`)}</p>`);
      if (e.scatter.length > 0) parts.push(figure("minhash-scatter", await minhashScatterChart(e.scatter), "Estimated vs exact Jaccard; dashed: equality."));
      const prf = e.prfKey.length > 0 ? { points: e.prfKey, what: "against the answer key" } : { points: e.prfExact, what: "against the exact method's pairs at the same threshold" };
      if (prf.points.length > 0) parts.push(figure("minhash-prf", await minhashPrfChart(prf.points), `Precision, recall and F by threshold, ${prf.what}.`));
    }
  }
  if (parts.length === 0) return [];
  return [{ id: "minhash", title: "Min-hash", html: `<section id="minhash"><h2>Min-hash: estimated vs exact Jaccard</h2>\n${parts.join("\n")}\n</section>` }];
}
