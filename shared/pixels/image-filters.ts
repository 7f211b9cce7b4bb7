/**
 * The thesis' image filters (4.3.2), as counted filters: an image needs 3,000 … 1,000,000 pixels,
 * ≥ 3,000 bytes, an aspect ratio (longer / shorter side) ≤ 3 and no transparent pixel. Derived from
 * 3,010 annotated Common Crawl images (Table 4.2): icons, logos and design elements fail them.
 * Images that cannot be decoded are counted by `imageDecodableInfo` with the decoder's reason.
 */
import { z } from "zod";
import { countFilterVerdict, defineFilter, defineFilterInfo, type SyncFilter } from "../core/filter.ts";
import type { Counters } from "../core/counters.ts";
import { imageSize } from "image-size";
import type { DecodeResult, ImageFacts } from "./decode.ts";

export const ImageBoundsSchema = z.object({
  minPixels: z.number().int().nonnegative(),
  maxPixels: z.number().int().positive(),
  minBytes: z.number().int().nonnegative(),
  maxAspect: z.number().min(1),
  /** transparent pixels allowed (the thesis: none) */
  maxTransparentPixels: z.number().int().nonnegative(),
});
export type ImageBounds = z.infer<typeof ImageBoundsSchema>;

/** Thesis 4.3.2. */
export const THESIS_IMAGE_BOUNDS: ImageBounds = { minPixels: 3_000, maxPixels: 1_000_000, minBytes: 3_000, maxAspect: 3, maxTransparentPixels: 0 };

/** The step that counts images the decoder refused (`dropped.<DecodeFailure>`). */
export const imageDecodableInfo = defineFilterInfo({
  name: "image_decodable",
  version: 1,
  paperStep: null,
  unit: "image",
  description: "image bytes decode as a raster image (not corrupt, truncated, of an unsupported format or over the pixel guard)",
});

/** The four thesis filters, in the thesis' order. */
export function thesisImageFilters(bounds: ImageBounds = THESIS_IMAGE_BOUNDS): SyncFilter<ImageFacts>[] {
  const b = ImageBoundsSchema.parse(bounds);
  return [
    defineFilter<ImageFacts>({
      name: "image_pixels",
      version: 1,
      paperStep: null,
      unit: "image",
      description: `image has ${b.minPixels.toLocaleString("en")} … ${b.maxPixels.toLocaleString("en")} pixels (thesis 4.3.2)`,
      keep: (f) => {
        const pixels = f.width * f.height;
        if (pixels < b.minPixels) return { drop: "too_few_pixels" };
        return pixels > b.maxPixels ? { drop: "too_many_pixels" } : true;
      },
    }),
    defineFilter<ImageFacts>({
      name: "image_bytes",
      version: 1,
      paperStep: null,
      unit: "image",
      description: `image file has ≥ ${b.minBytes.toLocaleString("en")} bytes (thesis 4.3.2)`,
      keep: (f) => (f.byteLength >= b.minBytes ? true : { drop: "too_few_bytes" }),
    }),
    defineFilter<ImageFacts>({
      name: "image_aspect",
      version: 1,
      paperStep: null,
      unit: "image",
      description: `longer side ≤ ${b.maxAspect} × shorter side (thesis 4.3.2)`,
      keep: (f) => (aspectRatio(f) <= b.maxAspect ? true : { drop: "too_elongated" }),
    }),
    defineFilter<ImageFacts>({
      name: "image_opaque",
      version: 1,
      paperStep: null,
      unit: "image",
      description: b.maxTransparentPixels === 0 ? "image has no transparent pixel (thesis 4.3.2)" : `image has ≤ ${b.maxTransparentPixels} transparent pixels`,
      keep: (f) => (f.transparentPixels <= b.maxTransparentPixels ? true : { drop: "has_transparency" }),
    }),
  ];
}

