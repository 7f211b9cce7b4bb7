/** The embedded ICC profile read from header segments is the one the decoder reads, byte for byte. */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { sniffFormat } from "../../shared/pixels/decode.ts";
import { embeddedIcc } from "../../shared/pixels/embedded-icc.ts";
import { bytesOf, IMAGES_DIR, PHOTO } from "./images.ts";

const fixtures = ["jimagehash", "imagehash"].flatMap((d) => readdirSync(join(IMAGES_DIR, d)).filter((f) => !f.endsWith(".md")).map((f) => join(IMAGES_DIR, d, f)));

async function agreesWithDecoder(bytes: Uint8Array): Promise<void> {
  const icc = (await sharp(bytes).metadata()).icc;
  const found = embeddedIcc(bytes, sniffFormat(Buffer.from(bytes))!);
  if (icc === undefined) expect(found).toBe("none");
  else expect(typeof found === "object" && Buffer.from(found.profile).equals(icc)).toBe(true);
}

describe("embeddedIcc", () => {
  it("finds exactly the decoder's profile (or none) in every real JPEG and PNG", async () => {
    expect(fixtures.length).toBeGreaterThan(15);
    for (const f of fixtures) await agreesWithDecoder(bytesOf(f));
    expect(typeof embeddedIcc(bytesOf(PHOTO.original), "jpeg")).toBe("object");
  });

  it("reads WebP's ICCP chunk, profiles written into JPEG and PNG, and WebPs without one", async () => {
    const base = sharp(bytesOf(PHOTO.losslessPng));
    for (const bytes of [await base.clone().withIccProfile("p3").webp().toBuffer(), await base.clone().webp({ lossless: true }).toBuffer(), await base.clone().withIccProfile("srgb").jpeg().toBuffer(), await base.clone().withIccProfile("p3").png().toBuffer()]) {
      await agreesWithDecoder(new Uint8Array(bytes));
    }
  });

  it("is unsure (the decoder converts as always) for 16-bit samples, cut headers and other formats", async () => {
    const png16 = new Uint8Array(await sharp(bytesOf(PHOTO.losslessPng)).withIccProfile("srgb").png().toColourspace("rgb16").toBuffer());
    expect(png16[24]).toBe(16);
    expect(embeddedIcc(png16, "png")).toBe("unknown");
    expect(embeddedIcc(bytesOf(PHOTO.original).subarray(0, 300), "jpeg")).toBe("unknown");
    expect(embeddedIcc(new Uint8Array(await sharp(bytesOf(PHOTO.losslessPng)).gif().toBuffer()), "gif")).toBe("unknown");
  });
});
