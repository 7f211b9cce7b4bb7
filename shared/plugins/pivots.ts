/**
 * Pivots decide what makes two references "the same image": the key references are grouped by.
 * Wikipedia's is resource identity (one Commons file = one normalised `File:` key). The roadmap's
 * pixel MD5, perceptual hashes, min-hash and canonical-caption pivots plug in here; a pivot may
 * only look at the reference, so it can run inside the extract stage on any runner.
 */
export interface PivotInput {
  /** normalised file key from the source (`File:Foo bar.jpg` for Wikipedia) */
  readonly image: string;
  readonly page: string;
}

export interface ImagePivot {
  readonly id: string;
  key(ref: PivotInput): string;
}

const PIVOTS = {
  /** Same resource: the normalised file name (File:/Image:/aliases, case of first letter, underscores). */
  resource: (): ImagePivot => ({ id: "resource", key: (ref) => ref.image }),
} satisfies Record<string, () => ImagePivot>;

export type PivotName = keyof typeof PIVOTS;
export const PIVOT_NAMES = Object.keys(PIVOTS) as [PivotName, ...PivotName[]];

export function createPivot(name: PivotName): ImagePivot {
  return PIVOTS[name]();
}
