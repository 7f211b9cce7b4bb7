/** The real test images (test/fixtures/data/images, see its PROVENANCE.md files) by role. */
import { readFileSync } from "node:fs";
import { join } from "node:path";

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
