/**
 * The one-pass rasters and transparency count as decode.ts computed them before the speed-up of
 * shared/pixels/raster.ts `hashRasters` (copied from that commit, unchanged but for exports): the
 * oracle test/pixels/raster-identity.test.ts holds the fast code to, value for value.
 */
import type { Crop } from "../../../shared/pixels/raster.ts";

export function countTransparentV1(pixels: Uint8Array, channels: number): number {
  const data = new Uint8Array(pixels.buffer, pixels.byteOffset, pixels.byteLength);
  let n = 0;
  for (let i = channels - 1; i < data.length; i += channels) if (data[i]! < 255) n++;
  return n;
}

/**
 * Both hash rasters of decoded pixels in one pass over them, without a full-size luma plane: what
 * `areaRaster(lumaPlane(data, channels), width, crop, side)` gives for each crop, to ~1e-9 of a
 * grey level (the plane rounds each luma to float32; here it is exact). Each row's luma, scaled to an
 * integer (1000 · Y, or 255 · 1000 · Y with alpha), is summed into a running total once, so a cell
 * costs two lookups whatever its width; rows are weighed into the cells they overlap.
 */
export function areaRastersV1(pixels: Uint8Array, width: number, height: number, channels: number, crops: readonly Crop[], side: number): Float64Array[] {
  // a plain Uint8Array view (element reads through a Buffer, another class, stay slower)
  const data = new Uint8Array(pixels.buffer, pixels.byteOffset, pixels.byteLength);
  const alpha = channels === 2 || channels === 4;
  const scale = alpha ? 255_000 : 1000;
  const plans = crops.map((crop) => ({ cols: cellSpans(crop.x, crop.width, side), rows: rowFeeds(crop.y, crop.height, side), top: Math.floor(crop.y), out: new Float64Array(side * side) }));
  const prefix = new Float64Array(width + 1);
  const sums = new Float64Array(side);
  const top = Math.min(...plans.map((p) => p.top));
  const bottom = Math.max(...plans.map((p) => p.top + p.rows.rows));
  for (let y = top; y < bottom; y++) {
    rowPrefix(data, y * width * channels, width, channels, prefix);
    for (let i = 0; i < plans.length; i++) {
      const p = plans[i]!;
      const r = y - p.top;
      if (r < 0 || r >= p.rows.rows) continue;
      cellSums(prefix, p.cols, sums);
      const { offsets, targets, weights } = p.rows;
      for (let f = offsets[r]!; f < offsets[r + 1]!; f++) accumulate(p.out, targets[f]! * side, weights[f]!, sums);
    }
  }
  return plans.map((p, i) => {
    const norm = scale * (crops[i]!.width / side) * (crops[i]!.height / side);
    return p.out.map((v) => v / norm);
  });
}

/** Per cell of [start, start + length) cut into `cells`: where it covers whole pixels and the weights of its partial edge pixels. */
interface CellSpans {
  /** pixel of the left edge, its covered fraction */
  edgeLo: Int32Array;
  weightLo: Float64Array;
  /** whole pixels [whole0, whole1) */
  whole0: Int32Array;
  whole1: Int32Array;
  /** pixel of the right edge, its covered fraction (0: none) */
  edgeHi: Int32Array;
  weightHi: Float64Array;
}

function cellSpans(start: number, length: number, cells: number): CellSpans {
  const s: CellSpans = { edgeLo: new Int32Array(cells), weightLo: new Float64Array(cells), whole0: new Int32Array(cells), whole1: new Int32Array(cells), edgeHi: new Int32Array(cells), weightHi: new Float64Array(cells) };
  const end = start + length;
  for (let k = 0; k < cells; k++) {
    const a = start + (k * length) / cells;
    const b = k === cells - 1 ? end : start + ((k + 1) * length) / cells;
    const p0 = Math.floor(a);
    const p1 = Math.ceil(b); // exclusive
    if (p1 - p0 === 1) {
      // inside one pixel (an image narrower than the raster)
      s.edgeLo[k] = p0;
      s.weightLo[k] = b - a;
      s.whole0[k] = s.whole1[k] = p0 + 1;
      s.edgeHi[k] = p0;
      s.weightHi[k] = 0;
      continue;
    }
    s.edgeLo[k] = p0;
    s.weightLo[k] = p0 + 1 - a;
    s.whole0[k] = p0 + 1;
    s.whole1[k] = p1 - 1;
    s.edgeHi[k] = p1 - 1;
    s.weightHi[k] = b - (p1 - 1);
  }
  return s;
}

