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
import { tierSpecs } from "./tiers.ts";
import { sortInMemory, type Sorter } from "./sorter.ts";

/** What makes two candidates "the same pair" for the unique filter. */
export function uniqueKey(p: CandidatePair): string {
  return `${p.a.text}\u0000${p.b.text}`;
}

/** Duplicates for the dedup stage: the same pair in the same tier. */
const dedupKey = (p: CandidatePair) => `${p.tier}\u0000${uniqueKey(p)}`;

export interface DedupOptions {
  /** the equivalence-set size bound of the run (null: the run has no caption-list images, no filter) */
  setSizeMax?: number | null;
  /** the pair filters after the unique step, for every tier, built once per run of the stage (default: each tier's, `tierFilters`); any may await */
  pairFilters?: (ctx: StageContext) => readonly Filter<CandidatePair>[];
  /** how the partition's pairs are sorted (default: held whole; the dedup task's spills sorted runs to the work store) */
  sort?: Sorter;
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
      const sort = opts.sort ?? sortInMemory;
      async function* candidates(): AsyncGenerator<CandidatePair> {
        for await (const pair of records) {
          const setSize = filtersOf(pair.tier).setSize;
          if (setSize) {
            let keep = applyFilter(setSize, pair, c, pair.tier);
            if (typeof keep !== "boolean") keep = await keep;
            if (!keep) continue;
            c.inc(funnelCounter(pair.tier, setSize.id, "candidates"));
          }
          yield pair;
        }
      }
      // Duplicates come together, smallest id first: the representative is independent of arrival order.
      // (Caption texts hold no U+0000, preprocessCaption: a pair's key ends where its id starts.)
      async function* uniquePassing(): AsyncGenerator<CandidatePair> {
        let prevKey: string | null = null;
        const pending: Promise<CandidatePair | null>[] = [];
        for await (const pair of sort(candidates(), (p) => `${dedupKey(p)}\u0000${p.id}`, "unique")) {
          const key = dedupKey(pair);
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
          if (kept === true) yield pair;
          else if (kept !== false) {
            // Pairs whose filters await are judged PAIR_WINDOW at a time (a model or a cache read overlaps);
            // counts and samples do not depend on the order verdicts settle in, and survivors are sorted below.
            const judged = kept.then((k) => (k ? pair : null));
            judged.catch(() => undefined); // a failure is thrown by Promise.all below, not as an unhandled rejection while the sort reads
            pending.push(judged);
            if (pending.length >= PAIR_WINDOW) for (const p of await Promise.all(pending.splice(0))) if (p) yield p;
          }
        }
        for (const p of await Promise.all(pending)) if (p) yield p;
      }
      const scoreBatch = async function* (batch: CandidatePair[]): AsyncGenerator<ScoredPair> {
        const metrics = await score(batch.map((p) => [p.a.text, p.b.text] as const));
        for (let j = 0; j < batch.length; j++) yield { ...batch[j]!, ...verdict(metrics[j]!) };
      };
      // Batches let a model scorer run one inference for many pairs.
      let batch: CandidatePair[] = [];
      for await (const pair of sort(uniquePassing(), (p) => `${p.tier}\u0000${p.id}`, "survivors")) {
        batch.push(pair);
        if (batch.length < SCORE_BATCH) continue;
        yield* scoreBatch(batch);
        batch = [];
      }
      if (batch.length > 0) yield* scoreBatch(batch);
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
