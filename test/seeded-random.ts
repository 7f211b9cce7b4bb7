/** Deterministic pseudo-random streams for tests and fuzzers with fixed seeds (mulberry32). */

/** 32-bit unsigned values. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** Numbers in [0, 1). */
export function rng(seed: number): () => number {
  const next = mulberry32(seed);
  return () => next() / 4294967296;
}
