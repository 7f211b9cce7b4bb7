/** The real test images (test/fixtures/data/images, see its PROVENANCE.md files) by role. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { crc32 } from "node:zlib";

export const IMAGES_DIR = new URL("../fixtures/data/images/", import.meta.url).pathname;
const J = join(IMAGES_DIR, "jimagehash");
const I = join(IMAGES_DIR, "imagehash");

/** The one photo and its variants, the reference first. */
export const PHOTO = {
  original: join(J, "highQuality.jpg"),
  lowQualityJpeg: join(J, "lowQuality.jpg"),
  thumbnail: join(J, "thumbnail.jpg"),
  watermark: join(J, "copyright.jpg"),
  losslessPng: join(J, "highQualityBase.png"),
  brightened: join(J, "highQualityBright.png"),
  darkened: join(J, "highQualityDark.png"),
  hueShifted: join(J, "highQualityHue.png"),
} as const;

/** Images that are not the photo. */
export const OTHERS = {
  differentPhoto: join(J, "ballon.jpg"),
  cat: join(J, "catCustom.png"),
  shapes: join(J, "TestShapes.png"),
  nearBlankWhite: join(J, "White.jpg"),
  transparentLogo: join(J, "transparent0.png"),
  transparentLogoOnWhite: join(J, "transparent0White.png"),
  transparent1: join(J, "transparent1.png"),
  transparent1OnWhite: join(J, "transparent1White.png"),
} as const;

/** One Big Buck Bunny frame: the same stored numbers under an sRGB-like and an Adobe RGB profile. */
export const ICC_PAIR = { srgb: join(I, "bigbuckbunny.png"), adobe: join(I, "bigbuckbunny-with-diff-icc.png") } as const;

export const bytesOf = (path: string): Uint8Array => new Uint8Array(readFileSync(path));

/**
 * A PNG whose header (IHDR, CRCs right) declares `width` × `height` RGB pixels and whose image data
 * is no zlib stream: the decoder says `corrupt` (after allocating for the whole canvas), the header
 * alone tells its size.
 */
export function pngWithBrokenBody(width: number, height: number): Uint8Array {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return new Uint8Array(Buffer.concat([signature, chunk("IHDR", ihdr), chunk("IDAT", Buffer.alloc(5000, 0xab)), chunk("IEND", Buffer.alloc(0))]));
}
