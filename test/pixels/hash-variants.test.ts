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
import { DISTANCES } from "./variant-distances.ts";

const PINNED = DISTANCES;

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
