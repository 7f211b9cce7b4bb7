/**
 * What a run over crawls published, for comparing reading paths: the datasets and each tier's funnel
 * (captions in, kept and dropped by reason at every step). The test crawls give no pair that survives
 * the filters (their only pairs were a template avatar's bylines), so equal funnels are what shows that
 * two paths read the same captions.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export function crawlOutcome(out: string): Record<string, unknown> {
  const stats = JSON.parse(readFileSync(join(out, "stats.json"), "utf8")) as { tiers: Record<string, { funnel: { id: string; captions?: number; pairs?: number; filter?: { in: number; kept: number; dropped: number; reasons: Record<string, number> } }[] }> };
  const funnels = Object.fromEntries(Object.entries(stats.tiers).map(([tier, t]) => [tier, t.funnel.map((r) => ({ id: r.id, captions: r.captions, pairs: r.pairs, filter: r.filter && { in: r.filter.in, kept: r.filter.kept, dropped: r.filter.dropped, reasons: r.filter.reasons } }))]));
  return { ...Object.fromEntries(["gold.jsonl", "silver.jsonl"].map((f) => [f, readFileSync(join(out, f), "utf8")])), funnels };
}

/** Web captions the silver tier read (its first filter's input). */
export function silverCaptionsRead(outcome: Record<string, unknown>): number {
  return (outcome.funnels as Record<string, { filter?: { in: number } }[]>).silver![0]!.filter!.in;
}
