/** Images the header alone puts outside the thesis' bounds are never decoded, and get the reason decoding would have given. */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import sharp, { type Sharp } from "sharp";
import { describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { decodeImage, sniffFormat } from "../../shared/pixels/decode.ts";
import { outsideBoundsByHeader, THESIS_IMAGE_BOUNDS, thesisImageFilters } from "../../shared/pixels/image-filters.ts";
import { PIXEL_FACTS_DECODE, pixelFacts } from "../../shared/pixels/pixel-judge.ts";
import { bytesOf, IMAGES_DIR, PHOTO } from "./images.ts";

const fixtures = ["jimagehash", "imagehash"].flatMap((d) => readdirSync(join(IMAGES_DIR, d)).filter((f) => !f.endsWith(".md")).map((f) => join(IMAGES_DIR, d, f)));
const headerVerdict = (b: Uint8Array) => outsideBoundsByHeader(b, sniffFormat(Buffer.from(b)));

async function made(): Promise<Record<string, Uint8Array>> {
  const base = () => sharp(bytesOf(PHOTO.losslessPng));
  const out = async (s: Sharp) => new Uint8Array(await s.toBuffer());
  return {
    "1300×866 JPEG": await out(base().resize(1300, 866).jpeg({ quality: 90 })),
    "1300×866 WebP": await out(base().resize(1300, 866).webp()),
    "400×100 strip": await out(base().resize(400, 100, { fit: "fill" }).jpeg({ quality: 90 })),
    "60×40 PNG": await out(base().resize(60, 40).png()),
    "80×60 4-colour PNG": await out(base().resize(80, 60).png({ compressionLevel: 9, palette: true, colours: 4 })),
    "rotated by EXIF, 1000×999": await out(base().resize(1000, 999, { fit: "fill" }).jpeg({ quality: 60 }).withMetadata({ orientation: 6 })),
  };
}

describe("outsideBoundsByHeader", () => {
  it("a GIF, TIFF or AVIF declaring more pixels than the bound is too_many_pixels by its header (a 7000 × 7000 GIF is a few kB and 150 MB decoded); a small one is left to the decoder", async () => {
    const plain = (w: number, h: number) => sharp({ create: { width: w, height: h, channels: 3, background: { r: 40, g: 120, b: 200 } } });
    for (const [format, bytes] of [
      ["gif", await plain(1200, 1000).gif().toBuffer()],
      ["tiff", await plain(1100, 1000).tiff({ compression: "lzw" }).toBuffer()],
    ] as const) {
      expect(bytes.length, format).toBeLessThan(1_000_000);
      expect(headerVerdict(new Uint8Array(bytes)), format).toBe("too_many_pixels");
    }
    // within the bound the header's canvas is not trusted for the other bounds (a 9:1 strip): the decoder judges
    const strip = await sharp({ create: { width: 900, height: 100, channels: 3, background: { r: 0, g: 0, b: 0 }, noise: { type: "gaussian", mean: 128, sigma: 40 } } }).gif().toBuffer();
    expect(strip.length).toBeGreaterThan(THESIS_IMAGE_BOUNDS.minBytes);
    expect(headerVerdict(new Uint8Array(strip))).toBeNull();
    // a few bytes are a few bytes, whatever the canvas
    expect(headerVerdict(new Uint8Array(await plain(900, 100).gif().toBuffer()))).toBe("too_few_bytes");
  });


  it("names the same first failing bound as the thesis filters on the decoded image, or none where they pass", async () => {
    const inputs = { ...Object.fromEntries(fixtures.map((f) => [f, bytesOf(f)])), ...(await made()) };
    const reasons: Record<string, string | null> = {};
    for (const [name, bytes] of Object.entries(inputs)) {
      const r = await decodeImage(bytes);
      if (!r.ok) throw new Error(`${name}: ${r.reason}`);
      // the decoded image's verdict on the three bounds a header can tell (transparency needs the pixels)
      const [pixels, size, aspect] = thesisImageFilters();
      const decoded = [pixels!, size!, aspect!].map((f) => f.keep(r.image)).find((v) => v !== true);
      reasons[name] = headerVerdict(bytes);
      expect(reasons[name], name).toBe(decoded === undefined ? null : decoded.drop);
    }
    expect(Object.values(reasons).filter((r) => r !== null).sort()).toEqual(["too_elongated", "too_few_bytes", "too_few_pixels", "too_many_pixels", "too_many_pixels"]);
  });

  it("leaves unreadable headers and other formats to the decoder", async () => {
    expect(headerVerdict(bytesOf(PHOTO.original).subarray(0, 100))).toBeNull();
    const strip = new Uint8Array(await sharp(bytesOf(PHOTO.losslessPng)).resize(300, 20, { fit: "fill" }).gif().toBuffer());
    expect(outsideBoundsByHeader(strip, "gif")).toBeNull();
  });
});

describe("pixelFacts with the thesis' bounds as a gate", () => {
  it("does not decode an oversized image: a cut 1300×866 JPEG is too_many_pixels by its header, truncated only when decoded", async () => {
    const big = (await made())["1300×866 JPEG"]!;
    const cut = big.subarray(0, big.length >> 1);
    expect(await pixelFacts(cut, {}, PIXEL_FACTS_DECODE, THESIS_IMAGE_BOUNDS)).toEqual({ ok: false, reason: "too_many_pixels", header: true });
    expect(await pixelFacts(cut, {})).toEqual({ ok: false, reason: "truncated" });
  });

  it("decodes images inside the bounds to the same facts as without the gate, cached apart", async () => {
    const { taskStageContext } = await import("../../shared/tasks/item-cache.ts");
    const { LocalStore } = await import("../../shared/io/local-store.ts");
    const { tempDir, removeTempDirs } = await import("../runner/helpers.ts");
    try {
      const counters = new Counters();
      const ctx = taskStageContext(new LocalStore(tempDir()), counters);
      const gated = await pixelFacts(bytesOf(PHOTO.original), ctx, PIXEL_FACTS_DECODE, THESIS_IMAGE_BOUNDS);
      expect(gated.ok).toBe(true);
      expect(await pixelFacts(bytesOf(PHOTO.original), ctx)).toEqual(gated);
      expect(counters.get("cache.pixel_facts_v2.computed")).toBe(2);
    } finally {
      removeTempDirs();
    }
  });
});
