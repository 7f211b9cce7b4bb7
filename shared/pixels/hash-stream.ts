/**
 * Decode and hash a stream of samples with a few images in flight (sharp decodes on libuv's thread
 * pool, so several decodes overlap with the hashing on the main thread), in input order.
 */
import { decodeImage, DEFAULT_DECODE_OPTIONS, sniffFormat, type DecodeOptions, type DecodeResult } from "./decode.ts";
import { imageSize } from "image-size";
import { imageHashes, type ImageHashes } from "./hashes.ts";
import { outsideBoundsByHeader, type HeaderDrop, type ImageBounds } from "./image-filters.ts";
import type { PixelSample } from "./img2dataset.ts";

export interface HashedSample {
  readonly sample: PixelSample;
  /** null: the sample has no image (a failed download), or its header put it outside the gate (`outside`) */
  readonly decoded: DecodeResult | null;
  /** present when the image decoded */
  readonly hashes: ImageHashes | null;
  /** the bound of the gate the image's header fails: not decoded */
  readonly outside?: HeaderDrop;
}

export interface HashStreamOptions {
  decode?: DecodeOptions;
  /** images decoded at once (default 4) */
  concurrency?: number;
  /** pixels (by their headers) decoded at once, the first image whatever its size (default 64 million: about 256 MB decoded) */
  pixelBudget?: number;
  /** bounds the caller will judge by: an image its header already puts outside them is not decoded */
  gate?: ImageBounds | null;
}

export async function* hashSamples(samples: AsyncIterable<PixelSample>, opts: HashStreamOptions = {}): AsyncGenerator<HashedSample> {
  const concurrency = Math.max(1, opts.concurrency ?? 4);
  const budget = opts.pixelBudget ?? 64_000_000;
  // a few large images (a 7000 × 7000 PNG of 0.3 MB is 196 MB decoded) are decoded one at a time
  const window: { result: Promise<HashedSample>; pixels: number }[] = [];
  let inFlight = 0;
  const next = async () => {
    const head = window.shift()!;
    inFlight -= head.pixels;
    return head.result;
  };
  for await (const sample of samples) {
    const outside = opts.gate && sample.bytes ? outsideBoundsByHeader(sample.bytes, sniffFormat(Buffer.from(sample.bytes.buffer, sample.bytes.byteOffset, sample.bytes.byteLength)), opts.gate) : null;
    // an image outside the gate takes no pixels: a 7000 × 7000 PNG its header rejects is never decoded
    const pixels = outside === null ? headerPixels(sample.bytes) : 0;
    while (window.length > 0 && (window.length >= concurrency || inFlight + pixels > budget)) yield await next();
    const result = outside === null ? hashOne(sample, opts.decode ?? DEFAULT_DECODE_OPTIONS) : Promise.resolve({ sample, decoded: null, hashes: null, outside });
    window.push({ result, pixels });
    inFlight += pixels;
  }
  while (window.length > 0) yield await next();
}

/** The pixels an image's header declares, 0 when it tells none (the decoder's own guard bounds those). */
function headerPixels(bytes: Uint8Array | null): number {
  if (bytes === null) return 0;
  try {
    const { width, height } = imageSize(bytes);
    return width > 0 && height > 0 ? width * height : 0;
  } catch {
    return 0;
  }
}

export async function hashOne(sample: PixelSample, decode: DecodeOptions = DEFAULT_DECODE_OPTIONS): Promise<HashedSample> {
  if (sample.bytes === null) return { sample, decoded: null, hashes: null };
  const decoded = await decodeImage(sample.bytes, decode);
  return { sample, decoded, hashes: decoded.ok ? imageHashes(decoded.image) : null };
}
