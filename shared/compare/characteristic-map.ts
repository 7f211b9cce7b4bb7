/**
 * The characteristic map of a paraphrase corpus (Gohsen et al. 2023, §4 and Figure 2): a 5×5 grid of
 * syntactic level × semantic level, each cell the share of the corpus's pairs whose scores fall in it.
 * Levels are [0, 0.2), [0.2, 0.4), [0.4, 0.6), [0.6, 0.8), [0.8, 1]; a score outside [0, 1] is clamped
 * to the nearest level (scores are normalised, so only rounding can put one there).
 *
 * Shared by the HTML report and by corpus comparison: both must draw the same grid for the same pairs.
 */
import { z } from "zod";

export const MAP_LEVELS = 5;
/** "[0, 0.2)", …, "[0.8, 1]": the label of each level, lowest first */
export const LEVEL_LABELS = Array.from({ length: MAP_LEVELS }, (_, i) => {
  const lo = i / MAP_LEVELS;
  const hi = (i + 1) / MAP_LEVELS;
  return i === MAP_LEVELS - 1 ? `[${lo}, ${hi}]` : `[${lo}, ${hi})`;
});

/** The level (0…4) of a score in [0, 1]; 1 belongs to the top level. */
export function levelOf(score: number): number {
  if (!Number.isFinite(score)) throw new RangeError(`not a score: ${score}`);
  // the epsilon keeps 0.6 (stored as 0.59999…) out of a lower level than its printed value says
  return Math.min(MAP_LEVELS - 1, Math.max(0, Math.floor(score * MAP_LEVELS + 1e-9)));
}

/** shares[syntacticLevel][semanticLevel]; rows sum with the other rows to 1 (0 everywhere when n = 0). */
export const CharacteristicMap = z.object({
  n: z.number().int().nonnegative(),
  /** counts[syntacticLevel][semanticLevel] */
  counts: z.array(z.array(z.number().int().nonnegative()).length(MAP_LEVELS)).length(MAP_LEVELS),
  shares: z.array(z.array(z.number().min(0).max(1)).length(MAP_LEVELS)).length(MAP_LEVELS),
});
export type CharacteristicMap = z.infer<typeof CharacteristicMap>;

/** Counts pairs into the grid one at a time (datasets are streamed, never held). */
export class CharacteristicMapBuilder {
  private readonly counts = Array.from({ length: MAP_LEVELS }, () => new Array<number>(MAP_LEVELS).fill(0));
  private n = 0;

  /** @returns the cell the pair fell in, [syntactic level, semantic level] */
  add(syntactic: number, semantic: number): [number, number] {
    const cell: [number, number] = [levelOf(syntactic), levelOf(semantic)];
    this.counts[cell[0]]![cell[1]]!++;
    this.n++;
    return cell;
  }

  toJSON(): CharacteristicMap {
    const n = this.n;
    return { n, counts: this.counts.map((r) => [...r]), shares: this.counts.map((r) => r.map((c) => (n === 0 ? 0 : c / n))) };
  }
}

/** The map of a list of (syntactic, semantic) score pairs. */
export function characteristicMap(scores: Iterable<readonly [syntactic: number, semantic: number]>): CharacteristicMap {
  const b = new CharacteristicMapBuilder();
  for (const [syn, sem] of scores) b.add(syn, sem);
  return b.toJSON();
}

/** A map given only as shares (a published summary): counts are rebuilt from n, rounded. */
export function mapFromShares(n: number, shares: number[][]): CharacteristicMap {
  return CharacteristicMap.parse({ n, shares, counts: shares.map((r) => r.map((s) => Math.round(s * n))) });
}
