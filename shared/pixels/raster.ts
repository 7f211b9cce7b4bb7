/**
 * The luminance rasters perceptual hashes read, computed from decoded pixels in plain arithmetic
 * (so hashes do not depend on an image library's SIMD path): BT.601 luma with transparency
 * composited onto white, then an area-average downscale (each target cell is the exact mean of the
 * source area it covers: a box filter, which antialiases any downscale).
 */

/** Luma (0…255) of each pixel of interleaved 8-bit pixels; alpha (2 or 4 channels) composited onto white. */
export function lumaPlane(data: Uint8Array, channels: number): Float32Array {
  const n = data.length / channels;
  const out = new Float32Array(n);
  const alpha = channels === 2 || channels === 4;
  const colour = channels >= 3;
  for (let i = 0, j = 0; i < n; i++, j += channels) {
    const y = colour ? 0.299 * data[j]! + 0.587 * data[j + 1]! + 0.114 * data[j + 2]! : data[j]!;
    if (!alpha) out[i] = y;
    else {
      const a = data[j + channels - 1]! / 255;
      out[i] = a * y + (1 - a) * 255;
    }
  }
  return out;
}

/** A window of the plane: [x, x + width) × [y, y + height), in (possibly fractional) pixels. */
export interface Crop {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The largest centred square of a width × height image (what a "cover" fit of a square keeps). */
export function centreSquare(width: number, height: number): Crop {
  // exactly centred (half pixels weighted), so a turned image crops the turned square
  const side = Math.min(width, height);
  return { x: (width - side) / 2, y: (height - side) / 2, width: side, height: side };
}

/** Area-average of `crop` of the plane (row-major, `width` wide) into side × side cells. */
export function areaRaster(plane: Float32Array, width: number, crop: Crop, side: number): Float64Array {
  const xs = spans(crop.x, crop.width, side);
  const ys = spans(crop.y, crop.height, side);
  // horizontal pass: every source row the crop touches into `side` columns
  const top = Math.floor(crop.y);
  const bottom = Math.ceil(crop.y + crop.height);
  const rows = new Float64Array((bottom - top) * side);
  for (let r = 0; r < bottom - top; r++) {
    const base = (top + r) * width;
    for (let k = 0; k < side; k++) {
      const { first, weights } = xs[k]!;
      let s = 0;
      for (let t = 0; t < weights.length; t++) s += weights[t]! * plane[base + first + t]!;
      rows[r * side + k] = s;
    }
  }
  // vertical pass
  const out = new Float64Array(side * side);
  for (let k = 0; k < side; k++) {
    const { first, weights } = ys[k]!;
    for (let c = 0; c < side; c++) {
      let s = 0;
      for (let t = 0; t < weights.length; t++) s += weights[t]! * rows[(first - top + t) * side + c]!;
      out[k * side + c] = s;
    }
  }
  return out;
}

/** For each of `cells` target cells over [start, start + length): the source pixels it covers and their weights (summing to 1). */
function spans(start: number, length: number, cells: number): { first: number; weights: Float64Array }[] {
  const f = length / cells;
  return Array.from({ length: cells }, (_, k) => {
    const a = start + k * f;
    const b = a + f;
    const first = Math.floor(a);
    const last = Math.min(Math.ceil(start + length), Math.ceil(b));
    const weights = new Float64Array(last - first);
    for (let p = first; p < last; p++) weights[p - first] = (Math.min(b, p + 1) - Math.max(a, p)) / f;
    return { first, weights };
  });
}
