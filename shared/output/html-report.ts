/**
 * report.html: one self-contained page (inline CSS, inline SVG charts, no script, nothing fetched)
 * with what a researcher checks before using the datasets: which preset ran and whether the run is
 * complete, the funnel per tier with dropped examples, metric distributions, Δsem,syn, characteristic
 * maps (ours next to reference corpora) and pairs from each map cell. Sections whose data the pairs do
 * not carry are replaced by a one-line note. Every input-derived string goes through htmlText.
 */
import { funnelChart, histogramChart, mapsChart, scopeSvgIds } from "./charts.ts";
import { LEVEL_LABELS, MAP_LEVELS } from "../compare/characteristic-map.ts";
import { htmlText as h } from "./html-escape.ts";
import { referenceMismatch, type ReferenceMap } from "../compare/reference-maps.ts";
import type { SemanticScoring } from "../semantic/semantic-score.ts";
import { pivotLine, runTime, type FunnelRow, type Stats } from "./stats.ts";
import { tierInput } from "./documents-read.ts";
import type { PublishedPair } from "./tier-dataset.ts";
import { DELTA_METRIC, SAMPLES_PER_CELL, SYNTACTIC_AXIS, type TierSummary } from "./tier-summary.ts";

export interface HtmlReportInput {
  stats: Stats;
  preset: string | null;
  generated: string;
  elapsedSeconds: number | null;
  /** the run resumed an earlier one (its time leaves out the earlier run's) */
  resumed?: boolean;
  summaries: TierSummary[];
  references: ReferenceMap[];
  /** why the shipped MSRPC/PAWS maps are not among the references (one line), or null */
  referenceNote?: string | null;
  /** how the run scored its semantic axis (config.json), when recorded */
  runScoring?: SemanticScoring | null;
  /** files written next to the report, linked from it */
  files: string[];
  /** more sections, already HTML (their text escaped by their maker), appended in order with a nav link each */
  sections?: { id: string; title: string; html: string }[];
}

const fmt = (n: number | null | undefined) => (n === null || n === undefined ? "—" : n.toLocaleString("en-US"));
const score = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? "—" : x.toFixed(3));
const pct = (x: number) => `${(x * 100).toFixed(x > 0 && x < 0.1 ? 1 : 0)} %`;
const EXAMPLES_SHOWN = 3;

const METRIC_NOTES: Record<string, string> = {
  levenshtein: "word-level Levenshtein distance, normalised (higher = more different)",
  wordNgramOverlap: "word n-gram overlap, N = 4",
  lcpNgramOverlap: "longest-common-prefix n-gram overlap",
  bleuCordeiro: "Cordeiro's BLEU",
  sumo: "Sumo (α = β = 0.5, k = 3)",
  rouge1F: "ROUGE-1 F1",
  rougeLF: "ROUGE-L F1",
  bleu4: "BLEU-4 (Papineni, smoothed)",
  syntactic: "mean of ROUGE-1, ROUGE-L and BLEU-4 (the paper's syntactic similarity)",
  deltaSemSyn: "Δsem,syn = semantic − syntactic",
  vectorCosine: "cosine of the averaged word vectors",
  wordMoverSimilarity: "Word Mover's similarity, 1 − WMD/2",
  vectorOov: "share of the pair's words without a word vector (not a similarity)",
  semantic: "the pair's semantic score: mean of scoring.semantic",
};

