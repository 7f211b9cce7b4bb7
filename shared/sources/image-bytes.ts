/**
 * Sources whose documents carry the image itself (an img2dataset sample, a WARC image response)
 * say which bytes belong to which image key, so the pixel pipeline (tasks/pixel-pipeline.ts) can
 * decode them where the shard is read. Optional beside the Source contract: a source without it
 * feeds only the key-based pivots.
 */
import type { AnySource } from "./source.ts";

export interface ImageBytes {
  /** the key the document's references name the image by (before any pivot) */
  readonly image: string;
  /** null: the source lists the image but has no bytes for it (a failed download) */
  readonly bytes: Uint8Array | null;
}

export interface ImageBytesSource {
  imagesOf(doc: unknown): readonly ImageBytes[];
}

/** The source's image bytes reader, or null when its documents carry no images. */
export function imageBytesOf(source: AnySource): ImageBytesSource["imagesOf"] | null {
  const s = source as Partial<ImageBytesSource>;
  return typeof s.imagesOf === "function" ? (doc) => s.imagesOf!(doc) : null;
}
