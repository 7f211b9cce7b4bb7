/**
 * The luminance rasters perceptual hashes read, computed from decoded pixels in plain arithmetic
 * (so hashes do not depend on an image library's SIMD path): BT.601 luma with transparency
 * composited onto white, then an area-average downscale (each target cell is the exact mean of the
 * source area it covers: a box filter, which antialiases any downscale).
 */
import { lumaKernel, type LumaKernel } from "./luma-wasm.ts";

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

/**
 * Both hash rasters of decoded pixels in one pass over them, without a full-size luma plane: what
 * `areaRaster(lumaPlane(data, channels), width, crop, side)` gives for each crop, to ~1e-9 of a
 * grey level (the plane rounds each luma to float32; here it is exact). Each row's luma, scaled to an
 * integer (1000 · Y, or 255 · 1000 · Y with alpha), is summed into a running total once, so a cell
 * costs two lookups whatever its width; rows are weighed into the cells they overlap. RGB and RGBA
 * take the WebAssembly SIMD kernel of luma-wasm.ts for the per-pixel work where it runs.
 */
export function areaRasters(pixels: Uint8Array, width: number, height: number, channels: number, crops: readonly Crop[], side: number): Float64Array[] {
  return sweep(pixels, width, height, channels, crops, side).rasters;
}

/** What decode.ts reads from an image's pixels: both hash rasters and the transparency count. */
export interface HashRasters {
  /** the whole image squashed to side × side */
  readonly luma: Float64Array;
  /** its largest centred square (`centreSquare`) */
  readonly centreLuma: Float64Array;
  /** pixels whose alpha is below 255 (0 without an alpha channel), every pixel counted */
  readonly transparentPixels: number;
}

/**
 * `areaRasters` of the whole image and its centre square plus the count of transparent pixels, all
 * from the one pass over the pixels (the whole-image crop visits every row, so no pixel goes uncounted).
 */
export function hashRasters(pixels: Uint8Array, width: number, height: number, channels: number, side: number): HashRasters {
  const { rasters, transparentPixels } = sweep(pixels, width, height, channels, [{ x: 0, y: 0, width, height }, centreSquare(width, height)], side);
  return { luma: rasters[0]!, centreLuma: rasters[1]!, transparentPixels };
}

