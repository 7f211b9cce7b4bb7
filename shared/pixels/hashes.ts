/**
 * Image identity modes (thesis 4.6): MD5 of the decoded pixels (4.6.2) and 64-bit perceptual hashes
 * (4.6.3) — average hash, difference hash, DCT perceptive hash and the two rotation-invariant ring
 * hashes — each with a Hamming threshold under which two images are the same image.
 *
 * Every perceptual hash is computed from a 64×64 luminance raster (decode.ts, raster.ts): each cell
 * the exact mean of the image area it covers, i.e. a properly antialiased downscale. The thesis' hashes (JImageHash) sample
 * a nearest-neighbour/bilinear downscale, where JPEG's block noise and ringing alias straight into the
 * few pixels a hash reads; that is why none of them survived recompression there. Here every hash
 * pixel is an average over many source pixels, so recompression noise averages out, and bits are
 * set against a median (balanced bits: a uniform shift in brightness moves no bit).
 */
import type { DecodedImage } from "./decode.ts";
import { HASH_RASTER_SIDE } from "./decode.ts";

export const PERCEPTUAL_MODES = ["ahash", "dhash", "phash", "rahash", "rphash"] as const;
export type PerceptualMode = (typeof PERCEPTUAL_MODES)[number];
export const IDENTITY_MODES = ["md5", ...PERCEPTUAL_MODES] as const;
export type IdentityMode = (typeof IDENTITY_MODES)[number];

/**
 * Largest Hamming distance at which two images are the same image, per mode: set from the distance
 * table of scripts/bench/image-hash-variants.ts (pinned by test/pixels/hash-variants.test.ts) below
 * the closest pair of different images and above the variants each mode is meant to survive.
 */
export const DEFAULT_THRESHOLDS: Readonly<Record<PerceptualMode, number>> = { ahash: 8, dhash: 10, phash: 8, rahash: 8, rphash: 10 };

/** The mode identity uses unless told otherwise (see README "Image identity"). */
export const DEFAULT_MODE: PerceptualMode = "phash";

export type PerceptualHashes = Record<PerceptualMode, bigint>;

export interface ImageHashes extends PerceptualHashes {
  /** null when the decode was not asked for it (decode.ts `md5`) */
  md5: string | null;
}

export function imageHashes(image: Pick<DecodedImage, "luma" | "centreLuma" | "pixelMd5">): ImageHashes {
  return { md5: image.pixelMd5, ...perceptualHashes(image) };
}

/** Grid hashes read the whole image squashed to a square; ring hashes the centred square. */
export function perceptualHashes({ luma, centreLuma }: Pick<DecodedImage, "luma" | "centreLuma">): PerceptualHashes {
  for (const r of [luma, centreLuma]) if (r.length !== HASH_RASTER_SIDE * HASH_RASTER_SIDE) throw new Error(`perceptual hashes need a ${HASH_RASTER_SIDE}² raster`);
  return { ahash: averageHash(luma), dhash: differenceHash(luma), phash: perceptiveHash(luma), rahash: ringAverageHash(centreLuma), rphash: ringPerceptiveHash(centreLuma) };
}

/** Thesis 4.6.3 (1): 8×8 block means, a bit set where the block is brighter than the mean of all. */
export function averageHash(luma: Float64Array): bigint {
  const cells = resample(luma, HASH_RASTER_SIDE, HASH_RASTER_SIDE, 8, 8);
  const mean = cells.reduce((s, v) => s + v, 0) / cells.length;
  return bitsOf(cells, (v) => v > mean);
}

/** Gradient hash: 9×8 cells, a bit set where a cell is brighter than its right neighbour. */
export function differenceHash(luma: Float64Array): bigint {
  const cells = resample(luma, HASH_RASTER_SIDE, HASH_RASTER_SIDE, 9, 8);
  const bits: boolean[] = [];
  for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) bits.push(cells[y * 9 + x]! > cells[y * 9 + x + 1]!);
  return bitsOf(bits, (b) => b);
}

