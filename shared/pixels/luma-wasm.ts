/**
 * The per-pixel half of raster.ts's sweep in WebAssembly SIMD: each pixel's scaled integer luma
 * (the very integers raster.ts's row loops add up: 299·R + 587·G + 114·B, and with alpha
 * a · that + (255 − a) · 255,000) four pixels at a time, the count of pixels whose alpha is below 255,
 * and each raster cell's overlap-weighted sum of a row weighed into its raster row. Integer
 * arithmetic throughout (every term below 2^27, every total an exact int64 converted to a double
 * below 2^53), so the totals are the ones the JavaScript loops give, bit for bit.
 *
 * The module is a few hundred bytes assembled here (no toolchain, no binary in the repository);
 * where WebAssembly SIMD is missing `lumaKernel()` is null and raster.ts keeps its JavaScript loops.
 */

/** The little of the WebAssembly API used here (the project's TypeScript libs do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}
const wasmApi = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

/** Exports of the module; pointers and lengths are byte offsets and counts in `memory`. */
interface KernelExports {
  memory: WasmMemory;
  /** n RGBA pixels at src → n int32 values at dst; returns how many of the first n − n % 4 are not opaque */
  luma4(src: number, dst: number, n: number): number;
  /** n RGB pixels at src → n int32 values at dst (reads up to 16 bytes past the last pixel); returns 0 */
  luma3(src: number, dst: number, n: number): number;
  /**
   * one source row into one raster row: for each of `cells` cells (int32 at[4k..4k+3]: left edge
   * pixel, whole pixels [from, to), right edge pixel; float64 weight[2k], weight[2k+1]: the edges'
   * overlaps) out[k] += w · (weightLo · v[lo] + Σ v[from..to) + weightHi · v[hi]) over the int32
   * values at `values`: raster.ts's cell sum in the same order (each term an exact integer, as the
   * running-total differences it stands for; WebAssembly doubles are IEEE without contraction, so
   * the bits are JavaScript's)
   */
  cells(values: number, at: number, weight: number, out: number, cells: number, w: number): void;
}

// --- a minimal WebAssembly binary writer -------------------------------------------------------

const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};

const sleb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
};

const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const name = (s: string): number[] => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];

const I32 = 0x7f;
const F64 = 0x7c;
const I64 = 0x7e;
const V128 = 0x7b;

// instructions
const get = (i: number) => [0x20, ...uleb(i)];
const set = (i: number) => [0x21, ...uleb(i)];
const i32c = (n: number) => [0x41, ...sleb(n)];
const I32_ADD = 0x6a;
const I32_SHL = 0x74;
const I32_SHR_U = 0x76;
const I32_AND = 0x71;
const I32_GE_U = 0x4f;
const I32_GT_U = 0x4b;
const I32_EQZ = 0x45;
const I64_ADD = 0x7c;
const I64_EXTEND_I32_S = 0xac;
const F64_CONVERT_I32_S = 0xb7;
const i64c = (n: number) => [0x42, ...sleb(n)];
const F64_CONVERT_I64_S = 0xb9;
const i32load = [0x28, 2, 0];
const i32loadAt = (offset: number) => [0x28, 2, ...uleb(offset)];
const f64loadAt = (offset: number) => [0x2b, 3, ...uleb(offset)];
const F64_ADD = 0xa0;
const F64_SUB = 0xa1;
const F64_MUL = 0xa2;
const f64store = [0x39, 3, 0];
const BLOCK = [0x02, 0x40];
const LOOP = [0x03, 0x40];
const IF = [0x04, 0x40];
const END = 0x0b;
const br = (depth: number) => [0x0c, depth];
const brIf = (depth: number) => [0x0d, depth];
const simd = (op: number) => [0xfd, ...uleb(op)];
const v128load = [...simd(0x00), 4, 0];
const v128store = [...simd(0x0b), 4, 0];
const v128loadAt = (offset: number) => [...simd(0x00), 4, ...uleb(offset)];
const shuffle = (lanes: number[]) => [...simd(0x0d), ...lanes];
const v128const = (bytes: number[]) => [...simd(0x0c), ...bytes];
const i32x4 = (a: number, b = a, c = a, d = a) => v128const([a, b, c, d].flatMap((v) => [v & 255, (v >>> 8) & 255, (v >>> 16) & 255, (v >>> 24) & 255]));
const SWIZZLE = simd(0x0e);
const V_AND = simd(0x4e);
const I32X4_NE = simd(0x38);
const I32X4_SHR_U = simd(0xad);
const I32X4_ADD = simd(0xae);
const I32X4_SUB = simd(0xb1);
const I32X4_MUL = simd(0xb5);
const lane = (i: number) => [...simd(0x1b), i];