interface Plan {
  cells: PackedSpans;
  rows: RowFeeds;
  top: number;
  out: Float64Array;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

function sweep(pixels: Uint8Array, width: number, height: number, channels: number, crops: readonly Crop[], side: number): { rasters: Float64Array[]; transparentPixels: number } {
  if (channels < 1 || channels > 4) throw new Error(`cannot read luma from ${channels} channels`);
  // a plain Uint8Array view (element reads through a Buffer, another class, stay slower)
  const data = new Uint8Array(pixels.buffer, pixels.byteOffset, pixels.byteLength);
  const alpha = channels === 2 || channels === 4;
  const scale = alpha ? 255_000 : 1000;
  const { cropPlans, plans, top, bottom } = planCrops(crops, side);
  // the kernel's memory holds a band of at least one row and never shrinks: rows wider than
  // MAX_KERNEL_WIDTH (bands of one row, megabytes kept for good) take the JavaScript loops
  const kernel = channels >= 3 && width <= MAX_KERNEL_WIDTH ? lumaKernel() : null;
  const transparentPixels = kernel !== null ? sweepKernel(kernel, data, width, channels, plans, top, bottom, side) : sweepJs(data, width, channels, plans, top, bottom, side);
  const rasters = cropPlans.map((p, i) => {
    const norm = scale * (crops[i]!.width / side) * (crops[i]!.height / side);
    const out = new Float64Array(side * side);
    for (let j = 0; j < out.length; j++) out[j] = p.out[j]! / norm;
    return out;
  });
  return { rasters, transparentPixels: alpha ? transparentPixels : 0 };
}

/** One plan per distinct crop (equal crops, as a square image's centre square and the image, share one plan and its sums) and the rows they span. */
function planCrops(crops: readonly Crop[], side: number): { cropPlans: Plan[]; plans: Plan[]; top: number; bottom: number } {
  const planOf = new Map<string, Plan>();
  const cropPlans = crops.map((crop) => {
    const key = `${crop.x} ${crop.y} ${crop.width} ${crop.height}`;
    let plan = planOf.get(key);
    if (plan === undefined) {
      const shape = cached(SHAPES, `${key} ${side}`, () => ({ cells: packed(cellSpans(crop.x, crop.width, side)), rows: rowFeeds(crop.y, crop.height, side) }));
      plan = { ...shape, top: Math.floor(crop.y), out: new Float64Array(side * side) };
      planOf.set(key, plan);
    }
    return plan;
  });
  const plans = [...planOf.values()];
  let top = Infinity;
  let bottom = -Infinity;
  for (const p of plans) {
    top = Math.min(top, p.top);
    bottom = Math.max(bottom, p.top + p.rows.rows);
  }
  return { cropPlans, plans, top, bottom };
}

/** The rows [top, bottom) weighed into every plan from each row's running totals (`prefix[x]`: the row's scaled luma before column x); returns the transparent pixels seen. */
function sweepJs(data: Uint8Array, width: number, channels: number, plans: Plan[], top: number, bottom: number, side: number): number {
  // RGBA read a pixel per 32-bit word where the buffer allows it (sharp's always does)
  const words = channels === 4 && LITTLE_ENDIAN && data.byteOffset % 4 === 0 ? new Uint32Array(data.buffer, data.byteOffset, data.length >> 2) : null;
  const prefix = new Float64Array(width + 1);
  const sums = new Float64Array(side);
  let transparentPixels = 0;
  for (let y = top; y < bottom; y++) {
    if (words !== null) transparentPixels += rowPrefixWords(words, y * width, width, prefix);
    else if (channels === 3) rowPrefix3(data, y * width * 3, width, prefix);
    else if (channels === 1) rowPrefix1(data, y * width, width, prefix);
    else if (channels === 2) transparentPixels += rowPrefix2(data, y * width * 2, width, prefix);
    else transparentPixels += rowPrefix4(data, y * width * 4, width, prefix);
    for (let i = 0; i < plans.length; i++) {
      const p = plans[i]!;
      const r = y - p.top;
      if (r < 0 || r >= p.rows.rows) continue;
      const { offsets, targets, weights } = p.rows;
      const first = offsets[r]!;
      const feeds = offsets[r + 1]! - first;
      // most rows feed one raster row: weigh the cell sums straight into it
      if (feeds === 1) addCellSums(prefix, p.cells, p.out, targets[first]! * side, weights[first]!, side);
      else {
        cellSums(prefix, p.cells, sums);
        for (let f = first; f < first + feeds; f++) accumulate(p.out, targets[f]! * side, weights[f]!, sums);
      }
    }
  }
  return transparentPixels;
}

/** Pixels the kernel reads per call: bounds the WebAssembly memory (which never shrinks) whatever the image size, and keeps a band's pixels and values in cache. */
const BAND_PIXELS = 1 << 14;
/** Widest row the kernel takes (its memory then stays under ~0.6 MB). */
const MAX_KERNEL_WIDTH = 1 << 16;

/**
 * sweepJs with the work in WebAssembly (luma-wasm.ts), for RGB and RGBA: band by band of rows, the
 * pixels are copied into the kernel's memory and turned into scaled luma values four at a time
 * (SIMD), then each row is weighed into the raster rows it feeds, cell by cell. A cell's sum there
 * is sweepJs's expression over the same exact integers (an edge pixel's value is the difference of
 * two running totals, the whole pixels' sum another), in the same order, so the bits are the same.
 */
function sweepKernel(k: LumaKernel, data: Uint8Array, width: number, channels: number, plans: Plan[], top: number, bottom: number, side: number): number {
  const bandRows = Math.max(1, Math.floor(BAND_PIXELS / width));
  // memory: per plan its cell spans, edge weights and raster | pixels of a band (+16 bytes the
  // kernel may read past them) | their values (+16)
  let at = 0;
  const take = (bytes: number) => {
    const start = at;
    at = align16(at + bytes);
    return start;
  };
  const placed = plans.map((p) => ({ at: take(p.cells.at.byteLength), weight: take(p.cells.weight.byteLength), out: take(p.out.byteLength) }));
  const srcAt = take(bandRows * width * channels + 16);
  const valuesAt = take(bandRows * width * 4 + 16);
  k.reserve(at);
  const memory = new Uint8Array(k.memory.buffer);
  const put = (a: ArrayBufferView, offset: number) => memory.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), offset);
  plans.forEach((p, i) => {
    put(p.cells.at, placed[i]!.at);
    put(p.cells.weight, placed[i]!.weight);
    put(p.out, placed[i]!.out);
  });
  let transparentPixels = 0;
  for (let y0 = top; y0 < bottom; y0 += bandRows) {
    const y1 = Math.min(bottom, y0 + bandRows);
    const n = (y1 - y0) * width;
    memory.set(data.subarray(y0 * width * channels, y1 * width * channels), srcAt);
    if (channels === 4) {
      transparentPixels += k.luma4(srcAt, valuesAt, n);
      // the kernel counts whole groups of four; the last n % 4 pixels here
      for (let i = n - (n & 3); i < n; i++) if (data[(y0 * width + i) * 4 + 3] !== 255) transparentPixels++;
    } else k.luma3(srcAt, valuesAt, n);
    for (let y = y0; y < y1; y++) {
      const row = valuesAt + (y - y0) * width * 4;
      for (let i = 0; i < plans.length; i++) {
        const p = plans[i]!;
        const r = y - p.top;
        if (r < 0 || r >= p.rows.rows) continue;
        const { offsets, targets, weights } = p.rows;
        const { at: spans, weight, out } = placed[i]!;
        // a row feeding several raster rows gives each the same cell sums (the same expression over the same values)
        for (let f = offsets[r]!; f < offsets[r + 1]!; f++) k.cells(row, spans, weight, out + targets[f]! * side * 8, side, weights[f]!);
      }
    }
  }
  plans.forEach((p, i) => p.out.set(new Float64Array(k.memory.buffer, placed[i]!.out, p.out.length)));
  return transparentPixels;
}

