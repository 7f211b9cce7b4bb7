/**
 * The pairs to annotate: a deterministic, seeded, stratified sample of a dataset (the paper's
 * annotation study drew its pairs "stratified by their Δsem,syn distribution", §4).
 *
 * Each pair gets a pseudo-random key, a hash of (seed, pair id); within a stratum the pairs with the
 * smallest keys are a uniform sample without replacement (bottom-k sampling), the same whatever the
 * file order, and only N pairs per stratum are held while streaming. The N places are shared among
 * the strata in proportion to their sizes (largest remainders; places a small stratum cannot fill go
 * to the others). The sample is shown in key order, so strata are interleaved.
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { stableId } from "../core/hash.ts";
import { LocalStore } from "../io/local-store.ts";
import { wordTokens } from "../metrics/word-tokens.ts";
import { levelOf } from "../compare/characteristic-map.ts";
import { readTier, tierObject, type PublishedPair } from "../output/tier-dataset.ts";
import { DELTA_METRIC, SYNTACTIC_AXIS } from "../output/tier-summary.ts";
import { UserError } from "../core/errors.ts";

export const STRATIFY = ["delta", "map-cell"] as const;
export type Stratify = (typeof STRATIFY)[number];
export const DATASET_TIERS = ["gold", "silver", "bronze"] as const;
/** width of a Δsem,syn stratum over [−1, 1] */
export const DELTA_BIN = 0.1;

export interface SampleOptions {
  /** pairs wanted; null: all pairs (in key order) */
  n: number | null;
  stratify: Stratify | null;
  seed: string;
  /** only pairs whose captions both have this many words, inclusive (the paper's study: 10 to 30) */
  words?: readonly [min: number, max: number] | null;
}

export interface SampledPair {
  pair: PublishedPair;
  /** the tier file it was read from */
  tier: string;
  stratum: string;
}

export interface PairSample {
  /** where labels go: the dataset folder */
  datasetDir: string;
  /** the tier files read, in order */
  sources: string[];
  pairs: SampledPair[];
  /** pairs read (distinct ids) */
  read: number;
  /** pairs without the metrics the stratification needs, left out */
  unstratifiable: number;
  /** pairs with a caption outside the --words bounds, left out */
  outOfLength: number;
  /** stratum → [pairs in the dataset, pairs sampled] */
  strata: Record<string, [number, number]>;
}

/** The stratum of a pair, or null when it lacks the metrics. */
export function stratumOf(pair: PublishedPair, stratify: Stratify | null): string | null {
  if (stratify === null) return "all";
  const m = pair.metrics;
  const delta = m[DELTA_METRIC];
  if (stratify === "delta") {
    if (delta === undefined || !Number.isFinite(delta)) return null;
    const bins = Math.round(2 / DELTA_BIN);
    const i = Math.min(bins - 1, Math.max(0, Math.floor((delta + 1) / DELTA_BIN + 1e-9)));
    const lo = -1 + i * DELTA_BIN;
    return `Δ [${lo.toFixed(1)}, ${(lo + DELTA_BIN).toFixed(1)}${i === bins - 1 ? "]" : ")"}`;
  }
  const syn = m[SYNTACTIC_AXIS];
  // the semantic axis is the score Δ was computed from (Δ = semantic − syntactic), else `semantic`
  const sem = delta !== undefined && syn !== undefined ? syn + delta : m.semantic;
  if (syn === undefined || sem === undefined || !Number.isFinite(syn) || !Number.isFinite(sem)) return null;
  return `syn-${levelOf(syn)}/sem-${levelOf(sem)}`;
}

/** The tier files of a dataset folder, or the one tier file given. */
export async function datasetSources(input: string): Promise<{ datasetDir: string; store: LocalStore; sources: { tier: string; name: string }[] }> {
  if (!existsSync(input)) throw new UserError(`no such file or directory: ${input}`);
  if (statSync(input).isDirectory()) {
    const store = new LocalStore(input);
    const sources: { tier: string; name: string }[] = [];
    for (const tier of DATASET_TIERS) {
      const name = await tierObject(store, tier);
      if (name !== null) sources.push({ tier, name });
    }
    if (sources.length === 0) throw new UserError(`${input}: no gold/silver/bronze .jsonl (or .jsonl.gz) in it`);
    return { datasetDir: input, store, sources };
  }
  const name = basename(input);
  if (!/\.jsonl(\.gz)?$/.test(name)) throw new UserError(`${input}: not a dataset folder or a tier .jsonl file`);
  return { datasetDir: dirname(input), store: new LocalStore(dirname(input)), sources: [{ tier: name.replace(/\.jsonl(\.gz)?$/, ""), name }] };
}