/**
 * Thesis 4.6.3 (2): 2-D DCT of the 32×32 raster; the 64 lowest frequencies after the DC term (the
 * overall brightness, an outlier the thesis excludes) in zig-zag order, each bit set where the
 * coefficient exceeds their median.
 */
export function perceptiveHash(luma: Float64Array): bigint {
  const n = 32;
  const small = resample(luma, HASH_RASTER_SIDE, HASH_RASTER_SIDE, n, n);
  // separable: the columns' transforms for the few vertical frequencies needed, then each coefficient from a row of those
  const byV: Float64Array[] = [];
  for (const v of LOW_VERTICAL) byV[v] = columnTransform(small, n, v);
  const coeffs = LOW_FREQUENCIES.map(([u, v]) => dct1At(byV[v]!, u));
  const med = median(coeffs);
  return bitsOf(coeffs, (c) => c > med);
}

/**
 * Thesis 4.6.3 (4): the disc inside the centred square cut into 64 rings of (nearly) equal area
 * around the centre; bit i set where ring i is brighter than the median ring. Rotating the image
 * about its centre moves no pixel to another ring. (Comparing each ring with the next, as JImageHash
 * does, flips bits between rings of nearly equal brightness on any noise.)
 */
export function ringAverageHash(luma: Float64Array): bigint {
  const means = RINGS_64.map((ring) => {
    let s = 0;
    for (let t = 0; t < ring.length; t++) s += luma[ring[t]!]!;
    return s / ring.length;
  });
  const med = median(means);
  return bitsOf(means, (m) => m > med);
}

/**
 * Thesis 4.6.3 (3): 16 equal-area rings; each ring's luminances sorted (what rotation cannot change)
 * and taken at 32 quantiles, then a 1-D DCT of that; coefficients 0…3 of each ring (mean, spread,
 * skew, …). JImageHash compares a ring's coefficients with their own mean, which gives nearly the
 * same bits for every image (the DCT of a sorted sequence has a fixed sign pattern); here each
 * coefficient is compared with the median of the same coefficient over the 16 rings.
 */
export function ringPerceptiveHash(luma: Float64Array): bigint {
  const quantiles = new Float64Array(RING_QUANTILES);
  const values = new Float64Array(RING_16_LONGEST);
  const sorted = new Float64Array(RING_16_LONGEST);
  const counts = new Int32Array(257);
  const perRing = RINGS_16.map((ring, i) => {
    for (let t = 0; t < ring.length; t++) values[t] = luma[ring[t]!]!;
    sortLevels(values, ring.length, sorted, counts);
    const at = RING_16_QUANTILE_AT[i]!;
    for (let k = 0; k < RING_QUANTILES; k++) quantiles[k] = sorted[at[k]!]!;
    return [dct1At(quantiles, 0), dct1At(quantiles, 1), dct1At(quantiles, 2), dct1At(quantiles, 3)];
  });
  const bits: boolean[] = [];
  for (let k = 0; k < 4; k++) {
    const med = median(perRing.map((c) => c[k]!));
    for (const c of perRing) bits.push(c[k]! > med);
  }
  return bitsOf(bits, (b) => b);
}

/**
 * Sorts the n values of `from` into `to`: scattered by grey level (0…255, one bucket per integer
 * level; a counting sort) and then an insertion sort, which only has to order values within a
 * level. The result is what any sort gives (it is an insertion sort's, whatever the bucketing);
 * the buckets make it close to linear on ring luminances, where the built-in sort took most of
 * this hash's time.
 */
function sortLevels(from: Float64Array, n: number, to: Float64Array, counts: Int32Array): void {
  counts.fill(0);
  for (let t = 0; t < n; t++) counts[level(from[t]!) + 1]!++;
  for (let b = 1; b < counts.length; b++) counts[b]! += counts[b - 1]!;
  for (let t = 0; t < n; t++) to[counts[level(from[t]!)]!++] = from[t]!;
  for (let i = 1; i < n; i++) {
    const v = to[i]!;
    let j = i - 1;
    while (j >= 0 && to[j]! > v) {
      to[j + 1] = to[j]!;
      j--;
    }
    to[j + 1] = v;
  }
}

