/** Hash arithmetic and the properties each perceptual hash is built for, on the real photo. */
import { describe, expect, it } from "vitest";
import { decodeImage, type DecodedImage } from "../../shared/pixels/decode.ts";
import { hammingDistance, hashFromHex, hashToHex, imageHashes, PERCEPTUAL_MODES, perceptualHashes, popcount32, resample } from "../../shared/pixels/hashes.ts";
import { bytesOf, OTHERS, PHOTO } from "./images.ts";

async function photo(): Promise<DecodedImage> {
  const r = await decodeImage(bytesOf(PHOTO.original));
  if (!r.ok) throw new Error(r.message);
  return r.image;
}

describe("hash arithmetic", () => {
  it("Hamming distance counts differing bits over both 32-bit halves", () => {
    expect(hammingDistance(0n, 0xffffffffffffffffn)).toBe(64);
    expect(hammingDistance(0x8000000000000001n, 0n)).toBe(2);
    expect(hammingDistance(0x00000001_00000000n, 0x00000000_00000001n)).toBe(2);
    expect(popcount32(0xffffffff)).toBe(32);
    expect(popcount32(0x80000000 | 0)).toBe(1);
  });

  it("hex is 16 digits and round-trips", () => {
    expect(hashToHex(0xabn)).toBe("00000000000000ab");
    expect(hashFromHex("ffffffffffffffff")).toBe(0xffffffffffffffffn);
    expect(() => hashFromHex("abc")).toThrow(/64-bit/);
  });

  it("area resampling keeps the mean exactly, also for a factor that does not divide", () => {
    const src = Float64Array.from({ length: 64 * 64 }, (_, i) => (i * 37) % 255);
    const mean = (a: Float64Array) => a.reduce((s, v) => s + v, 0) / a.length;
    expect(mean(resample(src, 64, 64, 9, 8))).toBeCloseTo(mean(src), 9);
    expect(mean(resample(src, 64, 64, 8, 8))).toBeCloseTo(mean(src), 9);
  });
});

describe("perceptual hashes of the photo", () => {
  it("median-based hashes set half their bits", async () => {
    const h = imageHashes(await photo());
    expect(h.md5).toMatch(/^[0-9a-f]{32}$/);
    for (const m of ["phash", "rahash"] as const) expect(hammingDistance(h[m], 0n), m).toBe(32);
  });

  it("a uniform brightness offset moves no bit of the mean/median/gradient hashes", async () => {
    const img = await photo();
    const shift = (a: Float64Array) => a.map((v) => v + 20);
    const a = perceptualHashes(img);
    const b = perceptualHashes({ luma: shift(img.luma), centreLuma: shift(img.centreLuma) });
    for (const m of PERCEPTUAL_MODES) expect(hammingDistance(a[m], b[m]), m).toBe(0);
  });

  it("ring hashes do not change when the centred square turns by 90°; the grid hashes do", async () => {
    const img = await photo();
    const turn = (a: Float64Array) => a.map((_, i) => a[(63 - (i % 64)) * 64 + Math.floor(i / 64)]!);
    const a = perceptualHashes(img);
    const b = perceptualHashes({ luma: turn(img.luma), centreLuma: turn(img.centreLuma) });
    expect(hammingDistance(a.rahash, b.rahash)).toBe(0);
    expect(hammingDistance(a.rphash, b.rphash)).toBe(0);
    expect(hammingDistance(a.phash, b.phash)).toBeGreaterThan(16);
  });
});

describe("hash rasters", () => {
  it("area averaging keeps the mean of the window, also for a half-pixel-centred square", async () => {
    const { areaRaster, centreSquare, lumaPlane } = await import("../../shared/pixels/raster.ts");
    const w = 7;
    const h = 4;
    const plane = Float32Array.from({ length: w * h }, (_, i) => i);
    const sq = centreSquare(w, h);
    expect(sq).toEqual({ x: 1.5, y: 0, width: 4, height: 4 });
    const r = areaRaster(plane, w, sq, 2);
    // the top-left cell covers x 1.5…3.5, y 0…2: ½ of column 1, column 2, ½ of column 3, rows 0 and 1
    const cell = (x: number, y: number) => plane[y * w + x]!;
    const expectTopLeft = (0.5 * cell(1, 0) + cell(2, 0) + 0.5 * cell(3, 0) + 0.5 * cell(1, 1) + cell(2, 1) + 0.5 * cell(3, 1)) / 4;
    expect(r[0]).toBeCloseTo(expectTopLeft, 5);
    // transparency is composited onto white
    expect([...lumaPlane(new Uint8Array([0, 0, 0, 0, 0, 0, 0, 255]), 4)]).toEqual([255, 0]);
  });

  it("the one-pass rasters decode.ts uses equal the plane-then-average ones, for colour, grey, alpha and images narrower than the raster", async () => {
    const { areaRaster, areaRasters, centreSquare, lumaPlane } = await import("../../shared/pixels/raster.ts");
    const { default: sharp } = await import("sharp");
    const inputs = [PHOTO.original, PHOTO.thumbnail, OTHERS.transparentLogo].map((p) => sharp(bytesOf(p)));
    inputs.push(sharp(bytesOf(PHOTO.original)).toColourspace("b-w"));
    inputs.push(sharp(bytesOf(PHOTO.losslessPng)).resize(40, 27, { fit: "fill" }), sharp(bytesOf(OTHERS.transparentLogo)).resize(30, 90, { fit: "fill" }));
    const rasters = await Promise.all(inputs.map((img) => img.raw().toBuffer({ resolveWithObject: true }).then(({ data, info }) => ({ data: new Uint8Array(data), ...info }))));
    // grey + alpha: the logo's red and alpha channels
    const logo = rasters[2]!;
    rasters.push({ ...logo, channels: 2, data: Uint8Array.from({ length: logo.width * logo.height * 2 }, (_, i) => logo.data[(i >> 1) * 4 + (i & 1 ? 3 : 0)]!) });
    const channelsSeen = new Set<number>();
    for (const { data, width, height, channels } of rasters) {
      channelsSeen.add(channels);
      const crops = [{ x: 0, y: 0, width, height }, centreSquare(width, height)];
      const plane = lumaPlane(data, channels);
      const fast = areaRasters(data, width, height, channels, crops, 64);
      crops.forEach((crop, i) => {
        const slow = areaRaster(plane, width, crop, 64);
        // the plane stores float32 lumas; the one-pass sums are exact
        const worst = slow.reduce((m, v, j) => Math.max(m, Math.abs(v - fast[i]![j]!)), 0);
        expect(worst, `${width}×${height}×${channels}`).toBeLessThan(1e-4);
      });
    }
    expect([...channelsSeen].sort()).toEqual([1, 2, 3, 4]);
  });
});