export async function renderHtmlReport(input: HtmlReportInput): Promise<string> {
  const { stats, summaries } = input;
  const body: string[] = [];
  const withPairs = summaries.filter((s) => s.pairs > 0);
  const semantic = withPairs.find((s) => s.semantic)?.semantic?.metric ?? null;
  const hasDelta = withPairs.some((s) => s.histograms[DELTA_METRIC]);
  const metrics = unique(withPairs.flatMap((s) => s.metrics)).filter((m) => m !== DELTA_METRIC);
  const byTier = (m: string) => withPairs.filter((s) => s.histograms[m]).map((s) => ({ tier: s.tier, histogram: s.histograms[m]! }));
  const deltaByTier = byTier(DELTA_METRIC);
  const ours = withPairs.filter((s) => s.semantic).map((s) => ({ corpus: s.tier, map: s.semantic!.map }));
  const refs = input.references.map((r) => ({ corpus: r.corpus, map: r.map }));
  // Every chart is asked for before the first is awaited, so a chart thread (chart-thread.ts) draws them back to back.
  const charts = {
    funnels: Object.values(stats.tiers).map((t) => funnelChart(t.funnel)),
    metrics: withPairs.length === 0 ? [] : metrics.map((m) => histogramChart(m, byTier(m))),
    delta: !hasDelta || !semantic ? null : histogramChart(DELTA_METRIC, deltaByTier, { title: "Δsem,syn", zeroRule: true }),
    maps: ours.length === 0 ? (refs.length > 0 ? mapsChart(refs, "semantic") : null) : mapsChart([...ours, ...refs], semantic!),
  };
  // each is awaited below, in page order; a failed one fails the page there
  for (const c of [...charts.funnels, ...charts.metrics, charts.delta, charts.maps]) c?.catch(() => undefined);

  body.push(`<header><h1>paracap report</h1>`);
  body.push(`<p class="meta">Generated ${h(input.generated)}${runTime(input.elapsedSeconds, input.resumed === true)}. ${presetLine(input.preset)}</p>`);
  body.push(`<nav>${[["overview", "Overview"], ["funnel", "Funnel"], ["metrics", "Metric distributions"], ["delta", "Δsem,syn"], ["maps", "Characteristic maps"], ["samples", "Pairs per map cell"], ...(input.sections ?? []).map((s) => [h(s.id), h(s.title)])].map(([id, t]) => `<a href="#${id}">${t}</a>`).join(" · ")}</nav></header>`);

  const pivot = pivotLine(stats);
  body.push(`<section id="overview"><h2>Overview</h2>`, ...(pivot ? [`<p>${h(pivot)}</p>`] : []), overview(input), `</section>`);

  body.push(`<section id="funnel"><h2>Funnel per tier</h2><p class="note">What is left after each step, in references, captions and candidate pairs (log scale). Below the charts: each tier's full table (filters count in their own unit, in = kept + dropped) and examples of what each filter dropped.</p><div class="tiers-grid">`);
  for (const [i, [tier, t]] of Object.entries(stats.tiers).entries()) {
    body.push(`<div><h3>${h(tier)} <span class="sub">${h(t.input)} input · ${fmt(t.pairs)} pair${t.pairs === 1 ? "" : "s"}</span></h3>`);
    body.push(figure(`funnel-${tier}`, await charts.funnels[i]!, `Funnel of ${tier}: references, captions and candidate pairs left after each step.`), `</div>`);
  }
  body.push(`</div>`);
  for (const [i, [tier, t]] of Object.entries(stats.tiers).entries()) {
    body.push(`<details${i === 0 ? " open" : ""}><summary>${h(tier)}: funnel table and dropped examples</summary>${funnelTable(t.funnel)}${droppedExamples(t.funnel)}</details>`);
  }
  body.push(`</section>`);

  body.push(`<section id="metrics"><h2>Metric distributions</h2>`);
  if (withPairs.length === 0) body.push(note("No tier has pairs, so there are no metric distributions."));
  else {
    body.push(`<p class="note">Share of each tier's pairs per bin of width 0.05; μ ± σ per tier under each chart.${skipped(summaries)}</p>`, momentsTable(metrics, withPairs), `<div class="grid">`);
    for (const [i, m] of metrics.entries()) {
      body.push(figure(`metric-${m}`, await charts.metrics[i]!, `${m}${METRIC_NOTES[m] ? `: ${METRIC_NOTES[m]}` : ""}`));
    }
    body.push(`</div>`);
  }
  body.push(`</section>`);

  body.push(`<section id="delta"><h2>Δsem,syn</h2>`);
  if (!hasDelta || !semantic) body.push(note(`Not available: the pairs carry no ${!semantic ? "semantic metric" : "deltaSemSyn"} (enable a semantic scorer in scoring.scorers).`));
  else {
    body.push(`<p class="note">Semantic (${h(semanticLabel(semantic, input.runScoring ?? null))}) minus syntactic similarity per pair (paper §4): above 0, the captions mean more alike than they are worded alike — the pairs a paraphrase corpus wants.</p>`);
    body.push(figure("delta", await charts.delta!, `Δsem,syn per tier: ${deltaByTier.map(({ tier, histogram: x }) => `${tier} μ = ${x.mean.toFixed(3)} ± ${x.sd.toFixed(3)}`).join("; ")}.`));
  }
  body.push(`</section>`);

  body.push(`<section id="maps"><h2>Characteristic maps</h2>`);
  if (ours.length === 0) {
    body.push(note(`Not available for our tiers: the pairs carry no semantic metric next to ${SYNTACTIC_AXIS} (enable a semantic scorer in scoring.scorers).`));
    if (input.referenceNote) body.push(note(h(input.referenceNote)));
    if (refs.length > 0) {
      body.push(figure("maps", await charts.maps!, `Reference corpora only: ${refs.map((m) => `${m.corpus} (n = ${fmt(m.map.n)})`).join(", ")}`));
    }
  } else {
    const axis = semanticLabel(semantic!, input.runScoring ?? null);
    body.push(`<p class="note">Share of pairs per cell of syntactic level × semantic level (${h(axis)}), as in the paper's Figure 2; levels are [0, 0.2), [0.2, 0.4), … [0.8, 1]. Cells right of the diagonal hold pairs whose meaning is closer than their wording (Δsem,syn &gt; 0): paraphrases with varied wording; the top-right cell holds near-copies.${refs.length === 0 ? " Reference corpora are drawn alongside when given: <code>paracap report &lt;dir&gt; --reference &lt;summary.json&gt;</code> (e.g. the rows of <code>paracap compare --json</code>)." : ""}</p>`);
    if (input.runScoring?.vectors) body.push(`<p class="note">${bunching([...ours, ...refs])}</p>`);
    if (input.referenceNote) body.push(note(h(input.referenceNote)));
    const run = { metric: semantic!, scoring: input.runScoring ?? null };
    const mismatched = input.references.flatMap((r) => {
      const why = referenceMismatch(r, run);
      return why === null ? [] : [`${r.corpus} (${why})`];
    });
    if (mismatched.length > 0) body.push(note(h(`Reference maps on a different semantic score, not comparable cell by cell: ${mismatched.join(", ")}.`)));
    body.push(figure("maps", await charts.maps!, `Characteristic maps: ${[...ours, ...refs].map((m) => `${m.corpus} (n = ${fmt(m.map.n)})`).join(", ")}`));
  }
  body.push(`</section>`);

  body.push(`<section id="samples"><h2>Pairs per map cell</h2>`);
  if (ours.length === 0) {
    body.push(note("Not available without a semantic metric (see above); the first pairs of each tier instead."));
    for (const s of withPairs) body.push(firstPairs(s));
  } else for (const s of withPairs) if (s.semantic) body.push(cellSamples(s));
  body.push(`</section>`);
  for (const s of input.sections ?? []) body.push(s.html);

  return page(body.join("\n"), input.preset);
}

