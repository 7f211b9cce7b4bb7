/**
 * The report's charts: Vega-Lite specs compiled to Vega and rendered to SVG in Node at build time
 * (renderer "none": no canvas, no DOM), so the page inlines finished SVG and fetches nothing when
 * viewed. Text in the SVG is escaped by Vega's SVG writer; charts carry no caption text anyway.
 */
import type { TopLevelSpec } from "vega-lite";
import { LEVEL_LABELS, MAP_LEVELS, type CharacteristicMap } from "../compare/characteristic-map.ts";
import { toolCacheDir } from "../io/tool-cache-dir.ts";
import { chartLibraryVersions, openChartStore } from "./chart-store.ts";
import { drawChart } from "./chart-thread.ts";
import type { FunnelRow } from "./stats.ts";
import type { Histogram } from "./tier-summary.ts";

const FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";
const CONFIG = {
  font: FONT,
  view: { stroke: "#ddd" },
  axis: { labelFontSize: 11, titleFontSize: 11, titleFontWeight: "normal" as const, labelColor: "#333", titleColor: "#333" },
  legend: { labelFontSize: 11, titleFontSize: 11 },
  header: { labelFontSize: 12, titleFontSize: 12 },
  title: { fontSize: 13, anchor: "start" as const },
};
export const TIER_COLORS: Record<string, string> = { gold: "#c9a227", silver: "#8a8f98", bronze: "#a0522d" };
const OTHER_COLORS = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2"];

/**
 * Vega lays out axes and legends by text width; without a canvas (Node) it estimates 0.8 em per
 * character, about 1.5× a sans-serif's real width, which leaves wide empty margins and cuts labels
 * early. This per-class estimate (advance widths of DejaVu Sans, the widest common sans default, so labels are never cut) is what Vega's user-defined
 * `textMetrics.width` hook is for (vl-convert does the same); it is a process-wide library setting,
 * identical for every caller, so setting it on load is safe.
 */
