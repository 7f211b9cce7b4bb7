/**
 * Pins the distance table docs/image-hash-variants.md (scripts/bench/image-hash-variants.ts): the
 * Hamming distance from the photo to each variant for every mode, which transformations each mode
 * survives at its default threshold, and that no mode takes a different photo, the near-blank image
 * or a logo for the photo. Distances may move by a bit or two with the decoder version; the
 * verdicts may not. (The rows of flat synthetic images moved when the rasters' sums became exact
 * (raster.ts areaRasters): a difference hash of two equal cells is 0, where float32 rounding used to
 * decide it; no variant of the photo moved.)
 */
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MODE, DEFAULT_THRESHOLDS, PERCEPTUAL_MODES, type PerceptualMode } from "../../shared/pixels/hashes.ts";
import { matches, variantTable, type VariantRow } from "../../scripts/bench/lib/image-variants.ts";

// ahash dhash phash rahash rphash
const PINNED: Record<string, [number, number, number, number, number]> = {
  "lossless PNG": [0, 0, 0, 0, 0],
  "low-quality JPEG": [0, 1, 0, 0, 0],
  "thumbnail 100×67": [1, 1, 0, 6, 2],
  watermark: [4, 3, 4, 8, 10],
  brightened: [5, 4, 2, 4, 8],
  darkened: [2, 1, 4, 4, 8],
  "hue-shifted": [0, 1, 0, 2, 4],
  "JPEG q80": [0, 0, 0, 0, 0],
  "JPEG q20": [0, 0, 0, 0, 2],
  "scaled 75%": [0, 0, 0, 0, 2],
  "skewed 300×100": [0, 0, 0, 22, 22],
  flipped: [12, 12, 30, 0, 0],
  "rotated 180°": [24, 24, 32, 0, 0],
  "rotated 90°": [34, 25, 30, 0, 0],
  "rotated 30°": [40, 40, 40, 6, 16],
  "different photo": [32, 27, 32, 52, 38],
  "cat (grey)": [26, 27, 32, 16, 22],
  shapes: [37, 38, 36, 22, 38],
  "near-blank white": [32, 28, 36, 32, 32],
  "logo on transparent": [36, 31, 30, 16, 36],
  "logo on white": [34, 31, 32, 18, 38],
  "logo 2 on transparent": [32, 37, 30, 18, 36],
  "Big Buck Bunny": [27, 28, 30, 40, 40],
};

/** The variants each mode must find at its threshold (the rest it misses, by design of the mode). */
const SURVIVES: Record<PerceptualMode, string[]> = {
  ahash: ["lossless PNG", "low-quality JPEG", "thumbnail 100×67", "watermark", "brightened", "darkened", "hue-shifted", "JPEG q80", "JPEG q20", "scaled 75%", "skewed 300×100"],
  dhash: ["lossless PNG", "low-quality JPEG", "thumbnail 100×67", "watermark", "brightened", "darkened", "hue-shifted", "JPEG q80", "JPEG q20", "scaled 75%", "skewed 300×100"],
  phash: ["lossless PNG", "low-quality JPEG", "thumbnail 100×67", "watermark", "brightened", "darkened", "hue-shifted", "JPEG q80", "JPEG q20", "scaled 75%", "skewed 300×100"],
  rahash: ["lossless PNG", "low-quality JPEG", "thumbnail 100×67", "watermark", "brightened", "darkened", "hue-shifted", "JPEG q80", "JPEG q20", "scaled 75%", "flipped", "rotated 180°", "rotated 90°", "rotated 30°"],
  rphash: ["lossless PNG", "low-quality JPEG", "thumbnail 100×67", "watermark", "brightened", "darkened", "hue-shifted", "JPEG q80", "JPEG q20", "scaled 75%", "flipped", "rotated 180°", "rotated 90°"],
};

let rows: VariantRow[];
beforeAll(async () => {
  rows = await variantTable();
});

describe("image hash modes on the photo's variants", () => {
  it("every distance is the pinned one (± 2 bits)", () => {
    expect(rows.map((r) => r.name)).toEqual(Object.keys(PINNED));
    for (const r of rows) {
      PERCEPTUAL_MODES.forEach((m, i) => {
        expect(Math.abs(r.distances[m] - PINNED[r.name]![i]!), `${r.name} ${m}: ${r.distances[m]}`).toBeLessThanOrEqual(2);
      });
    }
  });

  it.each(PERCEPTUAL_MODES)("%s finds exactly its pinned variants and takes no different image for the photo", (mode) => {
    expect(rows.filter((r) => r.kind === "same" && matches(r, mode)).map((r) => r.name)).toEqual(SURVIVES[mode]);
    expect(rows.filter((r) => r.kind === "different" && matches(r, mode)).map((r) => r.name)).toEqual([]);
  });

  it("the default mode survives JPEG recompression (which no hash survived in the thesis) with a wide margin to different images", () => {
    const d = (name: string) => rows.find((r) => r.name === name)!.distances[DEFAULT_MODE];
    for (const name of ["JPEG q80", "JPEG q20", "low-quality JPEG"]) expect(d(name)).toBeLessThanOrEqual(2);
    const closestDifferent = Math.min(...rows.filter((r) => r.kind === "different").map((r) => r.distances[DEFAULT_MODE]));
    expect(closestDifferent).toBeGreaterThanOrEqual(3 * DEFAULT_THRESHOLDS[DEFAULT_MODE]);
  });

  it("pixel MD5 matches no variant: every variant changed the decoded pixels", () => {
    expect(rows.filter((r) => r.md5Equal)).toEqual([]);
  });
});
