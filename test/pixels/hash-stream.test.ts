/**
 * The hash stream keeps a few images in flight, in input order, and no more pixels at once than its
 * budget: an image that would go over it waits until the ones before it are handed on (seen here by
 * when the stream asks for the next sample).
 */
import { describe, expect, it } from "vitest";
import { hashSamples, type HashedSample } from "../../shared/pixels/hash-stream.ts";
import { THESIS_IMAGE_BOUNDS } from "../../shared/pixels/image-filters.ts";
import type { PixelSample } from "../../shared/pixels/img2dataset.ts";
import { bytesOf, OTHERS, PHOTO, pngWithBrokenBody } from "./images.ts";

const files = [PHOTO.original, OTHERS.differentPhoto, OTHERS.cat, OTHERS.shapes, PHOTO.thumbnail];

async function events(pixelBudget: number): Promise<{ log: string[]; keys: string[] }> {
  const log: string[] = [];
  const samples = (async function* (): AsyncGenerator<PixelSample> {
    for (const [i, f] of files.entries()) {
      log.push(`pull ${i}`);
      yield { key: String(i), url: null, caption: null, bytes: bytesOf(f), status: null, origin: f };
    }
  })();
  const keys: string[] = [];
  for await (const h of hashSamples(samples, { concurrency: 4, pixelBudget })) {
    log.push(`yield ${h.sample.key}`);
    expect(h.hashes).not.toBeNull();
    keys.push(h.sample.key);
  }
  return { log, keys };
}

describe("hashSamples", () => {
  it("hands images on in input order, up to 4 in flight under a large pixel budget", async () => {
    const { log, keys } = await events(1e12);
    expect(keys).toEqual(["0", "1", "2", "3", "4"]);
    expect(log.indexOf("pull 4")).toBeLessThan(log.indexOf("yield 1"));
    expect(log.indexOf("pull 3")).toBeLessThan(log.indexOf("yield 0"));
  });

  it("one image at a time when each fills the budget (a first image goes in whatever its size)", async () => {
    const { log, keys } = await events(1);
    expect(keys).toEqual(["0", "1", "2", "3", "4"]);
    // each image is handed on before the one after the next is asked for: never two decoded at once
    expect(log).toEqual(["pull 0", "pull 1", "yield 0", "pull 2", "yield 1", "pull 3", "yield 2", "pull 4", "yield 3", "yield 4"]);
  });

  it("with a gate, an image its header puts outside the bounds is never decoded; the others decode as without it", async () => {
    const inputs = [bytesOf(PHOTO.original), pngWithBrokenBody(7000, 7000), bytesOf(PHOTO.thumbnail), bytesOf(OTHERS.differentPhoto)];
    const run = async (gate: typeof THESIS_IMAGE_BOUNDS | null) => {
      const out: HashedSample[] = [];
      const samples = (async function* () {
        for (const [i, bytes] of inputs.entries()) yield { key: String(i), url: null, caption: null, bytes, status: null, origin: "test" };
      })();
      for await (const h of hashSamples(samples, { gate })) out.push(h);
      return out;
    };
    const [plain, gated] = [await run(null), await run(THESIS_IMAGE_BOUNDS)];
    // decoded, the 7000 × 7000 PNG is corrupt; gated, its header says too many pixels and it is not decoded
    expect(plain[1]!.decoded).toMatchObject({ ok: false, reason: "corrupt" });
    expect(gated[1]).toMatchObject({ decoded: null, hashes: null, outside: "too_many_pixels" });
    for (const i of [0, 2, 3]) {
      expect(plain[i]!.decoded).toMatchObject({ ok: true });
      expect(gated[i]!.outside).toBeUndefined();
      expect(gated[i]).toEqual(plain[i]);
    }
  });
});
