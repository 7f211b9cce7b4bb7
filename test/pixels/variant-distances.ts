/**
 * The Hamming distance from highQuality.jpg to each variant of ../shared/data/images and each generated
 * variant (scripts/bench/lib/image-variants.ts), per perceptual mode, as pinned by the hash tests.
 */
// ahash dhash phash rahash rphash
export const DISTANCES: Readonly<Record<string, [number, number, number, number, number]>> = {
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