export function aspectRatio(f: { width: number; height: number }): number {
  const short = Math.min(f.width, f.height);
  return short === 0 ? Infinity : Math.max(f.width, f.height) / short;
}

/**
 * Counts one decode outcome and, when it decoded, runs the filters on it in order (the first drop
 * ends it, as the funnel counts). True when the image passes everything.
 */
export function judgeImage(result: DecodeResult, filters: readonly SyncFilter<ImageFacts>[], counters: Counters, tier: string): boolean {
  if (!result.ok) {
    countFilterVerdict(imageDecodableInfo, counters, tier, result.reason);
    return false;
  }
  countFilterVerdict(imageDecodableInfo, counters, tier, true);
  for (const filter of filters) {
    const verdict = filter.keep(result.image);
    countFilterVerdict(filter, counters, tier, verdict === true ? true : verdict.drop);
    if (verdict !== true) return false;
  }
  return true;
}

/** The reasons a header alone can give, each with the thesis filter (by name) that gives it after decoding. */
const FILTER_OF_HEADER_DROP = { too_few_pixels: "image_pixels", too_many_pixels: "image_pixels", too_few_bytes: "image_bytes", too_elongated: "image_aspect" } as const;
export type HeaderDrop = keyof typeof FILTER_OF_HEADER_DROP;

/**
 * Counts an image its header put outside the bounds (outsideBoundsByHeader), never decoded, as the
 * drop of the filter that gives the same reason after decoding (judgeImage).
 */
export function judgeByHeader(drop: HeaderDrop, filters: readonly SyncFilter<ImageFacts>[], counters: Counters, tier: string): void {
  const filter = filters.find((f) => f.name === FILTER_OF_HEADER_DROP[drop]);
  if (filter === undefined) throw new Error(`no filter ${FILTER_OF_HEADER_DROP[drop]} to count ${drop} by`);
  countFilterVerdict(filter, counters, tier, drop);
}

/** Formats whose header size is the size the decoder gives (JPEG SOF, PNG IHDR, WebP canvas). */
const HEADER_SIZED = new Set(["jpeg", "png", "webp"]);
/**
 * Formats whose header names a canvas the decoder may not fill exactly (a GIF's logical screen, a
 * TIFF's or HEIF's first image): judged by the header only for the memory bound, too many pixels,
 * where decoding would hold hundreds of MB (a 33 kB GIF can declare 7000 × 7000).
 */
const HEADER_BOUNDED = new Set(["gif", "tiff", "heif", "avif"]);

/**
 * The thesis filter an image fails by its header alone (pixels, bytes, aspect: orientation changes
 * none of them), so the pixel stages need not decode it: null when it passes them or its header
 * cannot be read (then the decoder judges it, and names what is wrong with the bytes). Such an image
 * gets the reason the filters would give after decoding; only bytes that are both outside the bounds
 * and broken are counted by the bound they fail instead of the decoder's complaint.
 */
export function outsideBoundsByHeader(bytes: Uint8Array, format: string | null, bounds: ImageBounds = THESIS_IMAGE_BOUNDS): HeaderDrop | null {
  if (format === null || !(HEADER_SIZED.has(format) || HEADER_BOUNDED.has(format))) return null;
  let size: { width: number; height: number };
  try {
    size = imageSize(bytes);
  } catch {
    return null;
  }
  if (!(size.width > 0 && size.height > 0)) return null;
  const facts: ImageFacts = { byteLength: bytes.length, width: size.width, height: size.height, transparentPixels: 0 };
  for (const filter of thesisImageFilters(bounds)) {
    const verdict = filter.keep(facts);
    if (verdict === true) continue;
    const drop = verdict.drop as HeaderDrop;
    // (a canvas the decoder may not fill exactly is trusted for the bytes and the memory bound only)
    return HEADER_SIZED.has(format) || drop === "too_few_bytes" || drop === "too_many_pixels" ? drop : null;
  }
  return null;
}