const level = (v: number) => (v >= 255 ? 255 : v > 0 ? v | 0 : 0);

/** Bits that differ between two 64-bit hashes. */
export function hammingDistance(a: bigint, b: bigint): number {
  const x = a ^ b;
  return popcount32(Number(x & 0xffffffffn)) + popcount32(Number(x >> 32n));
}

export function popcount32(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/** 16 lowercase hex digits (the JSON form of a hash). */
export function hashToHex(h: bigint): string {
  return h.toString(16).padStart(16, "0");
}

export function hashFromHex(hex: string): bigint {
  if (!/^[0-9a-f]{16}$/.test(hex)) throw new Error(`not a 64-bit hex hash: ${hex}`);
  return BigInt(`0x${hex}`);
}

function bitsOf<T>(values: ArrayLike<T>, on: (v: T) => boolean): bigint {
  if (values.length !== 64) throw new Error(`a hash has 64 bits, got ${values.length}`);
  let hi = 0;
  let lo = 0;
  for (let i = 0; i < 32; i++) if (on(values[i]!)) hi |= 1 << (31 - i);
  for (let i = 0; i < 32; i++) if (on(values[32 + i]!)) lo |= 1 << (31 - i);
  return (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
}

function median(values: readonly number[]): number {
  // a typed array sorts numerically without a comparator call per step (the same order: no NaN here, and ±0 compare alike)
  const s = Float64Array.from(values).sort();
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Area-average resampling (each target cell is the exact mean of the source area it covers). */
export function resample(src: Float64Array, sw: number, sh: number, dw: number, dh: number): Float64Array {
  if (sw % dw === 0 && sh % dh === 0) return blockMeans(src, sw, sw / dw, sh / dh, dw, dh);
  const { offsets, index, weight, divisor } = resamplePlan(sw, sh, dw, dh);
  const out = new Float64Array(dw * dh);
  for (let cell = 0; cell < out.length; cell++) {
    let sum = 0;
    for (let t = offsets[cell]!; t < offsets[cell + 1]!; t++) sum += weight[t]! * src[index[t]!]!;
    out[cell] = sum / divisor;
  }
  return out;
}

/**
 * `resample` when cells are whole blocks of fx × fy pixels: every weight is 1 · 1, so the same sums
 * in the same order (rows, then columns, from 0) without the weights.
 */
function blockMeans(src: Float64Array, sw: number, fx: number, fy: number, dw: number, dh: number): Float64Array {
  const out = new Float64Array(dw * dh);
  const divisor = fx * fy;
  for (let y = 0; y < dh; y++) {
    for (let x = 0; x < dw; x++) {
      let sum = 0;
      for (let sy = y * fy; sy < (y + 1) * fy; sy++) {
        const row = sy * sw;
        for (let sx = x * fx; sx < (x + 1) * fx; sx++) sum += src[row + sx]!;
      }
      out[y * dw + x] = sum / divisor;
    }
  }
  return out;
}

/**
 * Per target cell, the source pixels it overlaps (rows, then columns) and each one's weight
 * wy · wx, in the order the sum takes them; the same few shapes every time, so built once each.
 */
interface ResamplePlan {
  offsets: Int32Array;
  index: Int32Array;
  weight: Float64Array;
  divisor: number;
}

const resamplePlans = new Map<string, ResamplePlan>();

function resamplePlan(sw: number, sh: number, dw: number, dh: number): ResamplePlan {
  const key = `${sw} ${sh} ${dw} ${dh}`;
  const known = resamplePlans.get(key);
  if (known !== undefined) return known;
  const fx = sw / dw;
  const fy = sh / dh;
  const offsets = new Int32Array(dw * dh + 1);
  const index: number[] = [];
  const weight: number[] = [];
  for (let y = 0; y < dh; y++) {
    const y0 = y * fy;
    const y1 = y0 + fy;
    for (let x = 0; x < dw; x++) {
      const x0 = x * fx;
      const x1 = x0 + fx;
      for (let sy = Math.floor(y0); sy < Math.ceil(y1); sy++) {
        const wy = Math.min(y1, sy + 1) - Math.max(y0, sy);
        for (let sx = Math.floor(x0); sx < Math.ceil(x1); sx++) {
          index.push(sy * sw + sx);
          weight.push(wy * (Math.min(x1, sx + 1) - Math.max(x0, sx)));
        }
      }
      offsets[y * dw + x + 1] = index.length;
    }
  }
  const plan = { offsets, index: Int32Array.from(index), weight: Float64Array.from(weight), divisor: fx * fy };
  if (resamplePlans.size < 64) resamplePlans.set(key, plan);
  return plan;
}

const COS_32 = Array.from({ length: 32 }, (_, u) => Float64Array.from({ length: 32 }, (_, x) => Math.cos(((2 * x + 1) * u * Math.PI) / 64)));

/** Σ_y m[y][x] · cos((2y + 1)vπ / 2n) for every column x. */
function columnTransform(m: Float64Array, n: number, v: number): Float64Array {
  const cv = COS_32[v]!;
  const out = new Float64Array(n);
  for (let y = 0; y < n; y++) {
    const c = cv[y]!;
    for (let x = 0; x < n; x++) out[x] = out[x]! + m[y * n + x]! * c;
  }
  return out;
}

function dct1At(values: ArrayLike<number>, k: number): number {
  const c = COS_32[k]!;
  let s = 0;
  for (let x = 0; x < values.length; x++) s += values[x]! * c[x]!;
  return s;
}

/** (u, v) of the 64 lowest 2-D frequencies after DC, zig-zag order (u + v, then u). */
const LOW_FREQUENCIES: [number, number][] = (() => {
  const all: [number, number][] = [];
  for (let u = 0; u < 12; u++) for (let v = 0; v < 12; v++) if (u + v > 0) all.push([u, v]);
  all.sort((a, b) => a[0] + a[1] - (b[0] + b[1]) || a[0] - b[0]);
  return all.slice(0, 64);
})();

/** The vertical frequencies among them, each once, in order of first use. */
const LOW_VERTICAL = [...new Set(LOW_FREQUENCIES.map(([, v]) => v))];

/**
 * Pixel indices of the inscribed disc split into `count` rings of about equal pixel count, innermost
 * first; pixels at the same distance from the centre always share a ring (so the rings are symmetric
 * under rotation by 90° and flips).
 */
function equalAreaRings(count: number): number[][] {
  const side = HASH_RASTER_SIDE;
  const c = (side - 1) / 2;
  const inside: { i: number; d: number }[] = [];
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const d = Math.hypot(x - c, y - c);
      if (d <= side / 2) inside.push({ i: y * side + x, d });
    }
  }
  inside.sort((a, b) => a.d - b.d || a.i - b.i);
  const rings: number[][] = [];
  let start = 0;
  for (let r = 0; r < count; r++) {
    let end = r === count - 1 ? inside.length : Math.floor(((r + 1) * inside.length) / count);
    while (end < inside.length && end > start && inside[end]!.d - inside[end - 1]!.d < 1e-9) end++;
    rings.push(inside.slice(start, end).map((p) => p.i));
    start = end;
  }
  if (rings.some((r) => r.length === 0)) throw new Error(`cannot cut ${count} rings`);
  return rings;
}

const RINGS_64 = equalAreaRings(64).map((r) => Int32Array.from(r));
const RINGS_16 = equalAreaRings(16).map((r) => Int32Array.from(r));
const RING_QUANTILES = 32;
const RING_16_LONGEST = Math.max(...RINGS_16.map((r) => r.length));
/** Where each of the 32 quantiles of a 16-ring's sorted luminances is. */
const RING_16_QUANTILE_AT = RINGS_16.map((ring) => Int32Array.from({ length: RING_QUANTILES }, (_, k) => Math.min(ring.length - 1, Math.floor(((k + 0.5) * ring.length) / RING_QUANTILES))));
