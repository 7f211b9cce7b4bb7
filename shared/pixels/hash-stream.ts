/**
 * Decode and hash a stream of samples with a few images in flight (sharp decodes on libuv's thread
 * pool, so several decodes overlap with the hashing on the main thread), in input order.
 */
import { decodeImage, DEFAULT_DECODE_OPTIONS, type DecodeOptions, type DecodeResult } from "./decode.ts";
import { imageHashes, type ImageHashes } from "./hashes.ts";
import type { PixelSample } from "./img2dataset.ts";

export interface HashedSample {
  readonly sample: PixelSample;
  /** null: the sample has no image (a failed download) */
  readonly decoded: DecodeResult | null;
  /** present when the image decoded */
  readonly hashes: ImageHashes | null;
}

export interface HashStreamOptions {
  decode?: DecodeOptions;
  /** images decoded at once (default 4) */
  concurrency?: number;
}

export async function* hashSamples(samples: AsyncIterable<PixelSample>, opts: HashStreamOptions = {}): AsyncGenerator<HashedSample> {
  const concurrency = Math.max(1, opts.concurrency ?? 4);
  const window: Promise<HashedSample>[] = [];
  for await (const sample of samples) {
    window.push(hashOne(sample, opts.decode ?? DEFAULT_DECODE_OPTIONS));
    if (window.length >= concurrency) yield await window.shift()!;
  }
  while (window.length > 0) yield await window.shift()!;
}

export async function hashOne(sample: PixelSample, decode: DecodeOptions = DEFAULT_DECODE_OPTIONS): Promise<HashedSample> {
  if (sample.bytes === null) return { sample, decoded: null, hashes: null };
  const decoded = await decodeImage(sample.bytes, decode);
  return { sample, decoded, hashes: decoded.ok ? imageHashes(decoded.image) : null };
}