/** `while (local a < local b) { body }` */
const whileBelow = (a: number, b: number, body: number[]) => [...BLOCK, ...LOOP, ...get(a), ...get(b), I32_GE_U, ...brIf(1), ...body, ...br(0), END, END];

// luma4: params src 0, dst 1, n 2; locals end 3, p 4 (v128), count 5 (v128)
/** the value of the RGBA pixels of v128 local `p` (4 little-endian words, R lowest), left on the stack */
const rgbaValue = (p: number) => [
  // y = 299·R + 587·G + 114·B
  ...get(p), ...i32x4(255), ...V_AND, ...i32x4(299), ...I32X4_MUL,
  ...get(p), ...i32c(8), ...I32X4_SHR_U, ...i32x4(255), ...V_AND, ...i32x4(587), ...I32X4_MUL, ...I32X4_ADD,
  ...get(p), ...i32c(16), ...I32X4_SHR_U, ...i32x4(255), ...V_AND, ...i32x4(114), ...I32X4_MUL, ...I32X4_ADD,
  // a · (y − 255,000) + 65,025,000 = a · y + (255 − a) · 255,000
  ...i32x4(255_000), ...I32X4_SUB,
  ...get(p), ...i32c(24), ...I32X4_SHR_U, ...I32X4_MUL,
  ...i32x4(65_025_000), ...I32X4_ADD,
];
const luma4Body = [
  // end = src + (n >> 2) · 16
  ...get(0), ...get(2), ...i32c(2), I32_SHR_U, ...i32c(4), I32_SHL, I32_ADD, ...set(3),
  ...whileBelow(0, 3, [
    ...get(0), ...v128load, ...set(4),
    ...get(1), ...rgbaValue(4), ...v128store,
    // count −= (alpha ≠ 255 ? −1 : 0)
    ...get(5), ...get(4), ...i32c(24), ...I32X4_SHR_U, ...i32x4(255), ...I32X4_NE, ...I32X4_SUB, ...set(5),
    ...get(0), ...i32c(16), I32_ADD, ...set(0),
    ...get(1), ...i32c(16), I32_ADD, ...set(1),
  ]),
  // the last n % 4 pixels: values only (the caller counts their alpha)
  ...get(2), ...i32c(3), I32_AND, I32_EQZ, I32_EQZ, ...IF,
  ...get(0), ...v128load, ...set(4),
  ...get(1), ...rgbaValue(4), ...v128store,
  END,
  ...get(5), ...lane(0), ...get(5), ...lane(1), I32_ADD, ...get(5), ...lane(2), I32_ADD, ...get(5), ...lane(3), I32_ADD,
];

// luma3: params src 0, dst 1, n 2; locals end 3 (dst end), p 4 (v128)
/** byte k of each 32-bit lane picks source byte 3·lane + channel; 0x80 (out of range) gives 0 */
const pick = (channel: number) => v128const([0, 1, 2, 3].flatMap((l) => [3 * l + channel, 0x80, 0x80, 0x80]));
const luma3Body = [
  // end = dst + ((n + 3) >> 2) · 16
  ...get(1), ...get(2), ...i32c(3), I32_ADD, ...i32c(2), I32_SHR_U, ...i32c(4), I32_SHL, I32_ADD, ...set(3),
  ...whileBelow(1, 3, [
    ...get(0), ...v128load, ...set(4),
    ...get(1),
    ...get(4), ...pick(0), ...SWIZZLE, ...i32x4(299), ...I32X4_MUL,
    ...get(4), ...pick(1), ...SWIZZLE, ...i32x4(587), ...I32X4_MUL, ...I32X4_ADD,
    ...get(4), ...pick(2), ...SWIZZLE, ...i32x4(114), ...I32X4_MUL, ...I32X4_ADD,
    ...v128store,
    ...get(0), ...i32c(12), I32_ADD, ...set(0),
    ...get(1), ...i32c(16), I32_ADD, ...set(1),
  ]),
  ...i32c(0),
];

