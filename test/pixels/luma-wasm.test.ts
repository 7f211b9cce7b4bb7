/**
 * The WebAssembly SIMD kernel behind raster.ts (luma-wasm.ts) runs on this Node (so
 * raster-identity.test.ts holds it, not the JavaScript fallback, to the code before), computes the
 * integers the JavaScript row loops add up, and gives the old rasters on shapes that cross its
 * bands: rows wider than a band, bands whose pixel count is not a multiple of four, and rows too wide
 * for it.
 */
import { describe, expect, it } from "vitest";
import { HASH_RASTER_SIDE } from "../../shared/pixels/decode.ts";
import { lumaKernel } from "../../shared/pixels/luma-wasm.ts";
import { centreSquare, hashRasters } from "../../shared/pixels/raster.ts";
import { areaRastersV1, countTransparentV1 } from "./reference/raster-v1.ts";
import { rng } from "../seeded-random.ts";

const bytesOf = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

function randomPixels(n: number, seed: number): Uint8Array {
  const next = rng(seed);
  // alpha: mostly opaque or clear, some partial, as on real images
  return Uint8Array.from({ length: n }, (_, i) => (i % 4 === 3 ? [255, 0, Math.floor(next() * 256)][Math.floor(next() * 3)]! : Math.floor(next() * 256)));
}

describe("luma-wasm kernel", () => {
  const k = lumaKernel();

  it("is available (WebAssembly SIMD on Node 20+)", () => {
    expect(k).not.toBeNull();
  });

  it("gives each pixel's scaled luma, the transparency count of whole groups of four, and cell sums weighed into a raster row as JavaScript computes them", () => {
    const kernel = k!;
    kernel.reserve(1 << 16);
    for (const n of [1, 3, 4, 5, 11, 64, 101]) {
      const pixels = randomPixels(4 * n, n);
      const memory = () => new Uint8Array(kernel.memory.buffer);
      memory().set(pixels, 0);
      const count = kernel.luma4(0, 8192, n);
      const values = new Int32Array(kernel.memory.buffer, 8192, n);
      let expected = 0;
      for (let i = 0; i < n; i++) {
        const [r, g, b, a] = [pixels[4 * i]!, pixels[4 * i + 1]!, pixels[4 * i + 2]!, pixels[4 * i + 3]!];
        expect(values[i], `rgba ${n}:${i}`).toBe(a * (299 * r + 587 * g + 114 * b) + (255 - a) * 255_000);
        if (i < n - (n % 4) && a !== 255) expected++;
      }
      expect(count).toBe(expected);
      kernel.luma3(0, 16384, n);
      const rgb = new Int32Array(kernel.memory.buffer, 16384, n);
      for (let i = 0; i < n; i++) expect(rgb[i], `rgb ${n}:${i}`).toBe(299 * pixels[3 * i]! + 587 * pixels[3 * i + 1]! + 114 * pixels[3 * i + 2]!);
      // one row into one raster row: cells with and without whole pixels, runs of every length (the eight-at-a-time path included)
      const spans = [[0, 1, 1, 0], [0, 1, n, n - 1], [n >> 1, (n >> 1) + 1, Math.max((n >> 1) + 1, n - 1), n - 1]];
      const edge = [[0.25, 0], [0.5, 0.75], [0.125, 1]];
      new Int32Array(kernel.memory.buffer, 24576, 12).set(spans.flat());
      new Float64Array(kernel.memory.buffer, 28672, 6).set(edge.flat());
      const out = new Float64Array(kernel.memory.buffer, 32768, 3);
      out.set([1.5, 0, 7]);
      kernel.cells(8192, 24576, 28672, 32768, 3, 0.3);
      const sumOf = (from: number, to: number) => Array.from(values.subarray(from, to)).reduce((s, v) => s + v, 0);
      const weighed = spans.map(([lo, from, to, hi], c) => [1.5, 0, 7][c]! + 0.3 * (edge[c]![0]! * values[lo!]! + sumOf(from!, to!) + edge[c]![1]! * values[hi!]!));
      expect(Array.from(out), `cells ${n}`).toEqual(weighed);
    }
  });

  it("rasters of rows wider than a band, and of bands that end inside a group of four, are the old ones", () => {
    // the last: wider than the kernel takes (the JavaScript loops)
    for (const [width, height, channels, seed] of [[17_001, 3, 4, 1], [16_389, 2, 3, 2], [641, 97, 4, 3], [997, 45, 4, 4], [70_001, 2, 4, 5]] as const) {
      const data = channels === 4 ? randomPixels(width * height * 4, seed) : randomPixels(width * height * 3, seed);
      const crops = [{ x: 0, y: 0, width, height }, centreSquare(width, height)];
      const [luma, centreLuma] = areaRastersV1(data, width, height, channels, crops, HASH_RASTER_SIDE) as [Float64Array, Float64Array];
      const fast = hashRasters(data, width, height, channels, HASH_RASTER_SIDE);
      const shape = `${width}×${height}×${channels}`;
      expect(bytesOf(fast.luma).equals(bytesOf(luma)), shape).toBe(true);
      expect(bytesOf(fast.centreLuma).equals(bytesOf(centreLuma)), shape).toBe(true);
      expect(fast.transparentPixels, shape).toBe(channels === 4 ? countTransparentV1(data, 4) : 0);
    }
  });
});
