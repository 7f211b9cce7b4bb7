/**
 * Chung & Knight's single-pass paraphrase finder ("permutaries", after Broder's min-hash): each
 * paragraph is hashed into m tables, keyed in table k by its word closest to the front of the k-th
 * permuted dictionary; a pair's estimated Jaccard is its number of collisions / m.
 *
 * The paper fills one pair table H from every bucket. Here the same counts are gathered row by row
 * (for paragraph i, its collisions with every later or other-side paragraph, in a reusable counter
 * array), so memory is O(n·m) whatever the number of colliding pairs, and pairs stream out.
 *
 * Frequent words: a bucket is all paragraphs whose front word is one word, so a common word early
 * in a permutary makes a bucket of a large share of the corpus and a quadratic number of pairs. Such
 * a bucket (more than `bucketCap` members) is never enumerated; it is counted, and a pair found
 * through the other tables has its collisions in capped tables added by comparing the two
 * signatures there, so its estimate is exactly the uncapped one. Only a pair that collides in
 * nothing but capped tables can be missed: possible only for a paragraph with at least
 * ⌈t·m⌉ capped tables, and those paragraphs are counted (`rowsAtRisk`).
 *
 * Verification (the default, `verify: "exact"`): the estimate only proposes candidates, at a slightly
 * lower threshold (t − slack), and a candidate is a pair when its exact Jaccard is ≥ t: no pair below
 * t, and a pair at or above t is missed only when its estimate falls more than `slack` below t. The
 * paper's method (`verify: "estimate"`, preset paper) keeps every pair whose estimate is ≥ t.
 */
import { z } from "zod";
import type { EncodedCorpus, PairSink } from "./corpus.ts";
import { permutarySeeds, signatureInto, wordHashes } from "./hash-family.ts";
import { jaccard } from "./jaccard.ts";

export const MinhashOptions = z.strictObject({
  /** m: number of permutaries (the paper: 16, 64, 256, 1024) */
  perms: z.int().min(1).max(65535).default(256),
  /** pairs with estimated Jaccard ≥ threshold are emitted */
  threshold: z.number().gt(0).max(1).default(0.33),
  /** seed of the hash family: the same seed, the same estimates */
  seed: z.int().min(0).max(0xffffffff).default(20070101),
  /** buckets with more members than this are not enumerated (see above) */
  bucketCap: z.int().min(2).default(200),
  /** exact: candidates at estimate ≥ threshold − slack, kept at exact Jaccard ≥ threshold; estimate: the paper's estimate ≥ threshold */
  verify: z.enum(["exact", "estimate"]).default("exact"),
  /** how far below the threshold a candidate's estimate may be (verify exact) */
  slack: z.number().min(0).max(0.5).default(0.1),
});
export type MinhashOptions = z.infer<typeof MinhashOptions>;

export interface MinhashStats {
  readonly perms: number;
  readonly vocabulary: number;
  readonly rowsA: number;
  readonly rowsB: number;
  /** pairs emitted (estimate ≥ threshold) */
  pairs: number;
  /** buckets (table, key) that had more than bucketCap members */
  bucketsCapped: number;
  /** member entries in those buckets */
  entriesCapped: number;
  /** collisions counted by enumerating buckets */
  collisionsEnumerated: number;
  /** paragraphs with ≥ ⌈t·m⌉ capped tables, whose pairs colliding only there could be missed */
  rowsAtRisk: number;
  /** signature comparisons made to add capped-table collisions to candidate pairs */
  cappedChecks: number;
  /** verify exact: candidates whose exact Jaccard was computed, and those under the threshold */
  verified: number;
  rejected: number;
}

/** Collisions needed to reach the threshold (a small tolerance so that t·m computed as 0.33·100 = 33.000000000000004 still needs 33). */
export function collisionsNeeded(threshold: number, perms: number): number {
  return Math.max(1, Math.ceil(threshold * perms - 1e-9));
}