/** The semantic axis in words: the score's definition when the run's config records it. */
function semanticLabel(metric: string, scoring: SemanticScoring | null): string {
  return metric === "semantic" && scoring ? `semantic = ${scoring.semantic}` : metric;
}

/** Word-vector similarities sit near 1 even for loosely related texts: say where the pairs land, from the maps. */
function bunching(maps: { corpus: string; map: { shares: number[][] } }[]): string {
  const top = maps.map((m) => `${h(m.corpus)} ${pct(m.map.shares.reduce((s, row) => s + row[MAP_LEVELS - 1]!, 0))}`);
  return `Word-vector semantic scores bunch near 1, so most pairs of a paraphrase corpus fall in the top semantic level [0.8, 1] (share there: ${top.join(", ")}); compare the maps mainly by syntactic level.`;
}

function presetLine(preset: string | null): string {
  if (preset === "paper") return "Preset <b>paper</b>: the published rules exactly.";
  if (preset) return `Preset <b>${h(preset)}</b>${preset === "improved" ? " (the default; <code>{\"preset\": \"paper\"}</code> in a config file gives the published rules)" : ""}.`;
  return "Preset: not recorded (no config.json).";
}

function overview(input: HtmlReportInput): string {
  const { stats, summaries } = input;
  const out: string[] = [];
  const s = stats.shards;
  out.push(stats.complete
    ? `<p class="ok">✔ Complete: ${fmt(s.total)} shard${s.total === 1 ? "" : "s"} read to the end, no partition failed.</p>`
    : `<p class="bad">✘ Incomplete: ${fmt(s.ok)} of ${fmt(s.total)} shards read completely; ${s.corrupt.length} damaged, ${s.missing.length} missing, ${stats.failedTasks.length} failed partition${stats.failedTasks.length === 1 ? "" : "s"}. The datasets lack those pages.</p>`);
  if (s.corrupt.length > 0) out.push(`<table><tr><th>damaged shard</th><th>file</th><th class="n">at byte</th><th>error</th></tr>${s.corrupt.map((c) => `<tr><td><code>${h(c.shard)}</code></td><td><code>${h(c.file)}</code></td><td class="n">${fmt(c.offset)}</td><td>${h(c.error)}</td></tr>`).join("")}</table>`);
  if (s.missing.length > 0) out.push(`<p>Missing shards: ${s.missing.map((m) => `<code>${h(m)}</code>`).join(", ")}</p>`);
  if (stats.failedTasks.length > 0) out.push(`<p>Failed partitions: ${stats.failedTasks.map((m) => `<code>${h(m)}</code>`).join(", ")}</p>`);
  const byTier = new Map(summaries.map((x) => [x.tier, x]));
  out.push(`<table class="tiers"><tr><th>tier</th><th>input</th><th class="n">pairs</th><th class="n">images</th><th class="n">judged paraphrase</th><th>files</th></tr>`);
  for (const [tier, t] of Object.entries(stats.tiers)) {
    const last = t.funnel[t.funnel.length - 1];
    const p = byTier.get(tier)?.paraphrase;
    const files = input.files.filter((f) => f.startsWith(`${tier}.`));
    out.push(`<tr><td><span class="dot" style="background:${tierDot(tier)}"></span>${h(tier)}</td><td>${h(tierInput(stats.extraction, t.input))}</td><td class="n">${fmt(t.pairs)}</td><td class="n">${fmt(last?.images)}</td><td class="n">${p ? `${fmt(p.yes)} (${pct(p.yes / (p.yes + p.no))})` : "—"}</td><td>${files.map((f) => `<a href="${h(f)}">${h(f)}</a>`).join(" ")}</td></tr>`);
  }
  out.push(`</table>`);
  out.push(`<table><tr><th>input</th><th>kind</th><th class="n">shards</th><th>feeds</th></tr>${stats.inputs.map((i) => `<tr><td><code>${h(baseName(i.uri))}</code></td><td>${h(i.kind)}</td><td class="n">${fmt(i.shards)}</td><td>${h(i.tiers.join(", ") || "—")}</td></tr>`).join("")}</table>`);
  return out.join("\n");
}

