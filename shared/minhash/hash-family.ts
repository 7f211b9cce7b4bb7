/**
 * The permutaries as a hash family: instead of shuffling the dictionary m times and storing m
 * permuted copies (m × |V| memory), permutation k ranks word w by fmix32(h(w) XOR s_k), where h is a
 * fixed hash of the word's text and s_k the k-th seed drawn from one fixed seed. fmix32 (MurmurHash3's
 * finaliser) is a bijection on 32-bit words, so within one permutation two words tie only if their
 * text hashes collide; ties then break by word id (code-point order), the same on every run.
 */
import { fnv1a32 } from "../core/hash.ts";

/** MurmurHash3's 32-bit finaliser: a bijection with full avalanche. */
export function fmix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** m seeds of the permutaries, from one seed (a splitmix-style walk: equal seeds, equal permutaries). */
export function permutarySeeds(m: number, seed: number): Uint32Array {
  const seeds = new Uint32Array(m);
  let state = seed >>> 0;
  for (let k = 0; k < m; k++) {
    state = (state + 0x9e3779b9) >>> 0;
    seeds[k] = fmix32(state ^ fmix32(k + 1));
  }
  return seeds;
}

/** The text hash of each vocabulary word, mixed once so that similar spellings spread apart. */
export function wordHashes(vocabulary: readonly string[]): Uint32Array {
  return Uint32Array.from(vocabulary, (w) => fmix32(fnv1a32(w)));
}

/**
 * Min-hash signature of one set: for each permutation, the id of the set's word closest to the front
 * of that permutary (−1 for an empty set, which then collides with nothing).
 */
export function signatureInto(set: Int32Array, hashes: Uint32Array, seeds: Uint32Array, out: Int32Array, offset: number): void {
  for (let k = 0; k < seeds.length; k++) {
    const s = seeds[k]!;
    let best = -1, bestRank = 0;
    for (let x = 0; x < set.length; x++) {
      const w = set[x]!;
      const rank = fmix32(hashes[w]! ^ s);
      // set is ascending, so on a tie the earlier (smaller) id is kept
      if (best < 0 || rank < bestRank) { best = w; bestRank = rank; }
    }
    out[offset + k] = best;
  }
}
