/** The cached pixel judge: decoded once per content, reused from the run's work store, verdicts counted like any filter. */
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { cacheCounter, filterCounter } from "../../shared/core/counter-names.ts";
import { Counters } from "../../shared/core/counters.ts";
import { applyFilter } from "../../shared/core/filter.ts";
import { LocalStore } from "../../shared/io/local-store.ts";
import { decodeImage } from "../../shared/pixels/decode.ts";
import { hashToHex, imageHashes } from "../../shared/pixels/hashes.ts";
import { PIXEL_FACTS_DECODE, PIXEL_FACTS_MD5_NAMESPACE, PIXEL_FACTS_NAMESPACE, pixelFacts, pixelFilter } from "../../shared/pixels/pixel-judge.ts";
import { taskStageContext } from "../../shared/tasks/item-cache.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";
import { OTHERS, PHOTO } from "./images.ts";

afterAll(removeTempDirs);

interface Use {
  image: string;
  file: string | null;
}

const USES: Use[] = [
  { image: "File:Road.jpg", file: PHOTO.original },
  { image: "File:Road (copy).jpg", file: PHOTO.original },
  { image: "File:Logo.png", file: OTHERS.transparentLogo },
  { image: "File:Missing.jpg", file: null },
  { image: "File:Broken.jpg", file: "broken" },
];
const bytesOf = (u: Use) => (u.file === null ? null : u.file === "broken" ? new TextEncoder().encode("<html>404</html>") : new Uint8Array(readFileSync(u.file)));

async function judgeAll(work: LocalStore): Promise<{ kept: string[]; counters: Counters }> {
  const counters = new Counters();
  const ctx = taskStageContext(work, counters);
  const filter = pixelFilter(bytesOf, ctx);
  const kept: string[] = [];
  for (const u of USES) if (await applyFilter(filter, u, counters, "web")) kept.push(u.image);
  return { kept, counters };
}

describe("pixelFilter", () => {
  it("keeps the photo, drops the transparent logo, a missing and an undecodable image, with reasons and examples", async () => {
    const { kept, counters } = await judgeAll(new LocalStore(tempDir()));
    expect(kept).toEqual(["File:Road.jpg", "File:Road (copy).jpg"]);
    const id = "image_pixels_thesis_v1";
    expect(counters.get(filterCounter("web", id, "dropped", "has_transparency"))).toBe(1);
    expect(counters.get(filterCounter("web", id, "dropped", "no_image"))).toBe(1);
    expect(counters.get(filterCounter("web", id, "dropped", "unsupported"))).toBe(1);
    expect(counters.samples.get(filterCounter("web", id, "dropped", "has_transparency"))).toEqual(["File:Logo.png"]);
    // the photo's two uses share one content: decoded once
    expect(counters.get(cacheCounter(PIXEL_FACTS_NAMESPACE, "computed"))).toBe(3);
    expect(counters.get(cacheCounter(PIXEL_FACTS_NAMESPACE, "hits"))).toBe(1);
  });

  it("a rerun on the same work store reads every image's facts instead of decoding, with the same verdicts", async () => {
    const work = new LocalStore(tempDir());
    const first = await judgeAll(work);
    const second = await judgeAll(work);
    expect(second.kept).toEqual(first.kept);
    expect(second.counters.get(cacheCounter(PIXEL_FACTS_NAMESPACE, "computed"))).toBe(0);
    expect(second.counters.get(cacheCounter(PIXEL_FACTS_NAMESPACE, "hits"))).toBe(4);
  });

  it("cached facts carry the hashes the decoder computes", async () => {
    const bytes = new Uint8Array(readFileSync(PHOTO.lowQualityJpeg));
    const facts = await pixelFacts(bytes, taskStageContext(new LocalStore(tempDir()), new Counters()));
    const r = await decodeImage(bytes);
    if (!r.ok || !facts.ok) throw new Error("decodes");
    const h = imageHashes(r.image);
    // the pixel MD5 only when asked for (the md5 pivot): the same perceptual hashes either way
    expect(facts).toMatchObject({ format: "jpeg", width: 500, height: 333, md5: null, phash: hashToHex(h.phash), rahash: hashToHex(h.rahash) });
    expect(h.md5).toMatch(/^[0-9a-f]{32}$/);
    // without a cache (tests, benchmarks) the facts are computed
    expect(await pixelFacts(bytes, {})).toEqual(facts);
  });

  it("facts with the pixel MD5 are cached apart from facts without it, so neither is read for the other", async () => {
    const bytes = new Uint8Array(readFileSync(PHOTO.lowQualityJpeg));
    const work = new LocalStore(tempDir());
    const counters = new Counters();
    const ctx = taskStageContext(work, counters);
    const plain = await pixelFacts(bytes, ctx);
    const withMd5 = await pixelFacts(bytes, ctx, { ...PIXEL_FACTS_DECODE, md5: true });
    const r = await decodeImage(bytes);
    if (!r.ok || !plain.ok || !withMd5.ok) throw new Error("decodes");
    expect(withMd5).toEqual({ ...plain, md5: r.image.pixelMd5 });
    expect(counters.get(cacheCounter(PIXEL_FACTS_NAMESPACE, "computed"))).toBe(1);
    expect(counters.get(cacheCounter(PIXEL_FACTS_MD5_NAMESPACE, "computed"))).toBe(1);
    expect(await pixelFacts(bytes, ctx, { ...PIXEL_FACTS_DECODE, md5: true })).toEqual(withMd5);
    expect(counters.get(cacheCounter(PIXEL_FACTS_MD5_NAMESPACE, "hits"))).toBe(1);
  });
});
