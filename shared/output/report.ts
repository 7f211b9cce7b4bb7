/**
 * report.md: the funnel tables (as in the paper's Table 3), what each filter dropped, and sample pairs.
 * Every value that comes from the input (names, titles, captions, error text) goes through
 * markdown-escape.ts: it renders as inert text and cannot break a table line.
 */
import * as names from "../core/counter-names.ts";
import { BUILTIN_SOURCES, type SourceRegistry } from "../sources/registry.ts";
import type { InputKind, ScoredPair } from "../core/records.ts";
import { mdCode, mdText } from "./markdown-escape.ts";
import { pivotLine, runTime, type FunnelRow, type Stats } from "./stats.ts";
import { MAX_USES_ID } from "../pipeline/filters.ts";
import { countedDocuments, documentsRead, tierInput } from "./documents-read.ts";

const fmt = (n: number | null) => (n === null ? "—" : n.toLocaleString("en-US"));
const delta = (cur: number | null, prev: number | null) =>
  cur === null || prev === null || prev === 0 ? "" : ` (${(((cur - prev) / prev) * 100).toFixed(1)} %)`;

const COLUMNS_NOTE =
  "Each row counts what is still in the funnel after that row's filter. **images**: distinct images " +
  "(**≥2** / **≥5**: of those, with at least 2 / 5 references); **references**: image uses (history input: " +
  "one per revision that has the use); **μ**: references per image; **captions**: caption and alt-text " +
  "entries of those references; **candidates**: the pairs those captions form, Σ per image and caption type " +
  "of C(n, 2) over distinct uses (identical uses repeated across revisions count once) — at the “distinct " +
  "references” row these are exactly the pairs built; on the pair rows, the pairs kept. The percentage is the " +
  "change from the row above. **Table 3**: the step of the paper's funnel the row implements; in parentheses, " +
  "a rule that is not the paper's (ours or the thesis's) placed in that step. “—”: not " +
  "counted for that row (pairs are deduplicated by text across images, so per-image columns are only " +
  "recounted on the final dataset).";

export function renderReport(stats: Stats, samples: Record<string, ScoredPair[]>, meta: { generated: string; elapsedSeconds: number | null; resumed?: boolean; preset?: string; sources?: SourceRegistry }): string {
  const out: string[] = [];
  out.push("# paracap report", "");
  out.push(`Generated ${meta.generated}${runTime(meta.elapsedSeconds, meta.resumed === true)}.`, "");
  if (meta.preset) out.push(...methodLines(meta.preset, stats.counters), "");
  const pivot = pivotLine(stats);
  if (pivot) out.push(pivot, "");
  out.push("| tier | input | pairs |", "|---|---|---:|");
  for (const [tier, t] of Object.entries(stats.tiers)) out.push(`| ${tier} | ${tierInput(stats.extraction, t.input, meta.sources)} | ${fmt(t.pairs)} |`);
  out.push("");
  out.push("## Inputs", "", "| input | kind | shards | feeds tiers |", "|---|---|---:|---|");
  for (const i of stats.inputs) out.push(`| ${mdCode(i.uri, { inTable: true })} | ${i.kind} | ${i.shards} | ${i.tiers.join(", ") || "—"} |`);
  out.push("");
  const s = stats.shards;
  out.push(`Shards: ${s.total}; read completely: ${s.ok}; damaged: ${s.corrupt.length}; missing: ${s.missing.length}.` +
    (stats.complete ? " The run is complete." : " **The run is incomplete**: the datasets lack the damaged pages, those of the missing shards, or of the failed partitions."));
  if (s.corrupt.length > 0) {
    out.push("", "**Damaged shards** (a damaged bz2 block loses only its own pages, the rest of the shard is read; damaged XML or gzip loses the rest of its shard; a damaged WARC record loses only its own page, a WARC not fetched all of its pages, a tar cut short the samples after the cut, a damaged parquet file the rows it could not read):", "");
    out.push("| shard | file | damage at (decompressed byte) | error |", "|---|---|---:|---|");
    for (const c of s.corrupt) out.push(`| ${mdCode(c.shard, { inTable: true })} | ${mdCode(c.file, { inTable: true })} | ${fmt(c.offset)} | ${mdText(c.error)} |`);
  }
  if (s.missing.length > 0) {
    out.push("", "**Missing shards** (never finished; their pages are not in the datasets):", "");
    for (const m of s.missing) out.push(`- ${mdCode(m)}`);
  }
  if (stats.failedTasks.length > 0) {
    out.push("", "**Failed partitions** (dead-lettered; the images or pairs hashed to them are not in the datasets):", "");
    for (const t of stats.failedTasks) out.push(`- ${mdCode(t)}`);
  }

  out.push("", "## Extraction", "");
  out.push(...accounting(stats, meta.sources ?? BUILTIN_SOURCES), "");
  out.push("| counter | value |", "|---|---:|");
  for (const [k, v] of Object.entries(stats.extraction)) out.push(`| ${k} | ${fmt(v)} |`);
  out.push(...extractionExampleLines(stats));
  out.push(...pixelIdentityLines(stats.counters));

  for (const [tier, t] of Object.entries(stats.tiers)) {
    out.push("", `## ${tier} (${t.input} input): ${counted(t.pairs, "pair")}`, "");
    out.push(...funnelMarkdown(t.funnel));
    out.push("", "Filters (each counts in its own unit; in = kept + dropped):", "");
    out.push("| # | filter | unit | in | kept | dropped | dropped because |", "|---:|---|---|---:|---:|---:|---|");
    for (const row of t.funnel) {
      if (!row.filter) continue;
      const reasons = Object.entries(row.filter.reasons).map(([r, n]) => `${r.replace(/_/g, " ")} ${fmt(n)}`).join(", ") || "—";
      out.push(`| ${row.step} | \`${row.id}\` | ${row.unit} | ${fmt(row.filter.in)} | ${fmt(row.filter.kept)} | ${fmt(row.filter.dropped)} | ${reasons} |`);
    }
    out.push(...droppedExamples(t.funnel));
    const sample = samples[tier] ?? [];
    if (sample.length > 0) {
      out.push("", `Sample pairs (the first ${sample.length} by id):`, "");
      for (const p of sample) {
        out.push(`- **${mdText(p.image)}** (${mdText(p.type)}; syntactic ${(p.metrics.syntactic ?? NaN).toFixed(2)})`);
        out.push(`  - “${mdText(p.a.text)}” — *${mdText(p.a.page)}*`);
        out.push(`  - “${mdText(p.b.text)}” — *${mdText(p.b.page)}*`);
      }
    }
  }
  out.push("", "## How to read the funnel", "", COLUMNS_NOTE, "");
  return out.join("\n");
}

