/**
 * The corpus-level entry point a phase calls: (id, text) lists in, similar pairs out. With two lists,
 * items of A are matched against B (the paper's translation experiment; for captions, e.g. one
 * image's captions against others'); with one, near-duplicates within it. Pure: same input and
 * options, same pairs, in the same order.
 */
import { z } from "zod";
import { encodeCorpus, type EncodedCorpus } from "./corpus.ts";
import { exactPairs, jaccard } from "./jaccard.ts";
import { greedyOneToOne } from "./one-to-one.ts";
import { MinhashOptions, minhashPairs, type MinhashStats } from "./permutaries.ts";

export const TextItem = z.strictObject({ id: z.string(), text: z.string() });
export type TextItem = z.infer<typeof TextItem>;

export const TextPairOptions = MinhashOptions.extend({
  /** exact O(n²) Jaccard instead of the min-hash estimate */
  method: z.enum(["minhash", "exact"]).default("minhash"),
  /** at most one pair per item (greedy, best first) */
  oneToOne: z.boolean().default(false),
  /** also compute each emitted pair's exact Jaccard (min-hash method) */
  withExact: z.boolean().default(false),
});
export type TextPairOptions = z.infer<typeof TextPairOptions>;

export interface TextPair {
  /** indices into A and into B (or A, i < j) */
  readonly i: number;
  readonly j: number;
  readonly a: string;
  readonly b: string;
  /** the method's score: estimated Jaccard (minhash) or exact Jaccard (exact) */
  readonly score: number;
  /** exact Jaccard, with withExact or method exact */
  readonly exact?: number;
}

export interface TextPairResult {
  readonly pairs: TextPair[];
  /** min-hash bookkeeping; null for the exact method */
  readonly stats: MinhashStats | null;
}

export function findTextPairs(a: readonly TextItem[], b: readonly TextItem[] | null, options: Partial<TextPairOptions> = {}): TextPairResult {
  const opts = TextPairOptions.parse(options);
  const corpus = encodeCorpus(a.map((x) => x.text), b ? b.map((x) => x.text) : null);
  return pairsOfCorpus(corpus, a.map((x) => x.id), (b ?? a).map((x) => x.id), opts);
}

/** The same over an already encoded corpus (the CLI and benches encode once). */
export function pairsOfCorpus(corpus: EncodedCorpus, idsA: readonly string[], idsB: readonly string[], opts: TextPairOptions): TextPairResult {
  const others = corpus.b ?? corpus.a;
  let pairs: TextPair[] = [];
  let stats: MinhashStats | null = null;
  if (opts.method === "exact") {
    exactPairs(corpus, opts.threshold, (i, j, score) => pairs.push({ i, j, a: idsA[i]!, b: idsB[j]!, score, exact: score }));
  } else {
    const { perms, threshold, seed, bucketCap } = opts;
    stats = minhashPairs(corpus, { perms, threshold, seed, bucketCap }, (i, j, score) => {
      pairs.push(opts.withExact
        ? { i, j, a: idsA[i]!, b: idsB[j]!, score, exact: jaccard(corpus.a[i]!, others[j]!) }
        : { i, j, a: idsA[i]!, b: idsB[j]!, score });
    });
  }
  if (opts.oneToOne) pairs = greedyOneToOne(pairs, corpus.b === null).sort((p, q) => p.i - q.i || p.j - q.j);
  return { pairs, stats };
}