function funnelTable(rows: FunnelRow[]): string {
  const head = `<tr><th class="n">#</th><th>step</th><th class="n">images</th><th class="n">references</th><th class="n">captions</th><th class="n">candidates</th><th class="n">dropped</th><th>because</th></tr>`;
  const body = rows.map((r) => {
    const reasons = Object.entries(r.filter?.reasons ?? {}).map(([k, n]) => `${h(k.replace(/_/g, " "))} ${fmt(n)}`).join(", ");
    return `<tr><td class="n">${r.step}</td><td>${h(r.label)}</td><td class="n">${fmt(r.images)}</td><td class="n">${fmt(r.references)}</td><td class="n">${fmt(r.captions)}</td><td class="n">${fmt(r.candidates)}</td><td class="n">${r.filter ? `${fmt(r.filter.dropped)} <span class="unit">${h(r.unit ?? "")}</span>` : ""}</td><td class="reason">${reasons}</td></tr>`;
  }).join("");
  return `<table class="funnel-table">${head}${body}</table>`;
}

function droppedExamples(rows: FunnelRow[]): string {
  const items: string[] = [];
  for (const r of rows) {
    for (const [reason, examples] of Object.entries(r.filter?.examples ?? {})) {
      items.push(`<li><b>${h(r.label)}</b> — ${h(reason.replace(/_/g, " "))}:<ul>${examples.slice(0, EXAMPLES_SHOWN).map((e) => `<li class="caption">“${h(e)}”</li>`).join("")}</ul></li>`);
    }
  }
  if (items.length === 0) return "";
  return `<p class="sub">Dropped, for example (a deterministic sample per filter and reason):</p><ul class="dropped">${items.join("")}</ul>`;
}