export async function samplePairs(input: string, opts: SampleOptions): Promise<PairSample> {
  const { datasetDir, store, sources } = await datasetSources(input);
  if (opts.n !== null && (!Number.isInteger(opts.n) || opts.n < 1)) throw new UserError(`--sample must be a positive integer, not ${opts.n}`);
  const keep = opts.n ?? Infinity;
  const strata = new Map<string, { count: number; kept: { key: string; item: SampledPair }[] }>();
  // a pair found by two tiers has one id: it is one pair (memory: one id per pair, only for several tiers)
  const seen = sources.length > 1 ? new Set<string>() : null;
  let read = 0;
  let unstratifiable = 0;
  let outOfLength = 0;
  const words = opts.words ?? null;
  const fits = (text: string) => {
    const n = wordTokens(text).length;
    return words === null || (n >= words[0] && n <= words[1]);
  };
  for (const { tier, name } of sources) {
    for await (const pair of readTier(store, name)) {
      if (seen) {
        if (seen.has(pair.id)) continue;
        seen.add(pair.id);
      }
      read++;
      if (words !== null && !(fits(pair.a.text) && fits(pair.b.text))) {
        outOfLength++;
        continue;
      }
      const stratum = stratumOf(pair, opts.stratify);
      if (stratum === null) {
        unstratifiable++;
        continue;
      }
      let s = strata.get(stratum);
      if (!s) strata.set(stratum, (s = { count: 0, kept: [] }));
      s.count++;
      s.kept.push({ key: stableId(opts.seed, pair.id), item: { pair, tier, stratum } });
      // bottom-k: hold at most 2k, cut back to the k smallest keys
      if (s.kept.length >= 2 * keep) s.kept = smallest(s.kept, keep);
    }
  }
  if (read - outOfLength > 0 && unstratifiable === read - outOfLength) {
    throw new UserError(`${input}: no pair carries ${opts.stratify === "delta" ? DELTA_METRIC : `${SYNTACTIC_AXIS} and a semantic score`}, so --stratify ${opts.stratify} cannot be used (run with a semantic scorer, or leave out --stratify)`);
  }
  const names = [...strata.keys()].sort();
  const quota = allocate(names.map((k) => strata.get(k)!.count), opts.n);
  const chosen: { key: string; item: SampledPair }[] = [];
  const summary: Record<string, [number, number]> = {};
  names.forEach((k, i) => {
    const s = strata.get(k)!;
    const picked = smallest(s.kept, quota[i]!);
    chosen.push(...picked);
    summary[k] = [s.count, picked.length];
  });
  chosen.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  return { datasetDir, sources: sources.map((s) => s.name), pairs: chosen.map((c) => c.item), read, unstratifiable, outOfLength, strata: summary };
}

function smallest<T extends { key: string }>(xs: T[], k: number): T[] {
  if (xs.length <= k) return [...xs].sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  return [...xs].sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0)).slice(0, k);
}

/**
 * Proportional allocation of n places to strata of the given sizes (largest remainders, ties to the
 * earlier stratum), never more than a stratum has; n null or ≥ the total: everything.
 */
export function allocate(sizes: readonly number[], n: number | null): number[] {
  const total = sizes.reduce((a, b) => a + b, 0);
  if (n === null || n >= total) return [...sizes];
  const quota = sizes.map(() => 0);
  let left = n;
  // repeat: strata that cannot take their share are filled, the rest share what is left
  while (left > 0) {
    const open = sizes.map((s, i) => (quota[i]! < s ? i : -1)).filter((i) => i >= 0);
    const weight = open.reduce((a, i) => a + sizes[i]! - quota[i]!, 0);
    const exact = open.map((i) => (left * (sizes[i]! - quota[i]!)) / weight);
    const floors = exact.map(Math.floor);
    let given = 0;
    open.forEach((i, j) => {
      quota[i]! += floors[j]!;
      given += floors[j]!;
    });
    let rest = left - given;
    const order = open.map((i, j) => ({ i, frac: exact[j]! - floors[j]! })).sort((a, b) => b.frac - a.frac || a.i - b.i);
    for (const { i } of order) {
      if (rest === 0) break;
      if (quota[i]! < sizes[i]!) {
        quota[i]!++;
        rest--;
      }
    }
    left = rest;
  }
  return quota;
}
