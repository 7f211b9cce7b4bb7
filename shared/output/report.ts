/** report.md: the funnel tables (as in the paper's Table 3), what each filter dropped, and sample pairs. */
import type { ScoredPair } from "../core/records.ts";
import type { FunnelRow, Stats } from "./stats.ts";

const fmt = (n: number | null) => (n === null ? "—" : n.toLocaleString("en-US"));
const delta = (cur: number | null, prev: number | null) =>
  cur === null || prev === null || prev === 0 ? "" : ` (${(((cur - prev) / prev) * 100).toFixed(1)} %)`;

export function renderReport(stats: Stats, samples: Record<string, ScoredPair[]>, meta: { generated: string; elapsedSeconds: number | null }): string {
  const out: string[] = [];
  out.push("# paracap report", "");
  out.push(`Generated ${meta.generated}${meta.elapsedSeconds !== null ? ` in ${meta.elapsedSeconds.toFixed(1)} s` : ""}.`, "");
  out.push("## Inputs", "", "| input | kind | shards | feeds tiers |", "|---|---|---:|---|");
  for (const i of stats.inputs) out.push(`| \`${i.uri}\` | ${i.kind} | ${i.shards} | ${i.tiers.join(", ") || "—"} |`);
  out.push("");
  out.push(`Shards: ${stats.shards.ok} ok of ${stats.shards.total}.`);
  if (stats.shards.corrupt.length > 0) {
    out.push("", "**Damaged shards** (pages before the damage were used; the rest of the shard was skipped):", "");
    for (const c of stats.shards.corrupt) out.push(`- \`${c.shard}\`: ${c.error}`);
  }
  out.push("", "## Extraction", "", "| counter | value |", "|---|---:|");
  for (const [k, v] of Object.entries(stats.extraction)) out.push(`| ${k} | ${fmt(v)} |`);
  for (const [tier, t] of Object.entries(stats.tiers)) {
    out.push("", `## ${tier} (${t.input} input): ${fmt(t.pairs)} pairs`, "");
    out.push(...funnelMarkdown(t.funnel));
    out.push("", "Dropped, by reason:", "");
    for (const row of t.funnel) {
      if (!row.filter || row.filter.dropped === 0) continue;
      const reasons = Object.entries(row.filter.reasons).map(([r, n]) => `${r} ${fmt(n)}`).join(", ");
      out.push(`- ${row.label}: ${fmt(row.filter.dropped)} of ${fmt(row.filter.in)} ${row.unit} (${reasons})`);
    }
    const s = samples[tier] ?? [];
    if (s.length > 0) {
      out.push("", "Sample pairs:", "");
      for (const p of s) {
        out.push(`- **${p.image}** (${p.type}; syntactic ${(p.metrics.syntactic ?? NaN).toFixed(2)})`);
        out.push(`  - “${p.a.text}” — *${p.a.page}*`);
        out.push(`  - “${p.b.text}” — *${p.b.page}*`);
      }
    }
  }
  out.push("", "Columns: images remaining (with ≥ 2 / ≥ 5 references), references (history: one per revision using the image), mean references per image, caption entries (captions and alt texts), candidate pairs (Σ per image and caption type of C(n, 2) distinct uses; from the unique step on, pairs actually kept). “—”: not computed for that step.", "");
  return out.join("\n");
}

function funnelMarkdown(rows: FunnelRow[]): string[] {
  const lines = ["| # | step | images | ≥2 | ≥5 | references | μ | captions | candidates |", "|---:|---|---:|---:|---:|---:|---:|---:|---:|"];
  let prev: FunnelRow | null = null;
  for (const r of rows) {
    lines.push(`| ${r.step} | ${r.label} | ${fmt(r.images)}${delta(r.images, prev?.images ?? null)} | ${fmt(r.images_ge2)} | ${fmt(r.images_ge5)} | ${fmt(r.references)}${delta(r.references, prev?.references ?? null)} | ${r.mean_refs_per_image ?? "—"} | ${fmt(r.captions)}${delta(r.captions, prev?.captions ?? null)} | ${fmt(r.candidates)}${delta(r.candidates, prev?.candidates ?? null)} |`);
    prev = r;
  }
  return lines;
}
