/**
 * `paracap run --input cc.tsv --images <img2dataset output>`: a caption list whose image URLs an
 * img2dataset download (built here from the real test images; captions and URLs invented in
 * test/pixels/img2dataset-fixture.ts) holds. The list's references meet the downloaded pixels by
 * normalised URL; the photo's four copies under four URLs become one image, so their captions pair.
 */
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ScoredPair } from "../../shared/core/records.ts";
import { buildFilesLayout, buildResultsParquet, buildTar, SAMPLES } from "../pixels/img2dataset-fixture.ts";
import { readDir } from "../cloud/helpers.ts";
import { removeTempDirs, runCli, tempDir } from "../runner/helpers.ts";
import { inProcessCli } from "../support/in-process-cli.ts";

afterAll(removeTempDirs);

/**
 * `paracap run <args>` in this process, as if started in `cwd` (path options resolved against it), with
 * one worker: the pairs and counters are under test here; the process's own exit codes and messages
 * are the two refusals below, still spawned.
 */
async function paracapRun(args: string[], cwd: string): Promise<{ code: number; stderr: string }> {
  const paths = new Set(["--input", "--images", "--out", "--config"]);
  const argv = ["run", ...args.map((a, i) => (i > 0 && paths.has(args[i - 1]!) ? resolve(cwd, a) : a)), "--workers", "1"];
  const { code, stderr } = await inProcessCli(argv);
  return { code, stderr };
}

const PHOTO = new Set(SAMPLES.slice(0, 4).map((s) => s.caption));