/**
 * Per image shape, what its plans need that does not depend on the pixels (cell spans, row
 * feeds): web images come in few sizes, and building them costs as much as summing a thumbnail.
 * A few dozen shapes kept; emptied when full.
 */
const SHAPES = new Map<string, { cells: PackedSpans; rows: RowFeeds }>();
const SHAPES_KEPT = 64;

function cached<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let v = cache.get(key);
  if (v === undefined) {
    if (cache.size >= SHAPES_KEPT) cache.clear();
    v = make();
    cache.set(key, v);
  }
  return v;
}

const align16 = (n: number) => (n + 15) & ~15;

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
  // (row, cell, weight) cell by cell, each cell's rows top to bottom: already in (row, cell) order
  // whenever the cells tile the rows in order, which they do; checked, and sorted only if not
  let n = 0;
  for (let k = 0; k < cells; k++) n += 1 + Math.max(0, s.whole1[k]! - s.whole0[k]!) + (s.weightHi[k]! > 0 ? 1 : 0);
  const row = new Int32Array(n);
  const targets = new Int32Array(n);
  const weights = new Float64Array(n);
  let f = 0;
  const push = (r: number, k: number, w: number) => {
    row[f] = r;
    targets[f] = k;
    weights[f++] = w;
  };
  for (let k = 0; k < cells; k++) {
    push(s.edgeLo[k]! - top, k, s.weightLo[k]!);
    for (let p = s.whole0[k]!; p < s.whole1[k]!; p++) push(p - top, k, 1);
    if (s.weightHi[k]! > 0) push(s.edgeHi[k]! - top, k, s.weightHi[k]!);
  }
  for (let i = 1; i < n; i++) {
    if (row[i - 1]! > row[i]! || (row[i - 1] === row[i] && targets[i - 1]! >= targets[i]!)) return sortedFeeds(rows, row, targets, weights);
  }
  const offsets = new Int32Array(rows + 1);
  for (let i = 0; i < n; i++) offsets[row[i]! + 1]!++;
  for (let r = 0; r < rows; r++) offsets[r + 1]! += offsets[r]!;
  return { rows, offsets, targets, weights };
}

function sortedFeeds(rows: number, row: Int32Array, targets: Int32Array, weights: Float64Array): RowFeeds {
  const order = Array.from(row, (_, i) => i).sort((a, b) => row[a]! - row[b]! || targets[a]! - targets[b]!);
  const offsets = new Int32Array(rows + 1);
  for (const i of order) offsets[row[i]! + 1]!++;
  for (let r = 0; r < rows; r++) offsets[r + 1]! += offsets[r]!;
  return { rows, offsets, targets: Int32Array.from(order, (i) => targets[i]!), weights: Float64Array.from(order, (i) => weights[i]!) };
}

// Running totals of one row's scaled luma: prefix[x] = Σ luma of pixels before x. Every term is an
// integer below 2^27 and every total below 2^53, so the sums are exact whatever the order; the
// alpha variants also return how many of the row's pixels are not opaque.

function rowPrefix3(data: Uint8Array, base: number, width: number, prefix: Float64Array): void {
  let total = 0;
  for (let x = 0, j = base; x < width; x++, j += 3) {
    total += (299 * data[j]! + 587 * data[j + 1]! + 114 * data[j + 2]!) | 0;
    prefix[x + 1] = total;
  }
}