/** "1 pair", "2 pairs", "1,234 pairs". */
function counted(n: number, word: string): string {
  return `${fmt(n)} ${word}${n === 1 ? "" : "s"}`;
}

/** Which preset ran, and what the paper's rule would have done where the default differs from it. */
function methodLines(preset: string, c: Record<string, number>): string[] {
  const lines = [preset === "paper"
    ? "Method: `preset: paper`, the published rules exactly."
    : "Method: `preset: improved` (the default). For the published rules exactly, run with a config file holding `{\"preset\": \"paper\"}`."];
  for (const tier of ["gold", "silver", "bronze"]) {
    const refs = c[names.paperRuleDroppedCounter(tier, MAX_USES_ID, "references")];
    if (refs === undefined) continue;
    const images = c[names.paperRuleDroppedCounter(tier, MAX_USES_ID, "images")] ?? 0;
    lines.push(`${tier}: the bound counted distinct uses; the paper's rule (every revision's use a reference) would have dropped ${fmt(images)} image${images === 1 ? "" : "s"} with ${fmt(refs)} reference${refs === 1 ? "" : "s"} here.`);
  }
  return lines;
}

/** A few dropped records per filter and reason, so a reader can judge each filter by eye. */
function droppedExamples(rows: FunnelRow[]): string[] {
  const out: string[] = [];
  for (const row of rows) {
    for (const [reason, examples] of Object.entries(row.filter?.examples ?? {})) {
      out.push(`- \`${row.id}\` dropped (${reason.replace(/_/g, " ")}):`);
      for (const e of examples.slice(0, EXAMPLES_SHOWN)) out.push(`  - ${inlineText(e)}`);
    }
  }
  return out.length > 0 ? ["", "Dropped, for example (a deterministic sample per reason):", "", ...out] : [];
}

const EXAMPLES_SHOWN = 3;

/** Input text as one inert markdown line. */
/** A dropped example, quoted: escaped exactly once, like every other value (a caption "&lt;b&gt;" shows as written). */
function inlineText(text: string): string {
  return `“${mdText(text)}”`;
}

