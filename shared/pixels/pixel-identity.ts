/**
 * Pixel identity for a run (the pixel pivots, core/plugin-names.ts): which images take part (the
 * thesis' 4.3.2 filters on their cached facts), the hash a mode groups by and its threshold, and the
 * key an image's references are grouped under.
 */
import { z } from "zod";
import { defineFilterInfo, type Verdict } from "../core/filter.ts";
import type { PixelPivotName } from "../core/plugin-names.ts";
import { DEFAULT_THRESHOLDS, hashFromHex, type PerceptualMode } from "./hashes.ts";
import { THESIS_IMAGE_BOUNDS, thesisImageFilters, type ImageBounds } from "./image-filters.ts";
import { PixelFactsSchema, type PixelFacts } from "./pixel-judge.ts";

/** One image of a shard: its key (as the references name it) and its cached facts; null facts = no bytes. */
export const ImageFactsRecord = z.object({ image: z.string(), facts: PixelFactsSchema.nullable() });
export type ImageFactsRecord = z.infer<typeof ImageFactsRecord>;

/** The funnel row of the pixel stages: one step, the decoder's and the four bounds' reasons. */
export const pixelIdentityInfo = defineFilterInfo({
  name: "image_pixels_thesis",
  version: 1,
  paperStep: null,
  unit: "image",
  description: `image bytes present and decodable, ${THESIS_IMAGE_BOUNDS.minPixels.toLocaleString("en")}…${THESIS_IMAGE_BOUNDS.maxPixels.toLocaleString("en")} pixels, ≥ ${THESIS_IMAGE_BOUNDS.minBytes.toLocaleString("en")} bytes, aspect ≤ ${THESIS_IMAGE_BOUNDS.maxAspect}, opaque (thesis 4.3.2; pixel pivots)`,
});

/** Whether an image takes part in pixel identity: its bytes exist, decode, and pass the thesis' filters. */
export function pixelVerdict(facts: PixelFacts | null | undefined, bounds: ImageBounds = THESIS_IMAGE_BOUNDS): Verdict {
  if (!facts) return { drop: "no_image" };
  if (!facts.ok) return { drop: facts.reason };
  for (const rule of thesisImageFilters(bounds)) {
    const v = rule.keep(facts);
    if (v !== true) return v;
  }
  return true;
}

export interface PixelIdentity {
  readonly mode: PixelPivotName;
  /** Hamming threshold (perceptual modes), 0 for md5 */
  readonly threshold: number;
  /** chaining guard: largest distance inside a group */
  readonly maxDiameter: number;
}

export function pixelIdentity(mode: PixelPivotName, pixels: { threshold: number | null; maxDiameter: number | null } | undefined): PixelIdentity {
  if (mode === "md5") return { mode, threshold: 0, maxDiameter: 0 };
  const threshold = pixels?.threshold ?? DEFAULT_THRESHOLDS[mode];
  return { mode, threshold, maxDiameter: pixels?.maxDiameter ?? 2 * threshold };
}

/** The 64-bit hash a perceptual mode groups by. */
export function perceptualHashOf(facts: Extract<PixelFacts, { ok: true }>, mode: PerceptualMode): bigint {
  return hashFromHex(facts[mode]);
}

/**
 * The key an image's references are grouped under: `md5:<pixels md5>`, or `<mode>:<hash>` of the
 * group's centre (or of the image itself when it has no near duplicate).
 */
export function identityKey(id: PixelIdentity, facts: Extract<PixelFacts, { ok: true }>, groupCentreHash: string | undefined): string {
  if (id.mode === "md5") {
    // facts decoded without the MD5 (another pivot's) must never pass for one shared key
    if (facts.md5 === null) throw new Error("md5 identity needs facts decoded with the pixel MD5 (pixel-judge.ts PIXEL_FACTS_MD5_NAMESPACE)");
    return `md5:${facts.md5}`;
  }
  return `${id.mode}:${groupCentreHash ?? facts[id.mode]}`;
}
