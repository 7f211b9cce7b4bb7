/**
 * Sumo (Cordeiro et al. 2007; thesis eq. 4.6–4.7), which rewards lexical overlap WITHOUT near-identity:
 * S = α·log2(max(|a|,|b|)/λ) + β·log2(min(|a|,|b|)/λ), λ = exclusive unigram links (multiset intersection size);
 * sumo = S if S < 1 else e^(−k·S). α = β = 0.5, k = 3. λ = 0 → 0; identical texts → S = 0 → 0 (by design).
 */
export const SUMO_ALPHA = 0.5;
export const SUMO_BETA = 0.5;
export const SUMO_K = 3;

/** Sumo from the two word counts and the number of exclusive unigram links λ. */
export function sumo(lengthA: number, lengthB: number, links: number): number {
  if (links === 0) return 0;
  const longer = Math.max(lengthA, lengthB);
  const shorter = Math.min(lengthA, lengthB);
  const s = SUMO_ALPHA * Math.log2(longer / links) + SUMO_BETA * Math.log2(shorter / links);
  return s < 1 ? s : Math.exp(-SUMO_K * s);
}
