/**
 * Decodes an image's bytes once into everything the pixel stages need: its content hash (the cache
 * key), the facts the thesis' image filters judge (bytes, size, aspect, transparent pixels), the MD5
 * of its decoded pixels and the small luminance raster every perceptual hash is computed from.
 *
 * Decoding applies the EXIF orientation and converts to sRGB through the embedded ICC profile (sharp
 * does both when asked for `.rotate()` and raw output), so a rotated-by-metadata copy or a copy with
 * its colours converted into another profile decodes to the same pixels. A profile that is sRGB
 * already is not converted (icc-srgb.ts: the conversion would leave every value as it is, and
 * building it costs more than decoding a web-sized JPEG). Bad bytes never throw: they come back as a
 * reason (`corrupt`, `truncated`, `unsupported`, `too_many_pixels`, `empty`) for the caller to count.
 *
 * Speed (scripts/bench/image-hash.ts): the profile read from the header segments in JS
 * (embedded-icc.ts), one full-resolution decode, one pass over the pixels for both rasters and
 * the transparency count (raster.ts `hashRasters`), and the pixel
 * MD5 only when asked for (`md5`: the md5 pivot and `paracap hash`), since hashing every decoded
 * byte costs as much as the perceptual hashes together.
 */
import { createHash } from "node:crypto";
import type Sharp from "sharp";
import { embeddedIcc } from "./embedded-icc.ts";
import { isSrgbProfile } from "./icc-srgb.ts";
import { hashRasters } from "./raster.ts";

/** sharp (native libvips, ~0.1–0.15 s of CPU to load) loads at the first decode: a run without pixels never pays for it. */
let sharpLoading: Promise<typeof Sharp> | null = null;
const loadSharp = (): Promise<typeof Sharp> => (sharpLoading ??= import("sharp").then((m) => m.default));

/** Why an image could not be decoded (stable: becomes a counter name). */
export type DecodeFailure = "empty" | "unsupported" | "truncated" | "corrupt" | "too_many_pixels";

/** Side of the luminance raster hashes are computed from (64: 8×8 blocks of 8×8 pixels, rings of ≥ 49 pixels). */
export const HASH_RASTER_SIDE = 64;

export interface DecodeOptions {
  /**
   * Decompression-bomb guard: images whose header claims more pixels are refused before decoding
   * (sharp's limitInputPixels). The thesis keeps ≤ 1,000,000 pixels; the guard only bounds memory.
   */
  maxPixels: number;
  /** compute the MD5 of the decoded pixels (default true); without it `pixelMd5` is null */
  md5?: boolean;
}

export const DEFAULT_DECODE_OPTIONS: DecodeOptions = { maxPixels: 50_000_000, md5: true };

/** What the thesis' filters (4.3.2) judge of one image. */
export interface ImageFacts {
  /** bytes of the file as stored */
  readonly byteLength: number;
  /** after EXIF orientation */
  readonly width: number;
  readonly height: number;
  /** pixels whose alpha is below opaque (0 when the image has no alpha channel) */
  readonly transparentPixels: number;
}

export interface DecodedImage extends ImageFacts {
  /** sha256 hex of the bytes: the cache key of everything derived from them */
  readonly contentHash: string;
  readonly format: string;
  /** MD5 hex of the decoded sRGB pixels with their shape (thesis 4.6.2 pixel equality); null when not asked for */
  readonly pixelMd5: string | null;
  /**
   * Luminance (BT.601 Y, 0…255) of the image composited onto white and area-averaged (antialiased)
   * to HASH_RASTER_SIDE² (aspect ignored, as perceptual hashes do), row-major (raster.ts).
   */
  readonly luma: Float64Array;
  /**
   * The same of the largest centred square, aspect kept: the ring hashes read the disc
   * inside it, which a rotation by 90° or 180° maps onto itself (a squashed raster it does not).
   */
  readonly centreLuma: Float64Array;
}

export type DecodeResult = { ok: true; image: DecodedImage } | { ok: false; reason: DecodeFailure; contentHash: string; message: string };

