/**
 * The pivot contract: what makes two references "the same image". An image pivot may only look at
 * the reference, so it runs inside the extract stage on any runner; the registry is plugins/pivots.ts.
 *
 * A text pivot looks at the captions instead: the extract stage asks it for the keys of each caption
 * text (several per caption, or none) and sends one copy of the reference per key, carrying only that
 * caption; the group stage then groups by key as it groups by image, and asks the pivot whether two
 * captions met under a key are a candidate. Both calls are pure, so both runners give the same pairs.
 */

export interface PivotInput {
  /** normalised file key from the source (`File:Foo bar.jpg` for Wikipedia, a normalised URL for the web) */
  readonly image: string;
  readonly page: string;
}

export interface ImagePivot {
  readonly id: string;
  key(ref: PivotInput): string;
}

/** Why two captions met under one key are not a candidate (counted per reason), or how they were found. */
export type TextPivotVerdict =
  | { readonly drop: string }
  | { readonly estimate?: number; readonly jaccard?: number };

export interface TextPivot {
  readonly id: string;
  readonly kind: "text";
  /** the group keys of one (preprocessed) caption text; none: the caption joins no group */
  keys(text: string): readonly string[];
  /**
   * Whether captions `a` and `b` (different texts of different images) met under `key` are a
   * candidate. A pair that meets under several keys must be kept under one of them only.
   */
  pair(a: string, b: string, key: string): TextPivotVerdict;
  /** groups with more members than this are not paired (counted): bounds the pairs of one key */
  readonly bucketCap: number;
}

export type Pivot = ImagePivot | TextPivot;

export function isTextPivot(p: Pivot): p is TextPivot {
  return "kind" in p && p.kind === "text";
}