/** What the pixel pipeline decided (runs with a pixel pivot; none otherwise). */
function pixelIdentityLines(c: Record<string, number>): string[] {
  const p = names.PIXEL_IDENTITY_PREFIX;
  const mode = Object.keys(c).find((k) => k.startsWith(`${p}mode.`))?.slice(`${p}mode.`.length);
  if (mode === undefined) return [];
  const n = (k: string) => fmt(c[`${p}${k}`] ?? 0);
  const failed = Object.entries(c).filter(([k]) => k.startsWith(`${p}failed.`)).map(([k, v]) => `${k.slice(`${p}failed.`.length)} ${fmt(v)}`);
  // images whose header alone put them outside the thesis' bounds (never decoded): part of the count too
  const outside = Object.entries(c).filter(([k]) => k.startsWith(`${p}outside_bounds.`)).map(([k, v]) => `${k.slice(`${p}outside_bounds.`.length)} ${fmt(v)}`);
  // decoded, then outside the bounds (no hash indexed): decoded = hashes + these
  const after = Object.entries(c).filter(([k]) => k.startsWith(`${p}decoded_outside_bounds.`)).map(([k, v]) => [k.slice(`${p}decoded_outside_bounds.`.length), v] as const);
  const afterTotal = after.reduce((a, [, v]) => a + v, 0);
  const rule = mode === "md5" ? "the same decoded pixels (MD5)" : `${mode} within ${n("threshold")} of 64 bits, no two members of a group more than ${n("max_diameter")} apart`;
  return [
    "",
    "## Image identity from pixels",
    "",
    `- Identity: ${rule}.`,
    `- ${n("images")} images looked at: ${n("decoded")} decoded${afterTotal > 0 ? ` (${fmt(afterTotal)} of them then outside the bounds: ${after.map(([r, v]) => `${r} ${fmt(v)}`).join(", ")})` : ""}, ${n("no_bytes")} without bytes${outside.length ? `, outside the bounds by their header (not decoded): ${outside.join(", ")}` : ""}${failed.length ? `, not decoded: ${failed.join(", ")}` : ""}.`,
    ...(mode === "md5" ? [] : [`- Index: ${n("index.hashes")} hashes, ${n("index.edges")} pairs within the threshold, groups: ${n("index.groups")} (holding ${n("index.grouped_images")} images); ${n("index.split_components")} components split by the chaining guard (${n("index.split_singletons")} images left alone).`]),
  ];
}

/**
 * One-line accounting of every document read (each source says what it read), and of the references
 * found per input kind: its documents in their sources' words; under a text pivot, the references
 * read and the copies the extract stage made of them, one per key.
 */
function accounting(stats: Stats, sources: SourceRegistry): string[] {
  const x = stats.extraction;
  const lines: string[] = [];
  const n = (name: string) => x[name] ?? 0;
  const withPrefix = (prefix: string) => Object.entries(x).filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v] as const);
  // the sources in reverse detection order: the general ones (dumps) first, as the report always listed them
  for (const source of [...sources.all()].reverse()) lines.push(...source.reportLines(x));
  for (const kind of ["current", "history"] as const satisfies readonly InputKind[]) {
    const read = documentsRead(x, kind, sources);
    if (read.length === 0) continue;
    const bySource = withPrefix(names.extractReferencesBySourcePrefix(kind)).map(([source, v]) => `${source} ${fmt(v)}`);
    const tooBig = withPrefix(names.extractSkippedPrefix(kind));
    const skippedNote = tooBig.length > 0 ? ` (not parsed: ${tooBig.map(([r, v]) => `${r} ${fmt(v)}`).join(", ")})` : "";
    const references = n(names.extractCounter(kind, "references"));
    const keyed = stats.pivot ? stats.counters[names.pivotReferencesCounter(stats.pivot.name, kind)] : undefined;
    const found = keyed === undefined
      ? `${fmt(references)} image references`
      : `${fmt(keyed)} image references, ${fmt(references)} copies under the ${stats.pivot!.name} pivot's keys`;
    lines.push(`- ${kind} input: ${countedDocuments(read)}${skippedNote} → ${found}` +
      (bySource.length > 0 ? ` (${bySource.join(", ")})` : "") + `, ${fmt(n(names.extractCounter(kind, "shuffle_records")))} shuffle records (a page's identical uses collapsed).`);
  }
  return lines;
}

/** A row of a source's caption filter, before extraction (stats.ts sourceFilterRows). */
const isSourceRow = (r: FunnelRow) => r.label.startsWith("before extraction");

function funnelMarkdown(rows: FunnelRow[]): string[] {
  const lines = ["| # | Table 3 | step | images | ≥2 | ≥5 | references | μ | captions | candidates |", "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"];
  let prev: FunnelRow | null = null;
  for (const r of rows) {
    // a source's caption filter counts that source's captions only: no change from it to the tier's first row
    if (prev !== null && isSourceRow(prev) && !isSourceRow(r)) prev = null;
    lines.push(`| ${r.step} | ${r.in_paper === false ? `(${r.paper_step})` : r.paper_step} | ${r.label} | ${fmt(r.images)}${delta(r.images, prev?.images ?? null)} | ${fmt(r.images_ge2)} | ${fmt(r.images_ge5)} | ${fmt(r.references)}${delta(r.references, prev?.references ?? null)} | ${r.mean_refs_per_image ?? "—"} | ${fmt(r.captions)}${delta(r.captions, prev?.captions ?? null)} | ${fmt(r.candidates)}${delta(r.candidates, prev?.candidates ?? null)} |`);
    prev = r;
  }
  return lines;
}

/** The examples the extraction kept (what was damaged or skipped, and where), under the counters table. */
function extractionExampleLines(stats: Stats): string[] {
  const examples = Object.entries(stats.extraction_examples ?? {});
  if (examples.length === 0) return [];
  const out = ["", "Examples of damaged or skipped input (a deterministic sample per counter):", ""];
  for (const [name, list] of examples) out.push(`- ${mdCode(name)}: ${list.map((e) => mdText(e)).join("; ")}`);
  return out;
}
