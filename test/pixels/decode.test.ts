/**
 * Decoding real images once: facts for the thesis filters, pixel MD5, the luminance raster; EXIF
 * orientation and ICC profiles applied; bad bytes come back as counted reasons, never a throw.
 */
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { filterCounter } from "../../shared/core/counter-names.ts";
import { decodeImage, HASH_RASTER_SIDE, type DecodedImage } from "../../shared/pixels/decode.ts";
import { imageDecodableInfo, judgeImage, thesisImageFilters } from "../../shared/pixels/image-filters.ts";
import { bytesOf, ICC_PAIR, OTHERS, PHOTO } from "./images.ts";

async function decoded(bytes: Uint8Array): Promise<DecodedImage> {
  const r = await decodeImage(bytes);
  if (!r.ok) throw new Error(`${r.reason}: ${r.message}`);
  return r.image;
}

const meanAbsDiff = (a: Float64Array, b: Float64Array) => a.reduce((s, v, i) => s + Math.abs(v - b[i]!), 0) / a.length;

describe("decodeImage", () => {
  it("reads the facts the filters judge and keys everything by the sha256 of the bytes", async () => {
    const img = await decoded(bytesOf(PHOTO.original));
    expect(img).toMatchObject({ format: "jpeg", byteLength: 67685, width: 500, height: 333, transparentPixels: 0 });
    // PROVENANCE.md: sha256 (first 16) d35a23dfc4c24462
    expect(img.contentHash.slice(0, 16)).toBe("d35a23dfc4c24462");
    expect(img.luma).toHaveLength(HASH_RASTER_SIDE * HASH_RASTER_SIDE);
    const logo = await decoded(bytesOf(OTHERS.transparentLogo));
    expect(logo).toMatchObject({ width: 1000, height: 1000 });
    expect(logo.transparentPixels).toBeGreaterThan(800_000);
  });

  it("pixel MD5 is equal for the same pixels in another container and differs for a recompressed copy", async () => {
    const png = await decoded(bytesOf(PHOTO.losslessPng));
    const webp = await decoded(new Uint8Array(await sharp(bytesOf(PHOTO.losslessPng)).webp({ lossless: true }).toBuffer()));
    expect(webp.contentHash).not.toBe(png.contentHash);
    expect(webp.pixelMd5).toBe(png.pixelMd5);
    const low = await decoded(bytesOf(PHOTO.lowQualityJpeg));
    expect(low.pixelMd5).not.toBe((await decoded(bytesOf(PHOTO.original))).pixelMd5);
  });

  it("applies the EXIF orientation: a copy rotated by metadata decodes like the physically rotated image", async () => {
    const original = bytesOf(PHOTO.losslessPng);
    const tagged = await decoded(new Uint8Array(await sharp(original).jpeg({ quality: 95 }).withMetadata({ orientation: 6 }).toBuffer()));
    const rotated = await decoded(new Uint8Array(await sharp(original).rotate(90).jpeg({ quality: 95 }).toBuffer()));
    const upright = await decoded(new Uint8Array(await sharp(original).jpeg({ quality: 95 }).toBuffer()));
    expect([tagged.width, tagged.height]).toEqual([333, 500]);
    expect(meanAbsDiff(tagged.luma, rotated.luma)).toBeLessThan(2);
    expect(meanAbsDiff(tagged.luma, upright.luma)).toBeGreaterThan(20);
  });

  it("converts through the ICC profile: the photo converted into Display P3 decodes to its sRGB colours", async () => {
    const original = await decoded(bytesOf(PHOTO.losslessPng));
    const p3Bytes = await sharp(bytesOf(PHOTO.losslessPng)).withIccProfile("p3").png().toBuffer();
    const p3 = await decoded(new Uint8Array(p3Bytes));
    const managed = meanAbsDiff(original.luma, p3.luma);
    // without colour management the stored numbers differ (what an ICC-blind decoder would hash)
    const raw = (b: Uint8Array | Buffer) => sharp(b).keepIccProfile().raw().toBuffer();
    const [a, b] = await Promise.all([raw(bytesOf(PHOTO.losslessPng)), raw(p3Bytes)]);
    const blind = a.reduce((s, v, i) => s + Math.abs(v - b[i]!), 0) / a.length;
    expect(blind).toBeGreaterThan(2);
    expect(managed).toBeLessThan(blind / 4);
  });

  it("the ICC pair's identical numbers mean different colours under their two profiles: the decoded pixels differ", async () => {
    const [srgb, adobe] = await Promise.all([decoded(bytesOf(ICC_PAIR.srgb)), decoded(bytesOf(ICC_PAIR.adobe))]);
    expect(srgb.pixelMd5).not.toBe(adobe.pixelMd5);
    expect(meanAbsDiff(srgb.luma, adobe.luma)).toBeGreaterThan(1);
  });

  it("counts corrupt, truncated, unsupported, empty and decompression-bomb bytes instead of throwing", async () => {
    const jpeg = bytesOf(PHOTO.original);
    const png = bytesOf(OTHERS.shapes);
    const bomb = new Uint8Array(await sharp({ create: { width: 6000, height: 6000, channels: 3, background: "#808080" } }).png().toBuffer());
    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="100" height="50"/></svg>');
    const brokenPng = png.slice();
    brokenPng.fill(0x41, 40, 400); // IHDR and the start of IDAT overwritten, IEND kept
    // a JPEG of full length whose second half is noise (its end marker kept): libjpeg says "premature end of data segment"
    const noisyJpeg = jpeg.slice();
    for (let i = noisyJpeg.length >> 1, x = 7; i < noisyJpeg.length - 2; i++) {
      x = (x * 1103515245 + 12345) >>> 0;
      noisyJpeg[i] = (x >>> 16) & 0xff;
    }
    const cases: [string, Uint8Array, string][] = [
      ["half a JPEG", jpeg.subarray(0, jpeg.length >> 1), "truncated"],
      ["a whole JPEG with noise for data", noisyJpeg, "corrupt"],
      ["half a PNG", png.subarray(0, png.length >> 1), "truncated"],
      ["text", new TextEncoder().encode("not an image ".repeat(40)), "unsupported"],
      ["an SVG", svg, "unsupported"],
      ["nothing", new Uint8Array(0), "empty"],
      ["a 36-megapixel PNG of 100 KB", bomb, "too_many_pixels"],
      ["a PNG with garbage in its chunks", brokenPng, "corrupt"],
    ];
    expect(bomb.length).toBeLessThan(200_000);
    const counters = new Counters();
    for (const [what, bytes, reason] of cases) {
      const r = await decodeImage(bytes, { maxPixels: 20_000_000 });
      expect(r.ok, what).toBe(false);
      if (!r.ok) expect(r.reason, `${what}: ${r.message}`).toBe(reason);
      judgeImage(r, thesisImageFilters(), counters, "web");
    }
    expect(counters.get(filterCounter("web", imageDecodableInfo.id, "dropped"))).toBe(cases.length);
    expect(counters.get(filterCounter("web", imageDecodableInfo.id, "dropped", "truncated"))).toBe(2);
  });
});