/** Per source row of the crop, the target rows it feeds and its overlap with each (row r's are [offsets[r], offsets[r + 1])). */
interface RowFeeds {
  rows: number;
  offsets: Int32Array;
  targets: Int32Array;
  weights: Float64Array;
}

function rowFeeds(start: number, length: number, cells: number): RowFeeds {
  const top = Math.floor(start);
  const rows = Math.ceil(start + length) - top;
  const s = cellSpans(start, length, cells);
  const pairs: [row: number, k: number, w: number][] = [];
  for (let k = 0; k < cells; k++) {
    pairs.push([s.edgeLo[k]! - top, k, s.weightLo[k]!]);
    for (let p = s.whole0[k]!; p < s.whole1[k]!; p++) pairs.push([p - top, k, 1]);
    if (s.weightHi[k]! > 0) pairs.push([s.edgeHi[k]! - top, k, s.weightHi[k]!]);
  }
  pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const offsets = new Int32Array(rows + 1);
  for (const [r] of pairs) offsets[r + 1]!++;
  for (let r = 0; r < rows; r++) offsets[r + 1]! += offsets[r]!;
  return { rows, offsets, targets: Int32Array.from(pairs, (p) => p[1]), weights: Float64Array.from(pairs, (p) => p[2]) };
}

/** Running totals of one row's scaled luma: prefix[x] = Σ luma of pixels before x. */
function rowPrefix(data: Uint8Array, base: number, width: number, channels: number, prefix: Float64Array): void {
  let total = 0;
  if (channels === 3) {
    for (let x = 0, j = base; x < width; x++, j += 3) {
      total += 299 * data[j]! + 587 * data[j + 1]! + 114 * data[j + 2]!;
      prefix[x + 1] = total;
    }
  } else if (channels === 4) {
    for (let x = 0, j = base; x < width; x++, j += 4) {
      const a = data[j + 3]!;
      total += a * (299 * data[j]! + 587 * data[j + 1]! + 114 * data[j + 2]!) + (255 - a) * 255_000;
      prefix[x + 1] = total;
    }
  } else if (channels === 1) {
    for (let x = 0; x < width; x++) {
      total += 1000 * data[base + x]!;
      prefix[x + 1] = total;
    }
  } else if (channels === 2) {
    for (let x = 0, j = base; x < width; x++, j += 2) {
      const a = data[j + 1]!;
      total += a * 1000 * data[j]! + (255 - a) * 255_000;
      prefix[x + 1] = total;
    }
  } else throw new Error(`cannot read luma from ${channels} channels`);
}

/** Each cell's overlap-weighted sum of the row. */
function cellSums(prefix: Float64Array, c: CellSpans, out: Float64Array): void {
  const { edgeLo, weightLo, whole0, whole1, edgeHi, weightHi } = c;
  for (let k = 0; k < out.length; k++) {
    const lo = edgeLo[k]!;
    const hi = edgeHi[k]!;
    out[k] = weightLo[k]! * (prefix[lo + 1]! - prefix[lo]!) + (prefix[whole1[k]!]! - prefix[whole0[k]!]!) + weightHi[k]! * (prefix[hi + 1]! - prefix[hi]!);
  }
}

function accumulate(out: Float64Array, offset: number, w: number, row: Float64Array): void {
  for (let c = 0; c < row.length; c++) out[offset + c] = out[offset + c]! + w * row[c]!;
}

