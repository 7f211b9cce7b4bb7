/**
 * Min-hash as a text pivot (Chung & Knight's permutaries, banded for grouping): a caption's word set
 * (words.ts) gets m min-hashes from the same hash family as the paragraph finder (hash-family.ts);
 * the m values are cut into b bands of r = m/b, and each band is one group key. Two captions meet
 * under a key when one band agrees entirely, so a pair with Jaccard s meets with probability
 * 1 − (1 − s^r)^b; a pair that met is then judged on all m values:
 *
 * - verify "exact" (default): candidates need an estimate ≥ t − slack, and are kept when their exact
 *   word-set Jaccard is ≥ t (the estimate only finds them; no pair below t passes);
 * - verify "estimate" (the paper): kept when the estimate (agreeing min-hashes / m) is ≥ t.
 *
 * A pair whose signatures agree in several bands meets under several keys; it is kept only under the
 * first band that agrees, so it is counted once without any state shared between groups.
 */
import { z } from "zod";
import { fnv1a32 } from "../core/hash.ts";
import { fmix32, permutarySeeds } from "./hash-family.ts";
import { jaccardOfWords } from "./jaccard.ts";
import { wordSet } from "./words.ts";

export const CaptionLshOptions = z.strictObject({
  /** m: min-hashes per caption */
  perms: z.int().min(1).max(1024).default(64),
  /** b: bands (group keys per caption); must divide perms */
  bands: z.int().min(1).max(256).default(16),
  /** t: Jaccard a pair must reach */
  threshold: z.number().gt(0).max(1).default(0.5),
  /** exact: exact Jaccard ≥ t on candidates with estimate ≥ t − slack; estimate: the paper's estimate ≥ t */
  verify: z.enum(["exact", "estimate"]).default("exact"),
  /** how far below t a candidate's estimate may be when verifying exactly */
  slack: z.number().min(0).max(0.5).default(0.1),
  seed: z.int().min(0).max(0xffffffff).default(20070101),
}).refine((o) => o.perms % o.bands === 0, { message: "bands must divide perms" });
export type CaptionLshOptions = z.infer<typeof CaptionLshOptions>;

export const MINHASH_KEY_PREFIX = "minhash:";

export type LshVerdict = { drop: "no_band_agrees" | "met_under_earlier_key" | "below_threshold" } | { estimate: number; jaccard: number };

export interface CaptionLsh {
  readonly options: CaptionLshOptions;
  keys(text: string): string[];
  pair(a: string, b: string, key: string): LshVerdict;
}

/** Bounded per-text caches: a partition's captions repeat (every key of a caption meets the same text). */
const CACHE_LIMIT = 50_000;

interface Signed {
  readonly words: string[];
  /** per permutation, the text hash of the set's front word (0 for an empty set, which has no keys) */
  readonly sig: Uint32Array;
}

export function createCaptionLsh(options: Partial<CaptionLshOptions> = {}): CaptionLsh {
  const opts = CaptionLshOptions.parse(options);
  const m = opts.perms;
  const rows = m / opts.bands;
  const seeds = permutarySeeds(m, opts.seed);
  const need = Math.max(1, Math.ceil((opts.verify === "exact" ? opts.threshold - opts.slack : opts.threshold) * m - 1e-9));
  const cache = new Map<string, Signed>();

  const signed = (text: string): Signed => {
    let s = cache.get(text);
    if (s) return s;
    // code-point order, so ties between equal ranks break as hash-family.ts's word ids do
    const words = wordSet(text).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    const hashes = words.map((w) => fmix32(fnv1a32(w)));
    const sig = new Uint32Array(m);
    for (let k = 0; k < m; k++) {
      let best = 0, bestRank = 0;
      for (let x = 0; x < hashes.length; x++) {
        const rank = fmix32(hashes[x]! ^ seeds[k]!);
        if (x === 0 || rank < bestRank) { best = hashes[x]!; bestRank = rank; }
      }
      sig[k] = best;
    }
    s = { words, sig };
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(text, s);
    return s;
  };

  const bandKey = (sig: Uint32Array, band: number): string => {
    // two independent 32-bit hashes of the band's r values: a 64-bit key
    let h1 = 0x811c9dc5 ^ band, h2 = 0x9e3779b9 ^ band;
    for (let k = band * rows; k < (band + 1) * rows; k++) {
      h1 = fmix32(h1 ^ sig[k]!);
      h2 = fmix32((h2 + sig[k]!) ^ 0x5bd1e995);
    }
    return `${MINHASH_KEY_PREFIX}${band}:${hex(h1)}${hex(h2)}`;
  };

  return {
    options: opts,
    keys(text) {
      const s = signed(text);
      if (s.words.length === 0) return [];
      return Array.from({ length: opts.bands }, (_, band) => bandKey(s.sig, band));
    },
    pair(a, b, key) {
      const x = signed(a), y = signed(b);
      let first = -1, agree = 0;
      for (let band = 0; band < opts.bands; band++) {
        let all = true;
        for (let k = band * rows; k < (band + 1) * rows; k++) {
          if (x.sig[k] === y.sig[k]) agree++;
          else all = false;
        }
        if (all && first < 0) first = band;
      }
      // a 64-bit key collision groups two captions whose bands differ: not a meeting at all
      if (first < 0) return { drop: "no_band_agrees" };
      if (bandKey(x.sig, first) !== key) return { drop: "met_under_earlier_key" };
      const jaccard = jaccardOfWords(x.words, y.words);
      const estimate = agree / m;
      const kept = agree >= need && (opts.verify === "estimate" || jaccard >= opts.threshold - 1e-12);
      return kept ? { estimate, jaccard } : { drop: "below_threshold" };
    },
  };
}

function hex(x: number): string {
  return (x >>> 0).toString(16).padStart(8, "0");
}