describe("thesis image filters (4.3.2)", () => {
  it("keep the photo and its thumbnail; drop the transparent logo, a 4:1 strip, a 1.1-megapixel copy and a 2 KB file", async () => {
    const counters = new Counters();
    const filters = thesisImageFilters();
    const judge = async (bytes: Uint8Array) => judgeImage(await decodeImage(bytes), filters, counters, "web");
    const strip = new Uint8Array(await sharp(bytesOf(PHOTO.losslessPng)).resize(400, 100, { fit: "fill" }).jpeg({ quality: 90 }).toBuffer());
    const big = new Uint8Array(await sharp(bytesOf(PHOTO.losslessPng)).resize(1300, 866).jpeg({ quality: 90 }).toBuffer());
    const tiny = new Uint8Array(await sharp(bytesOf(PHOTO.losslessPng)).resize(80, 60).png({ compressionLevel: 9, palette: true, colours: 4 }).toBuffer());
    expect(await judge(bytesOf(PHOTO.original))).toBe(true);
    expect(await judge(bytesOf(PHOTO.thumbnail))).toBe(true); // 100×67 = 6,700 pixels, 19,645 bytes
    expect(await judge(bytesOf(OTHERS.transparentLogo))).toBe(false);
    expect(await judge(strip)).toBe(false);
    expect(await judge(big)).toBe(false);
    expect(tiny.length).toBeLessThan(3000);
    expect(await judge(tiny)).toBe(false);
    const dropped = (id: string, reason: string) => counters.get(filterCounter("web", id, "dropped", reason));
    const [pixels, bytes, aspect, opaque] = filters.map((f) => f.id);
    expect(dropped(pixels!, "too_many_pixels")).toBe(1);
    expect(dropped(aspect!, "too_elongated")).toBe(1);
    expect(dropped(opaque!, "has_transparency")).toBe(1);
    expect(dropped(bytes!, "too_few_bytes")).toBe(1);
    expect(counters.get(filterCounter("web", opaque!, "kept"))).toBe(2);
  });
});
