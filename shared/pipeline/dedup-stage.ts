/**
 * Dedup stage (reduce side of the pair shuffle, partitioned by the pairs' caption texts): corpus-wide
 * exact unique-candidate filter, then the pair filters (divergent, significant difference, spelling fix), then syntactic
 * metrics (and, with a semantic scorer, the semantic score, Δsem,syn and the paraphrase verdict). Exact text
 * comparison, not a hash: two different pairs can never knock each other out.
 */
import { filterCounter, funnelCounter } from "../core/counter-names.ts";
import { applyFilter, countFilterVerdict, exampleOf } from "../core/filter.ts";
import { CandidatePair, ScoredPair } from "../core/records.ts";
import type { Stage } from "../core/stage.ts";
import type { ParacapConfig } from "../core/config.ts";
import { createScorers } from "../plugins/scorers.ts";
import { semanticVerdict } from "../semantic/semantic-score.ts";
import { tierFilters, type TierFilters } from "./filters.ts";
import { cmp } from "./group-stage.ts";
import { tierSpecs } from "./tiers.ts";

/** What makes two candidates "the same pair" for the unique filter. */
export function uniqueKey(p: CandidatePair): string {
  return `${p.a.text}\u0000${p.b.text}`;
}

export interface DedupOptions {
  /** the equivalence-set size bound of the run (null: the run has no caption-list images, no filter) */
  setSizeMax?: number | null;
}

const SCORE_BATCH = 64;

export function dedupStage(config: ParacapConfig, opts: DedupOptions = {}): Stage<CandidatePair, ScoredPair> {
  // built once per stage from the same lists as the group stage's and the funnel's
  const byTier = new Map<string, TierFilters>(tierSpecs(config).map((t) => [t.name, tierFilters(config, t, { setSizeMax: opts.setSizeMax })]));
  const filtersOf = (tier: string): TierFilters => {
    const f = byTier.get(tier);
    if (!f) throw new Error(`dedup: a pair of tier "${tier}", which this configuration does not run (tiers: ${[...byTier.keys()].join(", ")})`);
    return f;
  };
  return {
    name: "dedup",
    input: CandidatePair,
    output: ScoredPair,
    async *run(records, ctx) {
      const c = ctx.counters;
      const score = await createScorers(config);
      const verdict = semanticVerdict(config);
      const all: { key: string; pair: CandidatePair }[] = [];
      for await (const pair of records) {
        const setSize = filtersOf(pair.tier).setSize;
        if (setSize) {
          if (!applyFilter(setSize, pair, c, pair.tier)) continue;
          c.inc(funnelCounter(pair.tier, setSize.id, "candidates"));
        }
        all.push({ key: `${pair.tier}\u0000${uniqueKey(pair)}`, pair });
      }
      // The representative of duplicates is the one with the smallest id: independent of arrival order.
      all.sort((x, y) => cmp(x.key, y.key) || cmp(x.pair.id, y.pair.id));
      const survivors: CandidatePair[] = [];
      let prevKey: string | null = null;
      for (const { key, pair } of all) {
        const first = key !== prevKey;
        prevKey = key;
        const { unique, pair: filters } = filtersOf(pair.tier);
        if (!first) {
          countFilterVerdict(unique, c, pair.tier, "duplicate");
          c.samples.add(filterCounter(pair.tier, unique.id, "dropped", "duplicate"), exampleOf(pair)!);
          continue;
        }
        countFilterVerdict(unique, c, pair.tier, true);
        c.inc(funnelCounter(pair.tier, unique.id, "candidates"));
        let kept = true;
        for (const f of filters) {
          if (!applyFilter(f, pair, c, pair.tier)) {
            kept = false;
            break;
          }
          c.inc(funnelCounter(pair.tier, f.id, "candidates"));
        }
        if (kept) survivors.push(pair);
      }
      survivors.sort((x, y) => cmp(x.tier, y.tier) || cmp(x.id, y.id));
      // Batches let a model scorer run one inference for many pairs.
      for (let i = 0; i < survivors.length; i += SCORE_BATCH) {
        const batch = survivors.slice(i, i + SCORE_BATCH);
        const metrics = await score(batch.map((p) => [p.a.text, p.b.text] as const));
        for (let j = 0; j < batch.length; j++) yield { ...batch[j]!, ...verdict(metrics[j]!) };
      }
    },
  };
}
