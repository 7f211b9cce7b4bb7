/**
 * The ICC profile a JPEG, PNG or WebP file embeds, read from its header segments (JPEG APP2
 * `ICC_PROFILE` parts, PNG `iCCP`, WebP `ICCP`): what decode.ts needs to know before decoding
 * whether the profile is sRGB already (icc-srgb.ts), for a few microseconds instead of a separate
 * header read through the decoder (~0.4 ms per image). `unknown` when the answer is not certain (other
 * formats, 16-bit samples, a profile that does not inflate, odd structure): the decoder then converts
 * whatever profile it finds, as it always did.
 */
import { inflateSync } from "node:zlib";

export type EmbeddedIcc = { profile: Uint8Array } | "none" | "unknown";

/** Profiles are a few KB; a larger claim is not worth reading here. */
const MAX_PROFILE_BYTES = 1 << 20;

export function embeddedIcc(bytes: Uint8Array, format: string): EmbeddedIcc {
  try {
    if (format === "jpeg") return jpegIcc(bytes);
    if (format === "png") return pngIcc(bytes);
    if (format === "webp") return webpIcc(bytes);
  } catch {
    // cut or odd headers: the decoder will say what is wrong with them
  }
  return "unknown";
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const latin1 = (bytes: Uint8Array, at: number, length: number) => String.fromCharCode(...bytes.subarray(at, at + length));

/** APP2 segments "ICC_PROFILE\0" + part number + part count + data, before the first scan. */
function jpegIcc(bytes: Uint8Array): EmbeddedIcc {
  const dv = view(bytes);
  const parts = new Map<number, Uint8Array>();
  let count = 0;
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return "unknown";
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    if (marker === 0xda || marker === 0xd9) break; // start of scan / end of image: headers are over
    const length = dv.getUint16(at + 2);
    if (length < 2 || at + 2 + length > bytes.length) return "unknown";
    // SOF0…SOF15 (not DHT C4, JPG C8, DAC CC): sample precision other than 8 bits is not 8-bit sRGB
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc && bytes[at + 4] !== 8) return "unknown";
    if (marker === 0xe2 && length >= 16 && latin1(bytes, at + 4, 12) === "ICC_PROFILE\0") {
      parts.set(bytes[at + 16]!, bytes.subarray(at + 18, at + 2 + length));
      count = bytes[at + 17]!;
    }
    at += 2 + length;
  }
  if (parts.size === 0) return "none";
  if (parts.size !== count) return "unknown";
  const ordered = Array.from({ length: count }, (_, i) => parts.get(i + 1));
  if (ordered.some((p) => p === undefined)) return "unknown";
  return { profile: Buffer.concat(ordered as Uint8Array[]) };
}

/** The `iCCP` chunk (name, NUL, method 0, zlib data), before `IDAT`; 8-bit samples only. */
function pngIcc(bytes: Uint8Array): EmbeddedIcc {
  const dv = view(bytes);
  let at = 8;
  let bitDepth = 0;
  while (at + 8 <= bytes.length) {
    const length = dv.getUint32(at);
    const type = latin1(bytes, at + 4, 4);
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (data.length !== length) return "unknown";
    if (type === "IHDR") bitDepth = data[8]!;
    if (type === "iCCP") {
      if (bitDepth !== 8) return "unknown";
      const nul = data.indexOf(0);
      if (nul < 0 || data[nul + 1] !== 0) return "unknown";
      return { profile: inflateSync(data.subarray(nul + 2), { maxOutputLength: MAX_PROFILE_BYTES }) };
    }
    if (type === "IDAT" || type === "IEND") return bitDepth === 0 ? "unknown" : "none";
    at += 12 + length;
  }
  return "unknown";
}

/** An extended WebP (VP8X) carries its profile in an `ICCP` chunk; simple ones have none. */
function webpIcc(bytes: Uint8Array): EmbeddedIcc {
  const dv = view(bytes);
  let at = 12;
  while (at + 8 <= bytes.length) {
    const type = latin1(bytes, at, 4);
    const length = dv.getUint32(at + 4, true);
    if (type === "ICCP") return length <= MAX_PROFILE_BYTES && at + 8 + length <= bytes.length ? { profile: bytes.subarray(at + 8, at + 8 + length) } : "unknown";
    if (type === "VP8 " || type === "VP8L" || type === "ANIM" || type === "ALPH") return "none"; // ICCP comes before image data
    at += 8 + length + (length & 1);
  }
  return "unknown";
}
