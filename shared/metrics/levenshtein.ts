/**
 * Word-level Levenshtein DISTANCE normalised by the longer text: edits (unit insert/delete/substitute) ÷
 * max(|a|, |b|), in [0, 1], 0 = identical. Two empty texts → 0 (the Java reference returns NaN).
 */
export function normalisedLevenshtein(a: Int32Array, b: Int32Array): number {
  const longer = Math.max(a.length, b.length);
  if (longer === 0) return 0;
  return levenshteinDistance(a, b) / longer;
}

/** Unit-cost edit distance between two id sequences (two-row dynamic programme). */
export function levenshteinDistance(a: Int32Array, b: Int32Array): number {
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prev = new Int32Array(b.length + 1);
  let cur = new Int32Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    const ai = a[i - 1]!;
    for (let j = 1; j <= b.length; j++) {
      const substitution = prev[j - 1]! + (ai === b[j - 1]! ? 0 : 1);
      const deletion = prev[j]! + 1;
      const insertion = cur[j - 1]! + 1;
      cur[j] = Math.min(substitution, deletion, insertion);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}
