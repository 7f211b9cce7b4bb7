/**
 * Whether an embedded ICC profile is sRGB itself, so decoding may skip the colour transform into
 * sRGB: building that transform costs lcms 3–6 ms per image (more than decoding a web-sized JPEG),
 * and most web images that carry a profile carry an sRGB one (HP's "sRGB IEC61966-2.1", v4 sRGB
 * profiles). A profile counts as sRGB when lcms would treat it as a plain matrix/shaper profile (RGB
 * data, XYZ connection space, no lookup-table tags, which lcms prefers over the matrix) whose
 * colorants are sRGB's (D50-adapted, within 0.0005) and whose tone curves map every 8-bit value
 * onto itself under sRGB's. For such profiles the transform leaves the pixels as they are (checked
 * on the real HP and lcms sRGB profiles in test/pixels/icc-srgb.test.ts), so skipping it changes no
 * decoded value; anything else (Adobe RGB, Display P3, grey, CMYK, LUT profiles, unreadable bytes)
 * is converted as before.
 */

/** sRGB's colorants as an ICC profile stores them (Bradford-adapted to D50), rXYZ gXYZ bXYZ. */
const SRGB_COLORANTS: Readonly<Record<string, readonly [number, number, number]>> = {
  rXYZ: [0.436074, 0.222504, 0.013932],
  gXYZ: [0.385065, 0.716879, 0.097105],
  bXYZ: [0.14308, 0.060617, 0.714173],
};
const COLORANT_TOLERANCE = 0.0005;
/** Tags that make lcms use a lookup table instead of the matrix and curves. */
const LUT_TAGS = new Set(["A2B0", "A2B1", "A2B2", "B2A0", "B2A1", "B2A2", "D2B0", "D2B1", "D2B2", "B2D0", "B2D1", "B2D2"]);

export function isSrgbProfile(icc: Uint8Array): boolean {
  try {
    return matchesSrgb(Buffer.from(icc.buffer, icc.byteOffset, icc.byteLength));
  } catch {
    return false; // a tag pointing outside the profile: not one to trust
  }
}

function matchesSrgb(b: Buffer): boolean {
  if (b.length < 132 || b.toString("latin1", 36, 40) !== "acsp") return false;
  if (b.toString("latin1", 16, 20) !== "RGB " || b.toString("latin1", 20, 24) !== "XYZ ") return false;
  const tags = new Map<string, number>();
  const count = b.readUInt32BE(128);
  if (count > 200) return false;
  for (let i = 0; i < count; i++) {
    const at = 132 + 12 * i;
    tags.set(b.toString("latin1", at, at + 4), b.readUInt32BE(at + 4));
  }
  for (const t of tags.keys()) if (LUT_TAGS.has(t)) return false;
  for (const [tag, want] of Object.entries(SRGB_COLORANTS)) {
    const at = tags.get(tag);
    if (at === undefined || b.toString("latin1", at, at + 4) !== "XYZ ") return false;
    for (let i = 0; i < 3; i++) if (Math.abs(b.readInt32BE(at + 8 + 4 * i) / 65536 - want[i]!) > COLORANT_TOLERANCE) return false;
  }
  // the three curves are often one shared tag: check each once
  for (const at of new Set(["rTRC", "gTRC", "bTRC"].map((t) => tags.get(t)))) {
    const curve = at === undefined ? null : toneCurve(b, at);
    if (curve === null || !keepsEveryLevel(curve)) return false;
  }
  return true;
}

/** A `curv` or `para` tag as a function of [0, 1]; null for other types. */
function toneCurve(b: Buffer, at: number): ((x: number) => number) | null {
  const type = b.toString("latin1", at, at + 4);
  if (type === "curv") {
    const n = b.readUInt32BE(at + 8);
    if (n === 0) return (x) => x;
    if (n === 1) {
      const gamma = b.readUInt16BE(at + 12) / 256;
      return (x) => x ** gamma;
    }
    if (at + 12 + 2 * n > b.length) return null;
    const entry = (i: number) => b.readUInt16BE(at + 12 + 2 * i) / 65535;
    return (x) => {
      const p = x * (n - 1);
      const i = Math.min(n - 2, Math.floor(p));
      return entry(i) + (p - i) * (entry(i + 1) - entry(i));
    };
  }
  if (type === "para") {
    const kind = b.readUInt16BE(at + 8);
    const arity = [1, 3, 4, 5, 7][kind];
    if (arity === undefined) return null;
    const [g = 1, a = 1, c0 = 0, c = 0, d = 0, e = 0, f = 0] = Array.from({ length: arity }, (_, i) => b.readInt32BE(at + 12 + 4 * i) / 65536);
    // ICC.1 parametric curves: 0 Y = X^g; 1 (aX+b)^g for X ≥ -b/a; 2 … + c; 3 cX below d; 4 cX + f below d, (aX+b)^g + e above
    const pow = (x: number) => (a * x + c0 > 0 ? (a * x + c0) ** g : 0);
    if (kind === 0) return (x) => x ** g;
    if (kind === 1) return (x) => (x >= -c0 / a ? pow(x) : 0);
    if (kind === 2) return (x) => (x >= -c0 / a ? pow(x) + c : c);
    if (kind === 3) return (x) => (x >= d ? pow(x) : c * x);
    return (x) => (x >= d ? pow(x) + e : c * x + f);
  }
  return null;
}

/** Every 8-bit level, linearised by the curve, lies where sRGB's curve would round it back to itself. */
function keepsEveryLevel(curve: (x: number) => number): boolean {
  for (let v = 0; v < 256; v++) {
    const linear = curve(v / 255);
    if (!(linear > SRGB_LEVEL_LOW[v]! && linear < SRGB_LEVEL_HIGH[v]!)) return false;
  }
  return true;
}

/** sRGB's decoding curve (IEC 61966-2-1). */
function srgbDecode(encoded: number): number {
  return encoded <= 0.04045 ? encoded / 12.92 : ((encoded + 0.055) / 1.055) ** 2.4;
}

/** The linear values that sRGB encodes to within half a level of v. */
const SRGB_LEVEL_LOW = Float64Array.from({ length: 256 }, (_, v) => (v === 0 ? -Infinity : srgbDecode((v - 0.5) / 255)));
const SRGB_LEVEL_HIGH = Float64Array.from({ length: 256 }, (_, v) => (v === 255 ? Infinity : srgbDecode((v + 0.5) / 255)));