interface Tables {
  /** per table k: member rows grouped by bucket, and the start of each bucket (CSR) */
  readonly members: Int32Array[];
  readonly starts: Int32Array[];
  /** bucket of row i (a query row) in table k at [i·m + k]: ≥ 0, or NONE / CAPPED */
  readonly bucketOf: Int32Array;
  /** per stored row: tables in which it sits in a capped bucket (bounds its capped collisions with any query) */
  readonly cappedOfStored: Uint16Array;
}
const NONE = -1;
const CAPPED = -2;

/**
 * Emits (i, j, collisions/m) for every pair whose estimate reaches the threshold: i in A, j in B in
 * cross mode; i < j within A otherwise. Pairs come out by ascending i, then ascending j.
 */
export function minhashPairs(corpus: EncodedCorpus, options: Partial<MinhashOptions>, emit: PairSink): MinhashStats {
  const opts = MinhashOptions.parse(options);
  const m = opts.perms;
  const self = corpus.b === null;
  const queries = corpus.a;
  const stored = corpus.b ?? corpus.a;
  const seeds = permutarySeeds(m, opts.seed);
  const hashes = wordHashes(corpus.vocabulary);
  const sign = (sets: readonly Int32Array[]) => {
    const sig = new Int32Array(sets.length * m);
    sets.forEach((set, i) => signatureInto(set, hashes, seeds, sig, i * m));
    return sig;
  };
  const sigQ = sign(queries);
  const sigS = self ? sigQ : sign(stored);

  const stats: MinhashStats = {
    perms: m, vocabulary: corpus.vocabulary.length, rowsA: queries.length, rowsB: self ? 0 : stored.length,
    pairs: 0, bucketsCapped: 0, entriesCapped: 0, collisionsEnumerated: 0, rowsAtRisk: 0, cappedChecks: 0, verified: 0, rejected: 0,
  };
  const tables = buildTables(sigQ, queries.length, sigS, stored.length, m, self, opts.bucketCap, corpus.vocabulary.length, stats);

  const verify = opts.verify === "exact";
  const need = collisionsNeeded(verify ? Math.max(opts.threshold - opts.slack, 1 / m) : opts.threshold, m);
  const counts = new Uint16Array(stored.length);
  const touched: number[] = [];
  const cappedTables: number[] = [];
  // j and its collision count packed as j·2^16 + c (c ≤ m ≤ 65535), so sorting orders by j
  const passed: number[] = [];
  for (let i = 0; i < queries.length; i++) {
    const row = i * m;
    cappedTables.length = 0;
    for (let k = 0; k < m; k++) {
      const bucket = tables.bucketOf[row + k]!;
      if (bucket === CAPPED) { cappedTables.push(k); continue; }
      if (bucket === NONE) continue;
      const members = tables.members[k]!;
      const end = tables.starts[k]![bucket + 1]!;
      // members are ascending: within one set, start after i
      let x = self ? firstAbove(members, tables.starts[k]![bucket]!, end, i) : tables.starts[k]![bucket]!;
      stats.collisionsEnumerated += end - x;
      for (; x < end; x++) {
        const j = members[x]!;
        if (counts[j]!++ === 0) touched.push(j);
      }
    }
    if (cappedTables.length >= need) stats.rowsAtRisk++;
    // touched is in bucket order; only the few pairs that pass are sorted (sorting every touched row costs more than the counting)
    for (const j of touched) {
      let c = counts[j]!;
      counts[j] = 0;
      // capped collisions need both rows in capped buckets of the same table: at most the smaller count
      if (c + Math.min(cappedTables.length, tables.cappedOfStored[j]!) < need) continue;
      // add collisions in capped tables; stop once the threshold is out of reach
      let left = cappedTables.length;
      for (const k of cappedTables) {
        stats.cappedChecks++;
        left--;
        if (sigS[j * m + k] === sigQ[row + k]) c++;
        else if (c + left < need) break;
      }
      if (c < need) continue;
      if (verify) {
        stats.verified++;
        if (jaccard(queries[i]!, stored[j]!) < opts.threshold - 1e-12) { stats.rejected++; continue; }
      }
      passed.push(j * 65536 + c);
    }
    touched.length = 0;
    if (passed.length > 0) {
      passed.sort((p, q) => p - q);
      for (const code of passed) {
        stats.pairs++;
        const j = Math.floor(code / 65536);
        if (verify) emit(i, j, (code % 65536) / m, jaccard(queries[i]!, stored[j]!));
        else emit(i, j, (code % 65536) / m);
      }
      passed.length = 0;
    }
  }
  return stats;
}

