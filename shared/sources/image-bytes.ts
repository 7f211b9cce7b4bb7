/**
 * Sources whose documents carry the image itself (an img2dataset sample, a WARC image response)
 * say which bytes belong to which image key, so the pixel pipeline (tasks/pixel-pipeline.ts) can
 * decode them where the shard is read. Optional beside the Source contract: a source without it
 * feeds only the key-based pivots.
 *
 * A crawl may also store a capture as a revisit of an earlier one (a WARC `revisit`): the source
 * resolves what it can within a shard and hands on the rest as pending revisits, which the pixel
 * pipeline joins to the captures of the run's other shards (tasks/hash-index-task.ts), so the
 * pixels a revisit gets do not depend on how the crawl was cut into shards.
 */
import type { Counters } from "../core/counters.ts";
import type { InputKind } from "../core/records.ts";
import type { AnySource } from "./source.ts";

export interface ImageBytes {
  /** the key the document's references name the image by (before any pivot) */
  readonly image: string;
  /** null: the source lists the image but has no bytes for it (a failed download) */
  readonly bytes: Uint8Array | null;
}

/** A revisit whose original capture its shard did not read: the run's other shards may hold it. */
export interface PendingRevisit {
  /** how it names its original: one of the keys `captureKeysOf` gives an image capture */
  readonly original: string;
  /** the key references name the revisit's own URL by; null when no image could have its URL */
  readonly image: string | null;
  /** its shard counted it as an image revisit left unresolved (false: nothing in it said it was an image) */
  readonly counted: boolean;
}

export interface ImageBytesSource {
  imagesOf(doc: unknown): readonly ImageBytes[];
  /** the keys a revisit elsewhere in the run may name this document's capture by (its one image's) */
  captureKeysOf?(doc: unknown): readonly string[];
  /** the revisit a document stands for, when its shard could not resolve it; such a document is no document of the run */
  pendingRevisitOf?(doc: unknown): PendingRevisit | null;
  /** counts a pending revisit resolved after all, as its shard counts one it resolves */
  countResolvedRevisit?(revisit: PendingRevisit, kind: InputKind, counters: Counters): void;
}

/** The source's image bytes reader, or null when its documents carry no images. */
export function imageBytesOf(source: AnySource): ImageBytesSource["imagesOf"] | null {
  const s = source as Partial<ImageBytesSource>;
  return typeof s.imagesOf === "function" ? (doc) => s.imagesOf!(doc) : null;
}

/** The source's revisit hooks (all three), or null when it hands on no revisits. */
export function revisitLinksOf(source: AnySource): Required<Pick<ImageBytesSource, "captureKeysOf" | "pendingRevisitOf" | "countResolvedRevisit">> | null {
  const s = source as Partial<ImageBytesSource>;
  if (typeof s.captureKeysOf !== "function" || typeof s.pendingRevisitOf !== "function" || typeof s.countResolvedRevisit !== "function") return null;
  return { captureKeysOf: (doc) => s.captureKeysOf!(doc), pendingRevisitOf: (doc) => s.pendingRevisitOf!(doc), countResolvedRevisit: (r, kind, c) => s.countResolvedRevisit!(r, kind, c) };
}
