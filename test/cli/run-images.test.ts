/**
 * `paracap run --input cc.tsv --images <img2dataset output>`: a caption list whose image URLs an
 * img2dataset download (built here from the real test images; captions and URLs invented in
 * test/pixels/img2dataset-fixture.ts) holds. The list's references meet the downloaded pixels by
 * normalised URL; the photo's four copies under four URLs become one image, so their captions pair.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ScoredPair } from "../../shared/core/records.ts";
import { buildFilesLayout, buildTar, SAMPLES } from "../pixels/img2dataset-fixture.ts";
import { readDir } from "../cloud/helpers.ts";
import { removeTempDirs, runCli, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const PHOTO = new Set(SAMPLES.slice(0, 4).map((s) => s.caption));

describe("paracap run --images", () => {
  it("pairs the captions of one photo's copies under different URLs, from a folder or a tar; a key-based pivot is refused", async () => {
    const dir = tempDir("paracap-run-images-");
    // the list as Conceptual Captions ships one: caption<TAB>url, one line per image (the failed download included)
    writeFileSync(join(dir, "cc.tsv"), SAMPLES.map((s) => `${s.caption}\t${s.url}\n`).join(""));
    buildFilesLayout(join(dir, "download"));
    await buildTar(join(dir, "download.tar"));
    const pairs = (out: string) => (readDir(out).get("silver.jsonl")?.toString() ?? "").split("\n").filter(Boolean).map((l) => ScoredPair.parse(JSON.parse(l)));

    const byFolder = await runCli(["run", "--input", "cc.tsv", "--images", "download", "--out", "folder-out", "--tiers", "gold,silver", "--quiet"], { cwd: dir });
    expect(byFolder.code, byFolder.stderr).toBe(0);
    const folder = pairs(join(dir, "folder-out"));
    // four captions of the photo, one without a verb the silver heuristic finds: C(3, 2)
    expect(folder).toHaveLength(3);
    for (const p of folder) {
      expect(p.image).toMatch(/^phash:/);
      expect(PHOTO.has(p.a.text) && PHOTO.has(p.b.text)).toBe(true);
      expect(p.a.page).toMatch(/^cc\.tsv:\d+$/);
    }
    const stats = JSON.parse(readDir(join(dir, "folder-out")).get("stats.json")!.toString());
    // the failed download's line has no pixels: one reference dropped, counted
    expect(stats.counters["filter.silver.image_pixels_thesis_v1.dropped.no_image"]).toBe(1);
    expect(stats.counters["extract.current.revisions.skipped.images_only"]).toBe(6);

    const byTar = await runCli(["run", "--input", "cc.tsv", "--images", "download.tar", "--out", "tar-out", "--tiers", "gold,silver", "--quiet"], { cwd: dir });
    expect(byTar.code, byTar.stderr).toBe(0);
    expect(pairs(join(dir, "tar-out"))).toEqual(folder);

    const wrong = join(dir, "url-pivot.json");
    writeFileSync(wrong, JSON.stringify({ pivot: "url" }));
    const refused = await runCli(["run", "--input", "cc.tsv", "--images", "download", "--config", wrong, "--out", "x", "--quiet"], { cwd: dir });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/--images needs a pixel pivot/);
  });
});