function rowPrefix1(data: Uint8Array, base: number, width: number, prefix: Float64Array): void {
  let total = 0;
  for (let x = 0; x < width; x++) {
    total += 1000 * data[base + x]!;
    prefix[x + 1] = total;
  }
}

function rowPrefix2(data: Uint8Array, base: number, width: number, prefix: Float64Array): number {
  let total = 0;
  let transparent = 0;
  for (let x = 0, j = base; x < width; x++, j += 2) {
    const a = data[j + 1]!;
    total += (a * 1000 * data[j]! + (255 - a) * 255_000) | 0;
    if (a !== 255) transparent++;
    prefix[x + 1] = total;
  }
  return transparent;
}

function rowPrefix4(data: Uint8Array, base: number, width: number, prefix: Float64Array): number {
  let total = 0;
  let transparent = 0;
  for (let x = 0, j = base; x < width; x++, j += 4) {
    const a = data[j + 3]!;
    total += (a * (299 * data[j]! + 587 * data[j + 1]! + 114 * data[j + 2]!) + (255 - a) * 255_000) | 0;
    if (a !== 255) transparent++;
    prefix[x + 1] = total;
  }
  return transparent;
}

/**
 * rowPrefix4 reading each RGBA pixel as one little-endian word (R in the low byte), with the two
 * common alphas taken apart: opaque (255 · Y) and fully clear (white: 255 · 255,000, no colour to
 * read), the same integers the general formula gives.
 */
function rowPrefixWords(words: Uint32Array, base: number, width: number, prefix: Float64Array): number {
  let total = 0;
  let transparent = 0;
  for (let x = 0; x < width; x++) {
    const p = words[base + x]! | 0;
    const a = p >>> 24;
    if (a === 255) total += 255 * ((299 * (p & 255) + 587 * ((p >>> 8) & 255) + 114 * ((p >>> 16) & 255)) | 0);
    else {
      transparent++;
      total += a === 0 ? 65_025_000 : (a * (299 * (p & 255) + 587 * ((p >>> 8) & 255) + 114 * ((p >>> 16) & 255)) + (255 - a) * 255_000) | 0;
    }
    prefix[x + 1] = total;
  }
  return transparent;
}

/** CellSpans cell by cell, for the per-row loops: [edgeLo, whole0, whole1, edgeHi] and [weightLo, weightHi] per cell. */
interface PackedSpans {
  at: Int32Array;
  weight: Float64Array;
}

function packed(c: CellSpans): PackedSpans {
  const n = c.edgeLo.length;
  const at = new Int32Array(4 * n);
  const weight = new Float64Array(2 * n);
  for (let k = 0; k < n; k++) {
    at.set([c.edgeLo[k]!, c.whole0[k]!, c.whole1[k]!, c.edgeHi[k]!], 4 * k);
    weight[2 * k] = c.weightLo[k]!;
    weight[2 * k + 1] = c.weightHi[k]!;
  }
  return { at, weight };
}

/** Each cell's overlap-weighted sum of the row. */
function cellSums(prefix: Float64Array, c: PackedSpans, out: Float64Array): void {
  const { at, weight } = c;
  for (let k = 0; k < out.length; k++) {
    const lo = at[4 * k]!;
    const hi = at[4 * k + 3]!;
    out[k] = weight[2 * k]! * (prefix[lo + 1]! - prefix[lo]!) + (prefix[at[4 * k + 2]!]! - prefix[at[4 * k + 1]!]!) + weight[2 * k + 1]! * (prefix[hi + 1]! - prefix[hi]!);
  }
}

/** `cellSums` then `accumulate` into one raster row, without the intermediate row (the same operations in the same order). */
function addCellSums(prefix: Float64Array, c: PackedSpans, out: Float64Array, offset: number, w: number, cells: number): void {
  const { at, weight } = c;
  for (let k = 0; k < cells; k++) {
    const lo = at[4 * k]!;
    const hi = at[4 * k + 3]!;
    const sum = weight[2 * k]! * (prefix[lo + 1]! - prefix[lo]!) + (prefix[at[4 * k + 2]!]! - prefix[at[4 * k + 1]!]!) + weight[2 * k + 1]! * (prefix[hi + 1]! - prefix[hi]!);
    out[offset + k] = out[offset + k]! + w * sum;
  }
}

function accumulate(out: Float64Array, offset: number, w: number, row: Float64Array): void {
  for (let c = 0; c < row.length; c++) out[offset + c] = out[offset + c]! + w * row[c]!;
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
