/**
 * Inter-annotator agreement and correlation: Cohen's kappa (Cohen 1960), Fleiss' kappa (Fleiss 1971),
 * Krippendorff's alpha (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability", via the
 * coincidence matrix; any number of coders, missing values, nominal/ordinal/interval/ratio), Pearson's
 * r and Spearman's ρ (Pearson's r of average ranks). The formulas are a few lines each; a value that
 * is undefined (no variation, too few values) is NaN, which callers report as "—".
 */

export interface CohenResult {
  n: number;
  /** observed agreement */
  observed: number;
  /** agreement expected by chance from the two marginals */
  expected: number;
  kappa: number;
}

/** Cohen's kappa of two coders' values on the same items (a[i] and b[i] judge item i). */
export function cohenKappa<T>(a: readonly T[], b: readonly T[]): CohenResult {
  if (a.length !== b.length) throw new RangeError("cohenKappa: the two coders must judge the same items");
  const n = a.length;
  if (n === 0) return { n, observed: NaN, expected: NaN, kappa: NaN };
  const ca = new Map<T, number>();
  const cb = new Map<T, number>();
  let agree = 0;
  for (let i = 0; i < n; i++) {
    if (a[i] === b[i]) agree++;
    ca.set(a[i]!, (ca.get(a[i]!) ?? 0) + 1);
    cb.set(b[i]!, (cb.get(b[i]!) ?? 0) + 1);
  }
  let expected = 0;
  for (const [v, k] of ca) expected += (k / n) * ((cb.get(v) ?? 0) / n);
  const observed = agree / n;
  return { n, observed, expected, kappa: (observed - expected) / (1 - expected) };
}

export interface FleissResult {
  /** subjects */
  n: number;
  /** raters per subject */
  raters: number;
  /** mean per-subject agreement P̄ */
  observed: number;
  /** chance agreement P̄e from the category shares */
  expected: number;
  kappa: number;
}

/**
 * Fleiss' kappa from a subjects × categories table of counts (counts[i][j]: raters who put subject i
 * in category j); every subject must have the same number of raters.
 */
export function fleissKappa(counts: readonly (readonly number[])[]): FleissResult {
  const N = counts.length;
  if (N === 0) return { n: 0, raters: 0, observed: NaN, expected: NaN, kappa: NaN };
  const raters = counts[0]!.reduce((a, b) => a + b, 0);
  const k = counts[0]!.length;
  const colSums = new Array<number>(k).fill(0);
  let pSum = 0;
  for (const row of counts) {
    if (row.length !== k || row.reduce((a, b) => a + b, 0) !== raters) throw new RangeError("fleissKappa: every subject needs the same raters and categories");
    let sq = 0;
    row.forEach((c, j) => {
      colSums[j]! += c;
      sq += c * c;
    });
    pSum += raters < 2 ? NaN : (sq - raters) / (raters * (raters - 1));
  }
  const observed = pSum / N;
  const expected = colSums.reduce((a, c) => a + (c / (N * raters)) ** 2, 0);
  return { n: N, raters, observed, expected, kappa: (observed - expected) / (1 - expected) };
}

export type AlphaMetric = "nominal" | "ordinal" | "interval" | "ratio";

export interface AlphaResult {
  metric: AlphaMetric;
  /** pairable values: those in units with at least two values */
  n: number;
  /** units with at least two values */
  units: number;
  /** observed and expected disagreement */
  observed: number;
  expected: number;
  alpha: number;
}

/**
 * Krippendorff's alpha. `units[u]` holds the values the coders gave unit u (missing values left
 * out); units with fewer than two values are not pairable and do not count. Ordinal, interval and
 * ratio need numeric values; ordinal ranks them by the order of the values seen.
 */
export function krippendorffAlpha(units: readonly (readonly (string | number)[])[], metric: AlphaMetric): AlphaResult {
  const pairable = units.filter((u) => u.length >= 2);
  const values = [...new Set(pairable.flat())];
  if (metric !== "nominal" && values.some((v) => typeof v !== "number")) throw new RangeError(`krippendorffAlpha: ${metric} values must be numbers`);
  values.sort((x, y) => (typeof x === "number" && typeof y === "number" ? x - y : String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0));
  const index = new Map(values.map((v, i) => [v, i]));
  const V = values.length;
  // the coincidence matrix: each unit's m values give m(m−1) ordered pairs, weighted 1/(m−1)
  const o = Array.from({ length: V }, () => new Array<number>(V).fill(0));
  for (const u of pairable) {
    const w = 1 / (u.length - 1);
    for (let i = 0; i < u.length; i++) for (let j = 0; j < u.length; j++) if (i !== j) o[index.get(u[i]!)!]![index.get(u[j]!)!]! += w;
  }
  const nc = o.map((row) => row.reduce((a, b) => a + b, 0));
  const n = nc.reduce((a, b) => a + b, 0);
  const delta2 = (c: number, k: number): number => {
    if (c === k) return 0;
    const vc = values[c] as number;
    const vk = values[k] as number;
    switch (metric) {
      case "nominal":
        return 1;
      case "interval":
        return (vc - vk) ** 2;
      case "ratio":
        return ((vc - vk) / (vc + vk)) ** 2;
      case "ordinal": {
        const [lo, hi] = c < k ? [c, k] : [k, c];
        let s = 0;
        for (let g = lo; g <= hi; g++) s += nc[g]!;
        return (s - (nc[lo]! + nc[hi]!) / 2) ** 2;
      }
    }
  };
  let dObs = 0;
  let dExp = 0;
  for (let c = 0; c < V; c++) {
    for (let k = 0; k < V; k++) {
      const d = delta2(c, k);
      dObs += o[c]![k]! * d;
      dExp += nc[c]! * nc[k]! * d;
    }
  }
  const observed = n > 0 ? dObs / n : NaN;
  const expected = n > 1 ? dExp / (n * (n - 1)) : NaN;
  // n is a sum of fractions 1/(m−1): report the count of pairable values it stands for
  return { metric, n: pairable.reduce((a, u) => a + u.length, 0), units: pairable.length, observed, expected, alpha: n > 1 ? 1 - observed / expected : NaN };
}

/** Pearson's correlation coefficient (NaN with fewer than two points or no variation). */
export function pearson(x: readonly number[], y: readonly number[]): number {
  if (x.length !== y.length) throw new RangeError("pearson: x and y differ in length");
  const n = x.length;
  if (n < 2) return NaN;
  const mx = x.reduce((a, b) => a + b, 0) / n;
  const my = y.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx === 0 || syy === 0 ? NaN : sxy / Math.sqrt(sxx * syy);
}

/** Ranks 1…n, ties sharing their average rank. */
export function averageRanks(x: readonly number[]): number[] {
  const order = x.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const ranks = new Array<number>(x.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++;
    const r = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[order[k]![1]] = r;
    i = j + 1;
  }
  return ranks;
}

/** Spearman's rank correlation: Pearson's r of the average ranks (correct with ties). */
export function spearman(x: readonly number[], y: readonly number[]): number {
  return pearson(averageRanks(x), averageRanks(y));
}