// cells: params values 0, at 1, weight 2, out 3, cells 4, w 5 (f64); locals end 6, p 7, stop 8, whole 9 (i64), eight 10 (v128)
/** values[at[j]] of the current cell as a double */
const valueAt = (j: number) => [...get(0), ...get(1), ...i32loadAt(4 * j), ...i32c(2), I32_SHL, I32_ADD, ...i32load, F64_CONVERT_I32_S];
const cellsBody = [
  ...get(3), ...get(4), ...i32c(3), I32_SHL, I32_ADD, ...set(6),
  ...whileBelow(3, 6, [
    // whole = Σ values[at[1] .. at[2])
    ...i64c(0), ...set(9),
    ...get(0), ...get(1), ...i32loadAt(4), ...i32c(2), I32_SHL, I32_ADD, ...set(7),
    ...get(0), ...get(1), ...i32loadAt(8), ...i32c(2), I32_SHL, I32_ADD, ...set(8),
    // eight values at a time: their int32 sum is exact (each value ≤ 65,025,000, eight < 2^31)
    ...BLOCK, ...LOOP, ...get(7), ...i32c(32), I32_ADD, ...get(8), I32_GT_U, ...brIf(1),
    ...get(7), ...v128load, ...get(7), ...v128loadAt(16), ...I32X4_ADD, ...set(10),
    ...get(10), ...get(10), ...get(10), ...shuffle([8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7]), ...I32X4_ADD, ...set(10),
    ...get(9), ...get(10), ...get(10), ...get(10), ...shuffle([4, 5, 6, 7, 0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15]), ...I32X4_ADD, ...lane(0), I64_EXTEND_I32_S, I64_ADD, ...set(9),
    ...get(7), ...i32c(32), I32_ADD, ...set(7),
    ...br(0), END, END,
    ...whileBelow(7, 8, [...get(9), ...get(7), ...i32load, I64_EXTEND_I32_S, I64_ADD, ...set(9), ...get(7), ...i32c(4), I32_ADD, ...set(7)]),
    // out[k] = out[k] + w · ((weightLo · values[lo] + whole) + weightHi · values[hi])
    ...get(3),
    ...get(3), ...f64loadAt(0),
    ...get(5),
    ...get(2), ...f64loadAt(0), ...valueAt(0), F64_MUL,
    ...get(9), F64_CONVERT_I64_S, F64_ADD,
    ...get(2), ...f64loadAt(8), ...valueAt(3), F64_MUL, F64_ADD,
    F64_MUL, F64_ADD,
    ...f64store,
    ...get(1), ...i32c(16), I32_ADD, ...set(1),
    ...get(2), ...i32c(16), I32_ADD, ...set(2),
    ...get(3), ...i32c(8), I32_ADD, ...set(3),
  ]),
];

const body = (locals: [count: number, type: number][], code: number[]) => {
  const b = [...vec(locals.map(([n, t]) => [...uleb(n), t])), ...code, END];
  return [...uleb(b.length), ...b];
};

function moduleBytes(): Uint8Array {
  const fn3 = [0x60, 3, I32, I32, I32, 1, I32];
  const fn6 = [0x60, 6, I32, I32, I32, I32, I32, F64, 0];
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(1, vec([fn3, fn6])),
    ...section(3, vec([[0], [0], [1]])),
    ...section(5, vec([[0, 1]])),
    ...section(7, vec([
      [...name("memory"), 2, 0],
      [...name("luma4"), 0, 0],
      [...name("luma3"), 0, 1],
      [...name("cells"), 0, 2],
    ])),
    ...section(10, vec([
      body([[1, I32], [2, V128]], luma4Body),
      body([[1, I32], [1, V128]], luma3Body),
      body([[3, I32], [1, I64], [1, V128]], cellsBody),
    ])),
  ]);
}

/** The kernel and a scratch area in its memory, grown on demand (never beyond what one band of rows needs). */
export interface LumaKernel extends KernelExports {
  /** makes the memory at least `bytes` long; views of it taken before are stale after a growth */
  reserve(bytes: number): void;
}

let kernel: LumaKernel | null | undefined;

/** The compiled kernel (built once per process, on first use); null where WebAssembly SIMD is not available. */
export function lumaKernel(): LumaKernel | null {
  if (kernel !== undefined) return kernel;
  try {
    const bytes = moduleBytes();
    if (wasmApi === undefined || !wasmApi.validate(bytes)) return (kernel = null);
    const exports = new wasmApi.Instance(new wasmApi.Module(bytes)).exports as KernelExports;
    const reserve = (n: number) => {
      const have = exports.memory.buffer.byteLength;
      if (n > have) exports.memory.grow(Math.ceil((n - have) / 65_536));
    };
    kernel = { memory: exports.memory, luma4: exports.luma4, luma3: exports.luma3, cells: exports.cells, reserve };
  } catch {
    kernel = null;
  }
  return kernel;
}
