/** Which embedded profiles are sRGB already (decoding skips their transform) — and that skipping them changes no pixel. */
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { isSrgbProfile } from "../../shared/pixels/icc-srgb.ts";
import { bytesOf, ICC_PAIR, PHOTO } from "./images.ts";

const profileOf = async (bytes: Uint8Array | Buffer) => {
  const icc = (await sharp(bytes).metadata()).icc;
  if (!icc) throw new Error("no embedded profile");
  return icc;
};
const decoded = (bytes: Uint8Array | Buffer, ignoreIcc: boolean) => sharp(bytes, { ignoreIcc }).rotate().toColourspace("srgb").raw().toBuffer();

describe("isSrgbProfile", () => {
  it("recognises HP's v2 sRGB IEC61966-2.1 (the photo), lcms' v4 sRGB (Big Buck Bunny) and libvips' own", async () => {
    expect(isSrgbProfile(await profileOf(bytesOf(PHOTO.original)))).toBe(true);
    expect(isSrgbProfile(await profileOf(bytesOf(ICC_PAIR.srgb)))).toBe(true);
    expect(isSrgbProfile(await profileOf(await sharp(bytesOf(PHOTO.losslessPng)).withIccProfile("srgb").png().toBuffer()))).toBe(true);
  });

  it("refuses Adobe RGB, Display P3, CMYK and bytes that are not a profile", async () => {
    expect(isSrgbProfile(await profileOf(bytesOf(ICC_PAIR.adobe)))).toBe(false);
    expect(isSrgbProfile(await profileOf(await sharp(bytesOf(PHOTO.losslessPng)).withIccProfile("p3").png().toBuffer()))).toBe(false);
    expect(isSrgbProfile(await profileOf(await sharp(bytesOf(PHOTO.losslessPng)).withIccProfile("cmyk").jpeg().toBuffer()))).toBe(false);
    const hp = await profileOf(bytesOf(PHOTO.original));
    expect(isSrgbProfile(hp.subarray(0, 200))).toBe(false); // tags point past the end
    expect(isSrgbProfile(new Uint8Array(600))).toBe(false);
    // the same profile with its red colorant moved by 0.01: no longer sRGB
    const moved = Buffer.from(hp);
    const count = moved.readUInt32BE(128);
    for (let i = 0; i < count; i++) {
      const at = 132 + 12 * i;
      if (moved.toString("latin1", at, at + 4) === "rXYZ") {
        const x = moved.readUInt32BE(at + 4) + 8;
        moved.writeInt32BE(moved.readInt32BE(x) + 655, x);
      }
    }
    expect(isSrgbProfile(moved)).toBe(false);
  });

  it("for the profiles it recognises, converting into sRGB leaves every decoded value as it is", async () => {
    for (const path of [PHOTO.original, PHOTO.thumbnail, PHOTO.watermark, ICC_PAIR.srgb]) {
      const [converted, kept] = await Promise.all([decoded(bytesOf(path), false), decoded(bytesOf(path), true)]);
      expect(kept.equals(converted), path).toBe(true);
    }
    // where it refuses, the conversion matters
    const [converted, kept] = await Promise.all([decoded(bytesOf(ICC_PAIR.adobe), false), decoded(bytesOf(ICC_PAIR.adobe), true)]);
    expect(kept.equals(converted)).toBe(false);
  });
});
