/**
 * Where two byte strings start and stop differing. Buffer.compare tells only whether two ranges are
 * equal, so the length is found in blocks of CHUNK bytes while equal, then by halving inside the
 * block that differs: each byte before the difference is compared once, plus about 2 × CHUNK
 * (galloping with doubling ranges compared each byte about 1.5 times on history texts).
 */

const CHUNK = 4096;

/** Length of the common prefix of a and b; `from`: a length they are known to share (the search starts there). */
export function commonPrefix(a: Buffer, b: Buffer, from = 0): number {
  const n = Math.min(a.length, b.length);
  let p = from;
  // a known length is often the exact one: one byte tells
  if (p < n && a[p] !== b[p]) return p;
  while (p + CHUNK <= n && a.compare(b, p, p + CHUNK, p, p + CHUNK) === 0) p += CHUNK;
  for (let step = CHUNK >> 1; step >= 16; step >>= 1) if (p + step <= n && a.compare(b, p, p + step, p, p + step) === 0) p += step;
  while (p < n && a[p] === b[p]) p++;
  return p;
}

/** Length of the common suffix of a and b, at most `limit`; `from` (≤ limit): a length they are known to share. */
export function commonSuffix(a: Buffer, b: Buffer, limit: number, from = 0): number {
  const la = a.length;
  const lb = b.length;
  let s = from;
  if (s < limit && a[la - 1 - s] !== b[lb - 1 - s]) return s;
  while (s + CHUNK <= limit && a.compare(b, lb - s - CHUNK, lb - s, la - s - CHUNK, la - s) === 0) s += CHUNK;
  for (let step = CHUNK >> 1; step >= 16; step >>= 1) if (s + step <= limit && a.compare(b, lb - s - step, lb - s, la - s - step, la - s) === 0) s += step;
  while (s < limit && a[la - 1 - s] === b[lb - 1 - s]) s++;
  return s;
}

/** Bytes compared to place a block: a run of wikitext this long rarely repeats in a page. */
const ANCHOR = 64;

/**
 * Equal blocks between the parts of a and b that differ (after their common prefix `prefix` and
 * suffix `suffix`): two edits far apart leave the text between them the same, shifted. Returned as
 * [start in b, end in b, shift (b offset − a offset)] triples in b's order, each at least `minBlock`
 * bytes, at most `maxBlocks`. Any equal bytes are correct blocks (the caller only copies work that
 * read nothing outside one); the search just tries to find long ones: an anchor in the middle of b's
 * part, first at the shift of the prefix or the suffix (an edit inserts or deletes), then anywhere
 * in a's part, grown both ways; then the same on each side of the block.
 */
export function commonBlocks(a: Buffer, b: Buffer, prefix: number, suffix: number, minBlock: number, maxBlocks = 32): number[] {
  const out: number[] = [];
  const shifts = [0, b.length - a.length];
  // searches over a's part: a pair of texts made to defeat the anchors must not cost one per block
  let searches = 16;
  const find = (a0: number, a1: number, b0: number, b1: number, depth: number): void => {
    if (b1 - b0 < minBlock || a1 - a0 < minBlock || depth === 0 || out.length >= maxBlocks * 3) return;
    for (const frac of [0.5, 0.25, 0.75]) {
      const at = b0 + Math.floor((b1 - b0 - ANCHOR) * frac);
      let hit = -1;
      for (const d of shifts) {
        const x = at - d;
        if (x >= a0 && x + ANCHOR <= a1 && a.compare(b, at, at + ANCHOR, x, x + ANCHOR) === 0) {
          hit = x;
          break;
        }
      }
      if (hit < 0) {
        if (searches === 0) continue;
        searches--;
        const h = a.subarray(a0, a1).indexOf(b.subarray(at, at + ANCHOR));
        if (h < 0) continue;
        hit = a0 + h;
      }
      const back = commonSuffix(a.subarray(a0, hit), b.subarray(b0, at), Math.min(hit - a0, at - b0));
      const fwd = commonPrefix(a.subarray(hit, a1), b.subarray(at, b1));
      const as = hit - back;
      const bs = at - back;
      const be = at + fwd;
      if (be - bs < minBlock) continue;
      const d = bs - as;
      if (!shifts.includes(d)) shifts.push(d);
      find(a0, as, b0, bs, depth - 1);
      if (out.length < maxBlocks * 3) out.push(bs, be, d);
      find(as + (be - bs), a1, be, b1, depth - 1);
      return;
    }
  };
  find(prefix, a.length - suffix, prefix, b.length - suffix, 6);
  return out;
}
