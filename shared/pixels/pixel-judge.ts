/**
 * The pixel stages as an async filter a stage can await (core/filter.ts): an image's bytes are
 * decoded and hashed once per content, the result (facts and hashes, not pixels) cached in the run's
 * item cache under the sha256 of the bytes, so a rerun or retried task reads instead of decoding and
 * gives byte-identical verdicts and hashes.
 */
import { z } from "zod";
import { defineFilter, type Filter } from "../core/filter.ts";
import type { StageContext } from "../core/stage.ts";
import { contentHashOf, decodeImage, DEFAULT_DECODE_OPTIONS, sniffFormat, type DecodeOptions } from "./decode.ts";
import { hashToHex, imageHashes, PERCEPTUAL_MODES } from "./hashes.ts";
import { ImageBoundsSchema, outsideBoundsByHeader, THESIS_IMAGE_BOUNDS, thesisImageFilters, type ImageBounds } from "./image-filters.ts";

/**
 * Item-cache namespaces: bump the version when decoding or a hash changes what it computes. Facts
 * with the pixel MD5 (md5 runs) are kept apart from facts without it (every other pixel pivot, which
 * skip hashing the decoded bytes), so neither is ever read for the other.
 */
export const PIXEL_FACTS_NAMESPACE = "pixel_facts_v2";
export const PIXEL_FACTS_MD5_NAMESPACE = "pixel_facts_md5_v2";

const hex64 = z.string().regex(/^[0-9a-f]{16}$/);

export const PixelFactsSchema = z.discriminatedUnion("ok", [
  z.object({
    ok: z.literal(true),
    format: z.string(),
    byteLength: z.number().int().nonnegative(),
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    transparentPixels: z.number().int().nonnegative(),
    /** null unless asked for (the md5 pivot) */
    md5: z.string().regex(/^[0-9a-f]{32}$/).nullable(),
    ahash: hex64,
    dhash: hex64,
    phash: hex64,
    rahash: hex64,
    rphash: hex64,
  }),
  z.object({
    ok: z.literal(false),
    /** the decoder's reason, or (`header`) the thesis bound the header alone puts the image outside, undecoded */
    reason: z.enum(["empty", "unsupported", "truncated", "corrupt", "too_many_pixels", "too_few_pixels", "too_few_bytes", "too_elongated"]),
    header: z.literal(true).optional(),
  }),
]);
export type PixelFacts = z.infer<typeof PixelFactsSchema>;

/** How pixel stages decode unless told otherwise: no pixel MD5 (only the md5 pivot asks for it). */
export const PIXEL_FACTS_DECODE: DecodeOptions = { ...DEFAULT_DECODE_OPTIONS, md5: false };

/**
 * What one image's bytes are, from the item cache when the context has one; the pixel MD5 only when
 * `decode.md5`. With `gate` (the bounds the run will judge by), an image its header already puts
 * outside them is not decoded (image-filters.ts `outsideBoundsByHeader`): a photo of several
 * megapixels costs tens of milliseconds to decode only to be dropped.
 */
export async function pixelFacts(bytes: Uint8Array, ctx: Pick<StageContext, "itemCache">, decode: DecodeOptions = PIXEL_FACTS_DECODE, gate: ImageBounds | null = null): Promise<PixelFacts> {
  const withMd5 = decode.md5 !== false;
  const contentHash = contentHashOf(bytes);
  const compute = async (): Promise<PixelFacts> => {
    const outside = gate === null ? null : outsideBoundsByHeader(bytes, sniffFormat(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)), gate);
    if (outside !== null) return { ok: false, reason: outside, header: true };
    const r = await decodeImage(bytes, decode, contentHash);
    if (!r.ok) return { ok: false, reason: r.reason };
    const h = imageHashes(r.image);
    const { format, byteLength, width, height, transparentPixels } = r.image;
    return { ok: true, format, byteLength, width, height, transparentPixels, md5: h.md5, ...(Object.fromEntries(PERCEPTUAL_MODES.map((m) => [m, hashToHex(h[m])])) as Record<(typeof PERCEPTUAL_MODES)[number], string>) };
  };
  const cache = ctx.itemCache?.(withMd5 ? PIXEL_FACTS_MD5_NAMESPACE : PIXEL_FACTS_NAMESPACE, PixelFactsSchema);
  // gated facts depend on the bounds: their key names them
  const key = gate === null ? contentHash : `${contentHash} within ${JSON.stringify(ImageBoundsSchema.parse(gate))}`;
  return cache ? cache.getOrCompute(key, compute) : compute();
}

/**
 * The thesis' image filters (4.3.2) on the pixels of whatever `bytesOf` finds for a record (an image
 * group's downloaded file, a sample): one funnel row whose drop reasons are the decoder's (corrupt,
 * truncated, …), `no_image`, and the four bounds' (too_few_pixels, too_many_pixels, too_few_bytes,
 * too_elongated, has_transparency).
 */
export function pixelFilter<T>(bytesOf: (record: T) => Uint8Array | null | Promise<Uint8Array | null>, ctx: Pick<StageContext, "itemCache">, bounds: ImageBounds = THESIS_IMAGE_BOUNDS): Filter<T> {
  const rules = thesisImageFilters(bounds);
  return defineFilter<T>({
    name: "image_pixels_thesis",
    version: 1,
    paperStep: null,
    unit: "image",
    description: `image decodes and has ${bounds.minPixels.toLocaleString("en")}…${bounds.maxPixels.toLocaleString("en")} pixels, ≥ ${bounds.minBytes.toLocaleString("en")} bytes, aspect ≤ ${bounds.maxAspect}, ≤ ${bounds.maxTransparentPixels} transparent pixels (thesis 4.3.2)`,
    keep: async (record) => {
      const bytes = await bytesOf(record);
      if (bytes === null) return { drop: "no_image" };
      const facts = await pixelFacts(bytes, ctx, PIXEL_FACTS_DECODE, bounds);
      if (!facts.ok) return { drop: facts.reason };
      for (const rule of rules) {
        const verdict = rule.keep(facts);
        if (verdict !== true) return verdict;
      }
      return true;
    },
  });
}