function sansWidth(text: string, size: number): number {
  let em = 0;
  for (const c of text) {
    if (/[ilj.,:;'|!Iíì]/.test(c)) em += 0.3;
    else if (c === " " || /[ftr()[\]\-]/.test(c)) em += 0.38;
    else if (/[mwMW%@]/.test(c)) em += 0.95;
    else if (/[A-Z]/.test(c)) em += 0.72;
    else em += 0.63;
  }
  return Math.ceil(em * size);
}
/** Vega measures text with a canvas it does not have here: the estimate above instead. */
function measureTextWithoutCanvas(vega: typeof import("vega")): void {
  (vega as unknown as { textMetrics: { width: (item: { fontSize?: number; text?: unknown }, text?: unknown) => number } }).textMetrics.width = (item, text) => {
    const t = text ?? item.text;
    const lines = Array.isArray(t) ? t.map(String) : [String(t ?? "")];
    return Math.max(0, ...lines.map((l) => sansWidth(l, item.fontSize ?? 11)));
  };
}

/**
 * An SVG's own ids (clip paths, gradients) renamed `<scope>-<n>` in order of appearance, with the
 * references to them. Vega numbers them with process-wide counters, so the same chart rendered
 * twice in one process (a second run, a test) would differ, and two charts inlined in one page
 * must not share an id: the scope is the chart's name in the page.
 */
export function scopeSvgIds(svg: string, scope: string): string {
  const ids = [...new Set([...svg.matchAll(/\bid="([^"]+)"/g)].map((m) => m[1]!))];
  if (ids.length === 0) return svg;
  const renamed = new Map(ids.map((id, i) => [id, `${scope}-${i}`]));
  const escaped = ids.map((id) => id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).sort((a, b) => b.length - a.length);
  const ref = new RegExp(`(\\bid="|#)(${escaped.join("|")})(?=["')])`, "g");
  return svg.replace(ref, (_, lead: string, id: string) => `${lead}${renamed.get(id)}`);
}

/**
 * vega and vega-lite, imported on the first chart rendered: their modules are a large share of a
 * small run's start-up, and most processes that import this file (worker threads, commands that
 * write no report) never draw a chart. The promise is kept so they load once.
 */
let chartLibraries: Promise<[typeof import("vega"), typeof import("vega-lite")]> | null = null;
function chartLibs(): Promise<[typeof import("vega"), typeof import("vega-lite")]> {
  return (chartLibraries ??= Promise.all([import("vega"), import("vega-lite")]).then((libs) => {
    measureTextWithoutCanvas(libs[0]);
    return libs;
  }));
}

/**
 * Loads vega and vega-lite and draws one chart of each kind on made-up figures (kept nowhere), so the
 * report's charts run code that is already loaded and compiled: the first chart of a process costs several
 * times a later one (~0.15 s of module loading, then V8 compiling vega's code as it first runs: a report
 * drew its 16 charts in ~0.35 s after loading, ~0.2 s once warm). The chart thread does it as it starts
 * (chart-thread.ts). The SVGs it draws are dropped; vega's id counters move on, which the report's SVGs
 * do not show (scopeSvgIds renames every id).
 */
export async function warmUpCharts(stop: () => boolean = () => false): Promise<void> {
  const bins = (n: number) => Array.from({ length: n }, (_, i) => ({ start: i / n, end: (i + 1) / n, count: i % 3 }));
  const specs = [
    funnelSpec([1, 2, 3].map((step) => ({ step, label: `step ${step}`, references: 10 ** (4 - step), captions: 10 ** (3 - step), candidates: step === 3 ? 0 : 10 }))),
    histogramSpec("warm-up", [{ tier: "bronze", histogram: { bins: bins(20), n: 19 } }], {}),
    histogramSpec("warm-up", [{ tier: "bronze", histogram: { bins: bins(40), n: 39 } }], { zeroRule: true }),
    mapsSpec([{ corpus: "warm-up", map: { n: 2, shares: Array.from({ length: MAP_LEVELS }, (_, i) => Array.from({ length: MAP_LEVELS }, (_, j) => (i === j && i < 2 ? 0.5 : 0))) } }], "semantic"),
  ];
  for (const spec of specs) {
    await renderUncached(spec);
    if (stop()) return; // real charts wait: they warm the code as well as made-up ones
  }
}

/**
 * SVGs of the specs rendered last, by spec: rendering is a pure function of the spec, and compiling
 * and running Vega costs ~0.05 s a chart, paid again whenever one process writes a report twice (a
 * rerun, `paracap report`, a warm cloud instance, the test suite). Bounded: the oldest entry goes.
 * Behind it, the chart store (chart-store.ts) keeps them on disk for the next process.
 */
const RENDERED_MAX = 32;
const rendered = new Map<string, Promise<string>>();

export function renderSvg(spec: TopLevelSpec): Promise<string> {
  const key = JSON.stringify(spec);
  const hit = rendered.get(key);
  if (hit) return hit;
  const svg = renderStored(key, spec);
  rendered.set(key, svg);
  if (rendered.size > RENDERED_MAX) rendered.delete(rendered.keys().next().value!);
  // a failed render is not remembered
  svg.catch(() => rendered.delete(key));
  return svg;
}

/** Forgets the SVGs this process remembers, so the next ones are drawn (or read from the chart store) again. */
export function forgetRenderedCharts(): void {
  rendered.clear();
}

/** Everything besides the spec and the libraries that decides an SVG: this file's settings and drawing code. */
const RENDERER = [JSON.stringify(CONFIG), sansWidth, measureTextWithoutCanvas, renderUncached].map(String).join("\n");
let libraryVersions: string | null | undefined;

async function renderStored(key: string, spec: TopLevelSpec): Promise<string> {
  const store = openChartStore(toolCacheDir(), RENDERER, (libraryVersions ??= chartLibraryVersions()));
  const stored = store?.read(key);
  if (stored) return stored;
  const svg = await drawChart(spec, () => renderUncached(spec));
  store?.write(key, svg);
  return svg;
}

/**
 * Whether the charts of a run with this fingerprint (same inputs and configuration, hence the same figures)
 * went into the chart store: its report would then read them all back, and a chart thread would only load
 * vega for nothing. Kept in the store beside the SVGs (same keying by renderer and versions, same pruning);
 * an SVG pruned meanwhile is simply drawn again.
 */
export function chartsStoredFor(fingerprint: string): boolean {
  return openChartStore(toolCacheDir(), RENDERER, (libraryVersions ??= chartLibraryVersions()))?.read(runKey(fingerprint)) === RUN_STORED;
}

/** Notes that the charts of this run are in the chart store (see chartsStoredFor). */
export function rememberChartsStored(fingerprint: string): void {
  openChartStore(toolCacheDir(), RENDERER, (libraryVersions ??= chartLibraryVersions()))?.write(runKey(fingerprint), RUN_STORED);
}

const RUN_STORED = "<!-- the charts of this run are stored -->";
const runKey = (fingerprint: string) => `run ${fingerprint}`;

/** Renders without the memo: vega's id counters move on between two renders of one spec (tests). */
export async function renderUncached(spec: TopLevelSpec): Promise<string> {
  const [vega, { compile }] = await chartLibs();
  const { spec: vg } = compile({ ...spec, config: { ...CONFIG, ...(spec.config ?? {}) } } as TopLevelSpec);
  const view = new vega.View(vega.parse(vg), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

function tierColor(tiers: string[]) {
  return { domain: tiers, range: tiers.map((t, i) => TIER_COLORS[t] ?? OTHER_COLORS[i % OTHER_COLORS.length]!) };
}

/** The count a funnel row is about, in its own unit (the first row counts references). */
export function funnelMeasures(rows: Pick<FunnelRow, "step" | "label" | "references" | "captions" | "candidates">[]): { step: string; order: number; measure: string; value: number }[] {
  const out: { step: string; order: number; measure: string; value: number }[] = [];
  for (const r of rows) {
    const step = `${r.step}. ${shorten(r.label, 50)}`;
    if (r.references !== null) out.push({ step, order: r.step, measure: "references", value: r.references });
    if (r.captions !== null) out.push({ step, order: r.step, measure: "captions", value: r.captions });
    if (r.candidates !== null) out.push({ step, order: r.step, measure: "candidate pairs", value: r.candidates });
  }
  return out;
}

/** Cut at a word boundary: Vega measures text by estimate in Node, so long labels would be cut mid-word. */
function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), max - 12)).replace(/[,;(\s]+$/, "")}…`;
}

/** Horizontal grouped bars per funnel step, log scale (counts fall by orders of magnitude). */
export function funnelChart(rows: FunnelRow[]): Promise<string> {
  return renderSvg(funnelSpec(rows));
}

function funnelSpec(rows: Pick<FunnelRow, "step" | "label" | "references" | "captions" | "candidates">[]): TopLevelSpec {
  const values = funnelMeasures(rows);
  const max = Math.max(1, ...values.map((v) => v.value));
  const ticks = Array.from({ length: Math.ceil(Math.log10(max)) + 1 }, (_, i) => 10 ** i);
  return {
    data: { values },
    width: 300,
    height: { step: 6 },
    // zeros are shown as bars to 0.5 so that an emptied step stays visible on the log axis
    transform: [{ calculate: "max(datum.value, 0.5)", as: "plotted" }],
    mark: { type: "bar", tooltip: false },
    encoding: {
      y: { field: "step", type: "nominal", sort: { field: "order", op: "min" }, title: null, axis: { labelLimit: 500, labelFontSize: 10 } },
      yOffset: { field: "measure", sort: ["references", "captions", "candidate pairs"] },
      x: { field: "plotted", type: "quantitative", scale: { type: "log", domainMin: 0.5 }, title: "count (log scale)", axis: { format: "~s", values: ticks } },
      // a log axis has no zero: bars start at the axis' left end
      x2: { datum: 0.5 },
      color: { field: "measure", type: "nominal", sort: ["references", "captions", "candidate pairs"], scale: { range: ["#4c78a8", "#72b7b2", "#f58518"] }, legend: { orient: "top", title: null } },
    },
  } as TopLevelSpec;
}

/** One metric's histogram, tiers side by side, y = share of the tier's pairs (tiers differ in size). */
export function histogramChart(metric: string, byTier: { tier: string; histogram: Histogram }[], opts: { title?: string; zeroRule?: boolean } = {}): Promise<string> {
  return renderSvg(histogramSpec(metric, byTier, opts));
}

function histogramSpec(metric: string, byTier: { tier: string; histogram: Pick<Histogram, "bins" | "n"> }[], opts: { title?: string; zeroRule?: boolean }): TopLevelSpec {
  const values = byTier.flatMap(({ tier, histogram }) => histogram.bins.map((b) => ({ tier, start: b.start, end: b.end, share: histogram.n === 0 ? 0 : b.count / histogram.n, count: b.count })));
  const tiers = byTier.map((t) => t.tier);
  // scores live in [0, 1], Δsem,syn in [−1, 1]; a value outside widens the axis rather than vanish
  const lo = Math.min(opts.zeroRule ? -1 : 0, ...values.map((v) => v.start));
  const hi = Math.max(1, ...values.map((v) => v.end));
  const bars = {
    mark: { type: "bar" as const, binSpacing: 0.5 },
    encoding: {
      x: { field: "start", type: "quantitative" as const, bin: { binned: true, step: 0.05 }, scale: { domain: [lo, hi] }, title: opts.title ?? metric, axis: { format: ".1~f", values: axisTicks(lo, hi) } },
      x2: { field: "end" },
      y: { field: "share", type: "quantitative" as const, axis: { format: ".0%" }, title: "share of pairs" },
      color: { field: "tier", type: "nominal" as const, scale: tierColor(tiers), legend: null },
    },
  };
  const layer = opts.zeroRule ? [bars, { data: { values: [{ x: 0 }] }, mark: { type: "rule" as const, color: "#555", strokeDash: [3, 3] }, encoding: { x: { field: "x", type: "quantitative" as const } } }] : [bars];
  return {
    data: { values },
    facet: { column: { field: "tier", type: "nominal", sort: tiers, title: null } },
    spec: { width: 170, height: 90, layer },
    resolve: { scale: { y: "independent" } },
  } as TopLevelSpec;
}

function axisTicks(lo: number, hi: number): number[] {
  const step = hi - lo > 1.5 ? 0.5 : 0.2;
  const out: number[] = [];
  for (let x = Math.ceil(lo / step) * step; x <= hi + 1e-9; x += step) out.push(Math.round(x * 10) / 10);
  return out;
}

/** "0–.2" … ".8–1": the levels of LEVEL_LABELS, short enough for a 40-pixel cell */
const SHORT_LEVELS = LEVEL_LABELS.map((_, i) => `${fmtLevel(i / MAP_LEVELS)}–${fmtLevel((i + 1) / MAP_LEVELS)}`);
function fmtLevel(x: number): string {
  return x === 0 || x === 1 ? String(x) : String(x).replace(/^0/, "");
}

/** A cell's share as its label: empty for none, "<0.1%" for a few pairs of a large corpus (never a misleading "0.0%"). */
export function shareLabel(share: number): string {
  if (share === 0) return "";
  if (share < 0.001) return "<0.1%";
  return `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`;
}

/**
 * Characteristic maps as heatmaps, one panel per corpus: rows syntactic level (high at top), columns semantic level.
 * `semanticTitle` names the semantic axis under each 190-pixel panel: keep it short (the page's note defines it).
 */
export function mapsChart(maps: { corpus: string; map: CharacteristicMap }[], semanticTitle: string): Promise<string> {
  return renderSvg(mapsSpec(maps, semanticTitle));
}

function mapsSpec(maps: { corpus: string; map: Pick<CharacteristicMap, "n" | "shares"> }[], semanticTitle: string): TopLevelSpec {
  // n in the panel's header: a 100 % cell of one pair and one of thousands look alike
  const panel = ({ corpus, map }: { corpus: string; map: Pick<CharacteristicMap, "n"> }) => `${corpus} · n = ${map.n.toLocaleString("en-US")}`;
  const values = maps.flatMap(({ corpus, map }) =>
    Array.from({ length: MAP_LEVELS }, (_, i) => Array.from({ length: MAP_LEVELS }, (_, j) => ({ corpus: panel({ corpus, map }), syn: SHORT_LEVELS[i]!, sem: SHORT_LEVELS[j]!, share: map.shares[i]![j]!, label: shareLabel(map.shares[i]![j]!) }))).flat());
  const corpora = maps.map(panel);
  return {
    data: { values },
    facet: { column: { field: "corpus", type: "nominal", sort: corpora, title: null, header: { labelLimit: 240, labelExpr: "split(datum.label, ' · ')" } } },
    spec: {
      width: 190,
      height: 190,
      encoding: {
        x: { field: "sem", type: "ordinal", sort: SHORT_LEVELS, title: `${semanticTitle} level`, axis: { labelAngle: 0, labelFontSize: 9 } },
        y: { field: "syn", type: "ordinal", sort: [...SHORT_LEVELS].reverse(), title: "syntactic level", axis: { labelFontSize: 9 } },
      },
      layer: [
        { mark: { type: "rect", stroke: "#fff", strokeWidth: 1 }, encoding: { color: { condition: { test: "datum.share === 0", value: "#f2f2f2" }, field: "share", type: "quantitative", scale: { type: "sqrt", domain: [0, Math.max(0.01, ...values.map((v) => v.share))], range: ["#ffffff", "#08519c"] }, legend: { title: "share of pairs", format: ".0%", gradientLength: 150 } } } },
        { mark: { type: "text", fontSize: 10 }, encoding: { text: { field: "label" }, color: { condition: { test: `datum.share > ${0.45 * Math.max(0.01, ...values.map((v) => v.share))}`, value: "white" }, value: "#222" } } },
      ],
    },
  } as TopLevelSpec;
}