function momentsTable(metrics: string[], summaries: TierSummary[]): string {
  const head = `<tr><th>metric</th>${summaries.map((s) => `<th class="n">${h(s.tier)} μ ± σ</th>`).join("")}</tr>`;
  const rows = metrics.map((m) => `<tr><td>${h(m)}</td>${summaries.map((s) => {
    const x = s.histograms[m];
    return `<td class="n">${x ? `${x.mean.toFixed(3)} ± ${x.sd.toFixed(3)}` : "—"}</td>`;
  }).join("")}</tr>`);
  return `<table class="moments">${head}${rows.join("")}</table>`;
}

function skipped(summaries: TierSummary[]): string {
  const empty = summaries.filter((s) => s.pairs === 0).map((s) => s.tier);
  const missing = summaries.flatMap((s) => Object.entries(s.missing).map(([m, n]) => `${s.tier}: ${fmt(n)} pair${n === 1 ? "" : "s"} without ${m}`));
  return (empty.length > 0 ? ` No pairs in ${h(empty.join(", "))}, so ${empty.length === 1 ? "it is" : "they are"} not drawn.` : "") + (missing.length > 0 ? ` ${h(missing.join("; "))}.` : "");
}

function cellSamples(s: TierSummary): string {
  const v = s.semantic!;
  const rows: string[] = [];
  // high syntactic first, then high semantic: the order of the heatmap read top-left to bottom-right
  for (let i = MAP_LEVELS - 1; i >= 0; i--) {
    for (let j = MAP_LEVELS - 1; j >= 0; j--) {
      const pairs = v.cells[i]![j]!;
      pairs.forEach((p, k) => rows.push(sampleRow(p, v.metric, k === 0 ? `<td rowspan="${pairs.length}" class="cell">syn ${LEVEL_LABELS[i]}<br>sem ${LEVEL_LABELS[j]}<br><span class="unit">${pct(v.map.shares[i]![j]!)} of pairs</span></td>` : "")));
    }
  }
  return `<details${s.tier === "gold" ? " open" : ""}><summary>${h(s.tier)}: up to ${SAMPLES_PER_CELL} pairs from each non-empty cell (the first by id)</summary><table class="samples"><tr><th>cell</th><th>image</th><th>caption a</th><th>caption b</th><th class="n">syn</th><th class="n">sem</th><th class="n">Δ</th><th>para&shy;phrase</th></tr>${rows.join("")}</table></details>`;
}