/** Index of the first member > i in members[from, to) (binary search). */
function firstAbove(members: Int32Array, from: number, to: number, i: number): number {
  let lo = from, hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (members[mid]! <= i) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/**
 * One CSR bucket index per table over the stored rows; each query row gets its bucket, NONE (no
 * other member to collide with) or CAPPED.
 */
function buildTables(
  sigQ: Int32Array, nQ: number, sigS: Int32Array, nS: number, m: number, self: boolean, cap: number, vocab: number, stats: MinhashStats,
): Tables {
  const size = new Int32Array(vocab);
  const bucketId = new Int32Array(vocab);
  const keys: number[] = [];
  const members: Int32Array[] = [];
  const starts: Int32Array[] = [];
  const bucketOf = new Int32Array(nQ * m);
  const cappedOfStored = new Uint16Array(nS);
  // a bucket is worth storing if a query can collide in it: ≥ 2 members within one set, ≥ 1 across
  const minSize = self ? 2 : 1;
  for (let k = 0; k < m; k++) {
    for (let j = 0; j < nS; j++) {
      const key = sigS[j * m + k]!;
      if (key < 0) continue;
      if (size[key]!++ === 0) keys.push(key);
    }
    // bucket ids in key order (a typed-array sort: numeric, no comparator calls)
    const sortedKeys = Int32Array.from(keys).sort();
    let buckets = 0, total = 0;
    for (const key of sortedKeys) {
      const n = size[key]!;
      if (n > cap) { bucketId[key] = CAPPED; stats.bucketsCapped++; stats.entriesCapped += n; }
      else if (n >= minSize) { bucketId[key] = buckets++; total += n; }
      else bucketId[key] = NONE;
    }
    const start = new Int32Array(buckets + 1);
    for (const key of keys) { const b = bucketId[key]!; if (b >= 0) start[b + 1] = size[key]!; }
    for (let b = 0; b < buckets; b++) start[b + 1]! += start[b]!;
    const fill = start.slice(0, buckets);
    const mem = new Int32Array(total);
    for (let j = 0; j < nS; j++) {
      const key = sigS[j * m + k]!;
      if (key < 0) continue;
      const b = bucketId[key]!;
      if (b >= 0) mem[fill[b]!++] = j;
      else if (b === CAPPED) cappedOfStored[j]!++;
    }
    for (let i = 0; i < nQ; i++) {
      const key = sigQ[i * m + k]!;
      bucketOf[i * m + k] = key < 0 || size[key] === 0 ? NONE : bucketId[key]!;
    }
    for (const key of keys) size[key] = 0;
    keys.length = 0;
    members.push(mem);
    starts.push(start);
  }
  return { members, starts, bucketOf, cappedOfStored };
}

/**
 * Estimated Jaccard (collisions / m) of given pairs, straight from the signatures: for plotting
 * estimates against exact values, including pairs below any threshold.
 */
export function estimatePairs(corpus: EncodedCorpus, pairs: readonly (readonly [number, number])[], options: Partial<MinhashOptions>): Float64Array {
  const opts = MinhashOptions.parse(options);
  const m = opts.perms;
  const seeds = permutarySeeds(m, opts.seed);
  const hashes = wordHashes(corpus.vocabulary);
  const others = corpus.b ?? corpus.a;
  const cache = (sets: readonly Int32Array[]) => {
    const sigs = new Map<number, Int32Array>();
    return (i: number) => {
      let s = sigs.get(i);
      if (!s) { s = new Int32Array(m); signatureInto(sets[i]!, hashes, seeds, s, 0); sigs.set(i, s); }
      return s;
    };
  };
  const sigA = cache(corpus.a), sigB = corpus.b ? cache(others) : sigA;
  return Float64Array.from(pairs, ([i, j]) => {
    const x = sigA(i), y = sigB(j);
    let n = 0;
    for (let k = 0; k < m; k++) if (x[k] === y[k] && x[k]! >= 0) n++;
    return n / m;
  });
}
