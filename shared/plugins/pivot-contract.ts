/**
 * The pivot contract: what makes two references "the same image". A pivot may only look at the
 * reference, so it runs inside the extract stage on any runner; the registry is plugins/pivots.ts.
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