function firstPairs(s: TierSummary): string {
  const rows = s.first.map((p) => `<tr><td class="image">${h(p.image)}<br><span class="unit">${h(p.type)}</span></td><td><span class="caption">“${h(p.a.text)}”</span><br><span class="page">${h(p.a.page)}</span></td><td><span class="caption">“${h(p.b.text)}”</span><br><span class="page">${h(p.b.page)}</span></td><td class="n">${score(p.metrics[SYNTACTIC_AXIS])}</td></tr>`);
  return `<details open><summary>${h(s.tier)}: the first ${s.first.length} pair${s.first.length === 1 ? "" : "s"} by id</summary><table class="samples"><tr><th>image</th><th>caption a</th><th>caption b</th><th class="n">syn</th></tr>${rows.join("")}</table></details>`;
}

function sampleRow(p: PublishedPair, semantic: string, cell: string): string {
  const side = (x: PublishedPair["a"]) => `<span class="caption">“${h(x.text)}”</span><br><span class="page">${h(x.page)}</span>`;
  return `<tr>${cell}<td class="image">${h(p.image)}<br><span class="unit">${h(p.type)}</span></td><td>${side(p.a)}</td><td>${side(p.b)}</td><td class="n">${score(p.metrics[SYNTACTIC_AXIS])}</td><td class="n">${score(p.metrics[semantic])}</td><td class="n">${score(p.metrics[DELTA_METRIC])}</td><td>${p.paraphrase === undefined ? "—" : p.paraphrase ? "yes" : "no"}</td></tr>`;
}

function figure(id: string, svg: string, caption: string): string {
  return `<figure class="chart" data-chart="${h(id)}">${scopeSvgIds(svg, `chart-${id}`)}<figcaption>${h(caption)}</figcaption></figure>`;
}

function note(text: string): string {
  return `<p class="absent">${text}</p>`;
}

function tierDot(tier: string): string {
  return ({ gold: "#c9a227", silver: "#8a8f98", bronze: "#a0522d" } as Record<string, string>)[tier] ?? "#4c78a8";
}

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

/** The file name of an input: the run's local paths say nothing to a reader and need not be published. */
export function baseName(uri: string): string {
  return uri.replace(/\/+$/, "").split(/[\\/]/).pop() ?? uri;
}

const CSS = `
:root{color-scheme:light}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#222;margin:0;background:#fafafa}
main{max-width:1280px;margin:0 auto;padding:16px 28px 48px;background:#fff}
h1{margin:8px 0 4px;font-size:24px}h2{margin:28px 0 8px;padding-top:8px;border-top:1px solid #e4e4e4;font-size:19px}h3{margin:18px 0 6px;font-size:15px}
.sub,.unit{color:#666;font-weight:normal;font-size:12px}.meta{color:#444;margin:0 0 6px}nav a{color:#2a5db0;text-decoration:none}
.note{color:#444;max-width:900px}.absent{color:#666;font-style:italic}
.ok{color:#1b6e2a;font-weight:600}.bad{color:#b00020;font-weight:600}
table{border-collapse:collapse;margin:6px 0 10px;font-size:12.5px}th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
th{background:#f3f3f3;font-weight:600}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.dot{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:6px}
.tiers-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(600px,1fr));gap:0 24px}.funnel-table td.reason{max-width:200px;color:#555}
figure{margin:4px 0 12px}figcaption{font-size:12px;color:#555;max-width:720px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(600px,1fr));gap:6px 18px}
svg{max-width:100%;height:auto}
details{margin:6px 0 12px}summary{cursor:pointer;color:#2a5db0}
ul.dropped{font-size:12.5px}li.caption,.caption{color:#333}
table.samples{width:100%}table.samples td{font-size:12.5px}td.cell{white-space:nowrap;background:#f7f9fc}td.image{max-width:160px;word-break:break-word;color:#555}
.page{color:#777;font-size:11.5px}code{font-size:12px;background:#f3f3f3;padding:0 3px;border-radius:3px}
`;

function page(body: string, preset: string | null): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>paracap report${preset ? ` (${h(preset)})` : ""}</title>
<style>${CSS}</style>
</head>
<body><main>
${body}
</main></body>
</html>
`;
}
