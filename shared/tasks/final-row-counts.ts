/**
 * A tier's final funnel row (distinct images, uses and caption entries among its pairs, each weighted
 * by the references it stands for) without a map over every pair: the pairs' sides are sorted by
 * (image, use, caption type) through a Sorter and counted as they come back, so only the current
 * image is held. A text pair's partition (its caption texts) says nothing of its image, so the
 * counts cannot be taken per partition and summed.
 */
import type { ScoredPair } from "../core/records.ts";
import type { FinalRowCounts } from "../output/stats.ts";
import type { Sorter } from "../pipeline/sorter.ts";

/** One side of a final pair: image, use (page, revision, position), caption type, weight, place in the pairs' order. */
interface Side {
  i: string;
  u: string;
  t: string;
  w: number;
  n: number;
}

/**
 * JSON keeps each field whole (no separator can occur inside one), so the sides of one image, and
 * of one use, are contiguous in key order.
 */
const sideKey = (s: Side) => JSON.stringify([s.i, s.u, s.t]);

/** The counts over `pairs` (read once, to the end); a use met more than once weighs as its last meeting says. */
export async function finalRowCounts(pairs: AsyncIterable<Pick<ScoredPair, "image" | "type" | "a" | "b">>, sort: Sorter, name = "uses"): Promise<FinalRowCounts> {
  let count = 0;
  async function* sides(): AsyncGenerator<Side> {
    let n = 0;
    for await (const pair of pairs) {
      count++;
      for (const s of [pair.a, pair.b]) {
        yield { i: pair.image, u: `${s.pageId}\u0000${s.page}\u0000${s.revisionId}\u0000${s.ordinal}`, t: pair.type, w: s.uses, n: n++ };
      }
    }
  }
  const c: FinalRowCounts = { images: 0, images_ge2: 0, images_ge5: 0, references: 0, captions: 0, pairs: 0 };
  let prev: Side | null = null;
  /** the last meeting of the current use */
  let use: Side | null = null;
  /** the current image's distinct uses, weighted */
  let imageUses = 0;
  const endUse = () => {
    c.references += use!.w;
    imageUses += use!.w;
  };
  const endImage = () => {
    if (imageUses >= 2) c.images_ge2++;
    if (imageUses >= 5) c.images_ge5++;
    imageUses = 0;
  };
  for await (const s of sort(sides(), sideKey, name)) {
    const newImage = prev === null || s.i !== prev.i;
    const newUse = newImage || s.u !== prev!.u;
    // a caption entry's sides come in the pairs' order: the last before the next entry is its last meeting
    if (prev !== null && (newUse || s.t !== prev.t)) c.captions += prev.w;
    if (newUse && use !== null) endUse();
    if (newImage && prev !== null) endImage();
    if (newImage) c.images++;
    if (newUse || s.n > use!.n) use = s;
    prev = s;
  }
  if (prev !== null) {
    c.captions += prev.w;
    endUse();
    endImage();
  }
  c.pairs = count;
  return c;
}
