/**
 * Where two byte strings start and stop differing. Buffer.compare tells only whether two ranges are
 * equal, so the length is found in blocks of CHUNK bytes while equal, then by halving inside the
 * block that differs: each byte before the difference is compared once, plus about 2 × CHUNK
 * (galloping with doubling ranges compared each byte about 1.5 times on history texts).
 */

const CHUNK = 4096;

/** Length of the common prefix of a and b. */
export function commonPrefix(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  let p = 0;
  while (p + CHUNK <= n && a.compare(b, p, p + CHUNK, p, p + CHUNK) === 0) p += CHUNK;
  for (let step = CHUNK >> 1; step >= 16; step >>= 1) if (p + step <= n && a.compare(b, p, p + step, p, p + step) === 0) p += step;
  while (p < n && a[p] === b[p]) p++;
  return p;
}

/** Length of the common suffix of a and b, at most `limit`. */
export function commonSuffix(a: Buffer, b: Buffer, limit: number): number {
  const la = a.length;
  const lb = b.length;
  let s = 0;
  while (s + CHUNK <= limit && a.compare(b, lb - s - CHUNK, lb - s, la - s - CHUNK, la - s) === 0) s += CHUNK;
  for (let step = CHUNK >> 1; step >= 16; step >>= 1) if (s + step <= limit && a.compare(b, lb - s - step, lb - s, la - s - step, la - s) === 0) s += step;
  while (s < limit && a[la - 1 - s] === b[lb - 1 - s]) s++;
  return s;
}
