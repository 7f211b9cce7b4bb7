/**
 * Where two byte strings start and stop differing. Buffer.compare tells only whether two ranges are
 * equal, so the length is found by galloping: ranges doubling while equal, then halving (a few
 * native calls whatever the length; each byte compared about twice).
 */

const FIRST = 256;

/** Length of the common prefix of a and b. */
export function commonPrefix(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  let p = 0;
  let step = FIRST;
  while (p + step <= n && a.compare(b, p, p + step, p, p + step) === 0) {
    p += step;
    step *= 2;
  }
  for (step >>= 1; step >= 16; step >>= 1) if (p + step <= n && a.compare(b, p, p + step, p, p + step) === 0) p += step;
  while (p < n && a[p] === b[p]) p++;
  return p;
}

/** Length of the common suffix of a and b, at most `limit`. */
export function commonSuffix(a: Buffer, b: Buffer, limit: number): number {
  const la = a.length;
  const lb = b.length;
  let s = 0;
  let step = FIRST;
  while (s + step <= limit && a.compare(b, lb - s - step, lb - s, la - s - step, la - s) === 0) {
    s += step;
    step *= 2;
  }
  for (step >>= 1; step >= 16; step >>= 1) if (s + step <= limit && a.compare(b, lb - s - step, lb - s, la - s - step, la - s) === 0) s += step;
  while (s < limit && a[la - 1 - s] === b[lb - 1 - s]) s++;
  return s;
}
