/**
 * The fast rasters and hashes (raster.ts `hashRasters`: one pass with RGBA read as words, equal
 * crops sharing their sums, the transparency count folded in; hashes.ts with prebuilt resampling
 * plans) give the very same bits as the code before them (test/pixels/reference/*-v1.ts), on
 * pixels made to reach every path: 1 to 4 channels, images narrower or shorter than the raster,
 * square ones (one shared plan), odd sizes whose cells split pixels, alpha of every kind, and an
 * RGBA buffer that does not start on a word (the byte path).
 */
import { describe, expect, it } from "vitest";
import { HASH_RASTER_SIDE } from "../../shared/pixels/decode.ts";
import { perceptualHashes } from "../../shared/pixels/hashes.ts";
import { areaRasters, centreSquare, hashRasters } from "../../shared/pixels/raster.ts";
import { perceptualHashes as perceptualHashesV1 } from "./reference/hashes-v1.ts";
import { areaRastersV1, countTransparentV1 } from "./reference/raster-v1.ts";
import { rng } from "../seeded-random.ts";

/** the same pixels on every run */
const random = rng;

type Alpha = "opaque" | "one transparent" | "mixed" | "clear";

/** Smooth content plus noise (so hashes have real structure), alpha as asked. */
function pixels(width: number, height: number, channels: number, alpha: Alpha, seed: number): Uint8Array {
  const next = random(seed);
  const data = new Uint8Array(width * height * channels);
  const colour = channels >= 3 ? 3 : 1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * channels;
      for (let c = 0; c < colour; c++) data[i + c] = Math.max(0, Math.min(255, Math.round(128 + 90 * Math.sin((x * (c + 1)) / 17 + y / 23) + 30 * (next() - 0.5))));
      if (channels === 2 || channels === 4) data[i + channels - 1] = alpha === "clear" ? 0 : alpha === "mixed" && next() < 0.3 ? Math.floor(next() * 256) : 255;
    }
  }
  if (alpha === "one transparent" && (channels === 2 || channels === 4)) data[Math.floor(next() * width * height) * channels + channels - 1] = 254;
  return data;
}

const SHAPES: [number, number][] = [
  [1, 1],
  [1, 130],
  [130, 1],
  [3, 7],
  [63, 64],
  [64, 64],
  [65, 66],
  [100, 67],
  [67, 100],
  [129, 129],
  [300, 100],
  [333, 500],
  [500, 333],
  [641, 97],
];

const bytesOf = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe("hashRasters and the hashes equal the code before the speed-up, bit for bit", () => {
  let seed = 1;
  for (const channels of [1, 2, 3, 4]) {
    const alphas: Alpha[] = channels === 2 || channels === 4 ? ["opaque", "one transparent", "mixed", "clear"] : ["opaque"];
    for (const alpha of alphas) {
      it(`${channels} channel(s), ${alpha}`, () => {
        for (const [width, height] of SHAPES) {
          const data = pixels(width, height, channels, alpha, seed++);
          const crops = [{ x: 0, y: 0, width, height }, centreSquare(width, height)];
          const [luma, centreLuma] = areaRastersV1(data, width, height, channels, crops, HASH_RASTER_SIDE) as [Float64Array, Float64Array];
          const fast = hashRasters(data, width, height, channels, HASH_RASTER_SIDE);
          const shape = `${width}×${height}×${channels} ${alpha}`;
          expect(bytesOf(fast.luma).equals(bytesOf(luma)), shape).toBe(true);
          expect(bytesOf(fast.centreLuma).equals(bytesOf(centreLuma)), shape).toBe(true);
          expect(fast.transparentPixels, shape).toBe(channels === 2 || channels === 4 ? countTransparentV1(data, channels) : 0);
          if (alpha === "one transparent") expect(fast.transparentPixels, shape).toBe(1);
          expect(perceptualHashes(fast), shape).toEqual(perceptualHashesV1({ luma, centreLuma }));
          // the general entry point, crops repeated and in another order
          const again = areaRasters(data, width, height, channels, [crops[1]!, crops[0]!, crops[1]!], HASH_RASTER_SIDE);
          expect(again.map((r, i) => bytesOf(r).equals(bytesOf([centreLuma, luma, centreLuma][i]!))), shape).toEqual([true, true, true]);
        }
      });
    }
  }

  it("an RGBA buffer that does not start on a word boundary (read byte by byte) gives the same", () => {
    const [width, height] = [333, 217];
    const data = pixels(width, height, 4, "mixed", 99);
    const shifted = new Uint8Array(data.length + 1).subarray(1);
    shifted.set(data);
    const a = hashRasters(data, width, height, 4, HASH_RASTER_SIDE);
    const b = hashRasters(shifted, width, height, 4, HASH_RASTER_SIDE);
    expect(bytesOf(b.luma).equals(bytesOf(a.luma))).toBe(true);
    expect(bytesOf(b.centreLuma).equals(bytesOf(a.centreLuma))).toBe(true);
    expect(b.transparentPixels).toBe(a.transparentPixels);
  });

  it("hashes of arbitrary rasters (no image behind them) are the old ones", () => {
    const next = random(7);
    for (let i = 0; i < 50; i++) {
      const luma = Float64Array.from({ length: HASH_RASTER_SIDE ** 2 }, () => next() * 255);
      const centreLuma = Float64Array.from({ length: HASH_RASTER_SIDE ** 2 }, (_, j) => (j % 3 === 0 ? 128 : next() * 255));
      expect(perceptualHashes({ luma, centreLuma })).toEqual(perceptualHashesV1({ luma, centreLuma }));
    }
  });
});
