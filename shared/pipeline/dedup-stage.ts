/**
 * Dedup stage (reduce side of the pair shuffle, partitioned by the pairs' caption texts): corpus-wide
 * exact unique-candidate filter, then the pair filters (divergent, significant difference, spelling fix), then syntactic
 * metrics (and, with a semantic scorer, the semantic score, Δsem,syn and the paraphrase verdict). Exact text
 * comparison, not a hash: two different pairs can never knock each other out.
 */
import { filterCounter, funnelCounter } from "../core/counter-names.ts";
import { applyFilter, countFilterVerdict, exampleOf, type Filter } from "../core/filter.ts";
import type { Counters } from "../core/counters.ts";
import { CandidatePair, ScoredPair } from "../core/records.ts";
import type { Stage, StageContext } from "../core/stage.ts";
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
  /** the pair filters after the unique step, for every tier, built once per run of the stage (default: each tier's, `tierFilters`); any may await */
  pairFilters?: (ctx: StageContext) => readonly Filter<CandidatePair>[];
}

const SCORE_BATCH = 64;
/** pairs whose async filters are awaited together */
const PAIR_WINDOW = 64;

export function dedupStage(config: ParacapConfig, opts: DedupOptions = {}): Stage<CandidatePair, ScoredPair> {
  // built once per stage from the same lists as the group stage's and the funnel's
  const configured = new Map<string, TierFilters>(tierSpecs(config).map((t) => [t.name, tierFilters(config, t, { setSizeMax: opts.setSizeMax })]));
  return {
    name: "dedup",
    input: CandidatePair,
    output: ScoredPair,
    async *run(records, ctx) {
      const c = ctx.counters;
      // filters that may await are built with the task's context (their item caches)
      const custom = opts.pairFilters?.(ctx);
      const byTier = custom ? new Map([...configured].map(([t, f]) => [t, { ...f, pair: custom }])) : configured;
      const filtersOf = (tier: string): TierFilters => {
        const f = byTier.get(tier);
        if (!f) throw new Error(`dedup: a pair of tier "${tier}", which this configuration does not run (tiers: ${[...byTier.keys()].join(", ")})`);
        return f;
      };
      const score = await createScorers(config);
      const verdict = semanticVerdict(config);
      const all: { key: string; pair: CandidatePair }[] = [];
      for await (const pair of records) {
        const setSize = filtersOf(pair.tier).setSize;
        if (setSize) {
          let keep = applyFilter(setSize, pair, c, pair.tier);
          if (typeof keep !== "boolean") keep = await keep;
          if (!keep) continue;
          c.inc(funnelCounter(pair.tier, setSize.id, "candidates"));
        }
        all.push({ key: `${pair.tier}\u0000${uniqueKey(pair)}`, pair });
      }
      // The representative of duplicates is the one with the smallest id: independent of arrival order.
      all.sort((x, y) => cmp(x.key, y.key) || cmp(x.pair.id, y.pair.id));
      const survivors: CandidatePair[] = [];
      const pending: Promise<void>[] = [];
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
        const kept = pairPasses(filters, pair, c);
        if (kept === true) survivors.push(pair);
        else if (kept !== false) {
          // Pairs whose filters await are judged PAIR_WINDOW at a time (a model or a cache read overlaps);
          // counts and samples do not depend on the order verdicts settle in, and survivors are sorted below.
          pending.push(kept.then((k) => void (k && survivors.push(pair))));
          if (pending.length >= PAIR_WINDOW) await Promise.all(pending.splice(0));
        }
      }
      await Promise.all(pending);
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

/**
 * Runs the pair filters on one pair in order, counting each funnel row it passes: a boolean when
 * every verdict is given at once (no microtask on the hot path), a promise from the first one that awaits.
 */
export function pairPasses(filters: readonly Filter<CandidatePair>[], pair: CandidatePair, c: Counters, from = 0): boolean | Promise<boolean> {
  for (let i = from; i < filters.length; i++) {
    const f = filters[i]!;
    const keep = applyFilter(f, pair, c, pair.tier);
    if (keep === false) return false;
    if (keep !== true) {
      return keep.then((k) => {
        if (!k) return false;
        c.inc(funnelCounter(pair.tier, f.id, "candidates"));
        return pairPasses(filters, pair, c, i + 1);
      });
    }
    c.inc(funnelCounter(pair.tier, f.id, "candidates"));
  }
  return true;
}