export function contentHashOf(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** `contentHash`: the bytes' sha256 when the caller has it already (pixel-judge.ts keys its cache by it). */
export async function decodeImage(bytes: Uint8Array, options: DecodeOptions = DEFAULT_DECODE_OPTIONS, contentHash: string = contentHashOf(bytes)): Promise<DecodeResult> {
  const fail = (reason: DecodeFailure, message: string): DecodeResult => ({ ok: false, reason, contentHash, message });
  if (bytes.length === 0) return fail("empty", "no bytes");
  const input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // failOn "error": truncated or broken data refuses; libjpeg's recoverable warnings (common on the web) pass
  const format = sniffFormat(input);
  if (format === null) return fail("unsupported", "not a raster image format paracap reads");
  const sharp = await loadSharp();
  const open = (ignoreIcc: boolean) => sharp(input, { failOn: "error", limitInputPixels: options.maxPixels, sequentialRead: true, ignoreIcc });
  try {
    const icc = embeddedIcc(input, format);
    const srgbAlready = typeof icc === "object" && isSrgbProfile(icc.profile);
    const { data, info } = await open(srgbAlready).rotate().toColourspace("srgb").raw().toBuffer({ resolveWithObject: true });
    const { width, height, channels } = info;
    const pixelMd5 = options.md5 === false ? null : createHash("md5").update(`${width}x${height}x${channels}\n`).update(data).digest("hex");
    const { luma, centreLuma, transparentPixels } = hashRasters(data, width, height, channels, HASH_RASTER_SIDE);
    return { ok: true, image: { contentHash, format, byteLength: bytes.length, width, height, transparentPixels, pixelMd5, luma, centreLuma } };
  } catch (err) {
    return fail(classify(err, input), messageOf(err));
  }
}

/**
 * The raster format by its magic bytes (cheaper than asking the decoder for the header); null for
 * anything else (SVG, PDF, text): those are never decoded.
 */
export function sniffFormat(b: Buffer): string | null {
  const ascii = (at: number, text: string) => b.toString("latin1", at, at + text.length) === text;
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "jpeg";
  if (b.subarray(0, 4).equals(PNG_SIGNATURE)) return "png";
  if (ascii(0, "GIF8")) return "gif";
  if (ascii(0, "RIFF") && ascii(8, "WEBP")) return "webp";
  if (ascii(0, "II*\0") || ascii(0, "MM\0*")) return "tiff";
  if (ascii(4, "ftyp")) {
    const brand = b.toString("latin1", 8, 12);
    if (brand === "avif" || brand === "avis") return "avif";
    if (["heic", "heix", "mif1", "msf1", "hevc"].includes(brand)) return "heif";
  }
  return null;
}

function messageOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split("\n")[0]!;
}

/**
 * A decoder error's reason. A PNG or JPEG cut before its end marker is `truncated` whatever the
 * decoder says; one that has its end marker is `corrupt` even when libjpeg says "premature end"
 * (damaged entropy-coded data runs it out of data before the end it can see).
 */
function classify(err: unknown, bytes: Buffer): DecodeFailure {
  const message = messageOf(err);
  if (/pixel limit/i.test(message)) return "too_many_pixels";
  if (/unsupported image format/i.test(message)) return "unsupported";
  const marker = endMarker(bytes);
  if (marker === "missing") return "truncated";
  if (marker === "present") return "corrupt";
  return /premature end|truncat|unexpected end/i.test(message) ? "truncated" : "corrupt";
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
const PNG_IEND = Buffer.from("IEND", "latin1");

/** Whether a PNG or JPEG ends with its end marker; "unknown" for other formats. */
function endMarker(bytes: Buffer): "present" | "missing" | "unknown" {
  if (bytes.subarray(0, 4).equals(PNG_SIGNATURE)) return bytes.lastIndexOf(PNG_IEND) < 0 ? "missing" : "present";
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return bytes[bytes.length - 2] === 0xff && bytes[bytes.length - 1] === 0xd9 ? "present" : "missing";
  return "unknown";
}