describe("paracap run --images", () => {
  it("pairs the captions of one photo's copies under different URLs, from a folder or a tar; a key-based pivot is refused", async () => {
    const dir = tempDir("paracap-run-images-");
    // the list as Conceptual Captions ships one: caption<TAB>url, one line per image (the failed download included)
    writeFileSync(join(dir, "cc.tsv"), SAMPLES.map((s) => `${s.caption}\t${s.url}\n`).join(""));
    buildFilesLayout(join(dir, "download"));
    await buildTar(join(dir, "download.tar"));
    const pairs = (out: string) => (readDir(out).get("silver.jsonl")?.toString() ?? "").split("\n").filter(Boolean).map((l) => ScoredPair.parse(JSON.parse(l)));

    const byFolder = await paracapRun(["--input", "cc.tsv", "--images", "download", "--out", "folder-out", "--tiers", "gold,silver", "--quiet"], dir);
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
    // the samples are said once in report.md (both img2dataset sources read the same counters)
    expect(readDir(join(dir, "folder-out")).get("report.md")!.toString().match(/img2dataset samples read/g)).toHaveLength(1);

    const byTar = await paracapRun(["--input", "cc.tsv", "--images", "download.tar", "--out", "tar-out", "--tiers", "gold,silver", "--quiet"], dir);
    expect(byTar.code, byTar.stderr).toBe(0);
    expect(pairs(join(dir, "tar-out"))).toEqual(folder);

    const wrong = join(dir, "url-pivot.json");
    writeFileSync(wrong, JSON.stringify({ pivot: "url" }));
    const refused = await runCli(["run", "--input", "cc.tsv", "--images", "download", "--config", wrong, "--out", "x", "--quiet"], { cwd: dir });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/--images needs a pixel pivot/);
  });

  it("a parquet-format download whose first shard is cut: the next shard's pixels are read, the cut one counted and reported damaged", async () => {
    const dir = tempDir("paracap-run-images-parquet-");
    writeFileSync(join(dir, "cc.tsv"), SAMPLES.map((s) => `${s.caption}\t${s.url}\n`).join(""));
    const pq = join(dir, "download");
    mkdirSync(pq);
    const whole = readFileSync(buildResultsParquet(join(pq, "00001.parquet"), true));
    writeFileSync(join(pq, "00000.parquet"), whole.subarray(0, whole.length >> 1));
    for (const shard of ["00000", "00001"]) writeFileSync(join(pq, `${shard}_stats.json`), "{}");
    const r = await paracapRun(["--input", "cc.tsv", "--images", "download", "--out", "out", "--tiers", "gold,silver", "--quiet"], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("1 damaged shard(s)");
    const out = readDir(join(dir, "out"));
    expect((out.get("silver.jsonl")?.toString() ?? "").split("\n").filter(Boolean)).toHaveLength(3);
    const stats = JSON.parse(out.get("stats.json")!.toString());
    expect(stats.counters["pixels.skipped.damaged_parquet"]).toBe(1);
    expect(stats.counters["pixels.samples.with_image"]).toBe(6);
    expect(stats.shards.corrupt).toEqual([expect.objectContaining({ error: `${pq}: 1 parquet file(s) cut or damaged: the rows that could be read were read, the others are lost` })]);
  });

  /**
   * The same images as plain files named after their URLs, three ways (the rule of
   * sources/img2dataset/url-named-folder.ts): `wget -x` (host/path, plus files no line names),
   * the URL's basename, an md5 of the URL. Each gives the pairs the img2dataset download gives.
   */
  describe("a plain folder of files named by URL", () => {
    const dir = tempDir("paracap-run-url-folder-");
    writeFileSync(join(dir, "cc.tsv"), SAMPLES.map((s) => `${s.caption}\t${s.url}\n`).join(""));
    const downloaded = SAMPLES.filter((s) => s.image !== null);
    const layouts: Record<string, (url: URL, image: string) => string> = {
      wget: (url) => `${url.host}${url.pathname}`,
      basename: (url) => url.pathname.slice(url.pathname.lastIndexOf("/") + 1),
      md5: (url, image) => `${createHash("md5").update(url.href).digest("hex")}${extname(image)}`,
    };
    for (const [name, fileOf] of Object.entries(layouts)) {
      for (const s of downloaded) {
        const path = join(dir, name, fileOf(new URL(s.url), s.image!));
        mkdirSync(dirname(path), { recursive: true });
        copyFileSync(s.image!, path);
      }
    }
    writeFileSync(join(dir, "wget", "example.org", "index.html"), "<html></html>");
    const silver = (out: string) => readDir(join(dir, out)).get("silver.jsonl")?.toString() ?? "";
    let reference: string;

    it("img2dataset's download: the reference", async () => {
      buildFilesLayout(join(dir, "download"));
      const r = await paracapRun(["--input", "cc.tsv", "--images", "download", "--out", "ref-out", "--tiers", "gold,silver", "--quiet"], dir);
      expect(r.code, r.stderr).toBe(0);
      reference = silver("ref-out");
      expect(reference.split("\n").filter(Boolean)).toHaveLength(3);
    });

    it.each(Object.keys(layouts))("%s-named files give the same pairs, each file matched by its rule and counted", async (name) => {
      const r = await paracapRun(["--input", "cc.tsv", "--images", name, "--out", `${name}-out`, "--tiers", "gold,silver", "--quiet"], dir);
      expect(r.code, r.stderr).toBe(0);
      expect(silver(`${name}-out`)).toBe(reference);
      const counters = JSON.parse(readDir(join(dir, `${name}-out`)).get("stats.json")!.toString()).counters;
      const rule = name === "md5" ? "hash" : name;
      expect(counters[`pixels.url_folder.matched.${rule}`]).toBe(downloaded.length);
      expect(counters["pixels.url_folder.unmatched"] ?? 0).toBe(name === "wget" ? 1 : 0);
      expect(counters["filter.silver.image_pixels_thesis_v1.dropped.no_image"]).toBe(1);
      // the dropped image is named in the funnel row, as every image row names its drops
      const stats = JSON.parse(readDir(join(dir, `${name}-out`)).get("stats.json")!.toString());
      const row = stats.tiers.silver.funnel.find((r: { id: string }) => r.id === "image_pixels_thesis_v1");
      expect(row.filter.examples.no_image).toEqual([expect.stringMatching(/missing\.jpg \(on /)]);
    });

    it("a folder of symlinks into a cache (files and a linked folder) reads as the files would; a dangling link is counted", async () => {
      const farm = join(dir, "links");
      mkdirSync(join(farm, "sub"), { recursive: true });
      const [first, ...rest] = downloaded;
      symlinkSync(resolve(first!.image!), join(farm, new URL(first!.url).pathname.split("/").pop()!));
      mkdirSync(join(dir, "cache"), { recursive: true });
      for (const s of rest) copyFileSync(s.image!, join(dir, "cache", new URL(s.url).pathname.split("/").pop()!));
      symlinkSync(join(dir, "cache"), join(farm, "sub", "cached"));
      symlinkSync(join(dir, "no-such-file.jpg"), join(farm, "gone.jpg"));
      // a link back up the tree is not walked twice
      symlinkSync(farm, join(farm, "sub", "loop"));
      const r = await paracapRun(["--input", "cc.tsv", "--images", "links", "--out", "links-out", "--tiers", "gold,silver", "--quiet"], dir);
      expect(r.code, r.stderr).toBe(0);
      expect(silver("links-out")).toBe(reference);
      const counters = JSON.parse(readDir(join(dir, "links-out")).get("stats.json")!.toString()).counters;
      expect(counters["pixels.url_folder.matched.basename"]).toBe(downloaded.length);
      expect(counters["pixels.url_folder.unmatched"]).toBe(1);
    });

    it("an empty --images folder is a user error naming it, not a run without pixels", async () => {
      mkdirSync(join(dir, "empty"), { recursive: true });
      const r = await runCli(["run", "--input", "cc.tsv", "--images", "empty", "--out", "empty-out", "--quiet"], { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe("paracap run: the --images folder empty holds no files\n");
    });
  });
});
