/** Reading img2dataset outputs built from the real test images: files layout, webdataset tar, results parquet. */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { pixelSourceCounter, pixelSourceSkippedCounter } from "../../shared/core/counter-names.ts";
import { readPixelInputs, type PixelSample } from "../../shared/pixels/img2dataset.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";
import { buildFilesLayout, buildResultsParquet, buildTar, SAMPLES } from "./img2dataset-fixture.ts";

afterAll(removeTempDirs);

async function collect(paths: string[], maxImageBytes?: number): Promise<{ samples: PixelSample[]; counters: Counters }> {
  const counters = new Counters();
  const samples: PixelSample[] = [];
  for await (const s of readPixelInputs(paths, { counters, maxImageBytes })) samples.push(s);
  return { samples, counters };
}

/**
 * An image's bytes as their SHA-256: toEqual on a Uint8Array compares element by element through
 * vitest's generic equality, which took tens of CPU seconds per test on these ~300 KB of images.
 */
const digest = (b: Uint8Array | null) => (b === null ? null : `${b.length}:${createHash("sha256").update(b).digest("hex")}`);
const downloaded = SAMPLES.filter((s) => s.image);
const expected = downloaded.map((s) => ({ key: s.key, url: s.url, caption: s.caption, status: "success", bytes: digest(readFileSync(s.image!)) }));
const shape = (s: PixelSample) => ({ key: s.key, url: s.url, caption: s.caption, status: s.status, bytes: digest(s.bytes) });

describe("img2dataset readers", () => {
  it("files layout: every downloaded key with its image bytes, caption and URL, in key order; stats files ignored", async () => {
    const dir = buildFilesLayout(tempDir());
    const { samples, counters } = await collect([dir]);
    expect(samples.map(shape)).toEqual(expected);
    expect(samples[0]!.origin).toBe(join(dir, "00000", "000000000.jpg"));
    expect(counters.get(pixelSourceCounter("samples"))).toBe(6);
  });

  it("webdataset tar: the same samples", async () => {
    const path = await buildTar(join(tempDir(), "00000.tar"));
    const { samples } = await collect([path]);
    expect(samples.map(shape)).toEqual(expected);
  });

  it("a tar cut short yields the samples before the cut and counts it", async () => {
    const path = await buildTar(join(tempDir(), "00000.tar"));
    const bytes = readFileSync(path);
    const cut = join(tempDir(), "cut.tar");
    // the first two samples' files and part of the third's image
    writeFileSync(cut, bytes.subarray(0, bytes.indexOf(Buffer.from("000000002.jpg")) + 512 + 5000));
    const { samples, counters } = await collect([cut]);
    expect(samples.map((s) => s.key)).toEqual(["000000000", "000000001"]);
    expect(counters.get(pixelSourceSkippedCounter("truncated_tar"))).toBe(1);
  });

  it("results parquet: every URL including the failed download (no bytes); the parquet output format carries the images", async () => {
    const dir = tempDir();
    const results = await collect([buildResultsParquet(join(dir, "00000.parquet"))]);
    expect(results.samples.map((s) => [s.key, s.status, s.bytes])).toEqual(SAMPLES.map((s) => [s.key, s.image ? "success" : "failed_to_download", null]));
    expect(results.samples[5]).toMatchObject({ url: "https://gone.example.org/missing.jpg", caption: "This download failed." });
    const withImages = await collect([buildResultsParquet(join(dir, "images.parquet"), true)]);
    expect(withImages.samples.filter((s) => s.bytes).map(shape)).toEqual(expected);
    expect(withImages.counters.get(pixelSourceCounter("samples.with_image"))).toBe(6);
  });

  it("the parquet output format in every codec a parquet writer may pick (gzip, brotli, zstd) carries the same images", async () => {
    const dir = tempDir();
    for (const codec of ["UNCOMPRESSED", "GZIP", "BROTLI", "ZSTD"] as const) {
      const path = buildResultsParquet(join(dir, `${codec}.parquet`), true, 2, codec);
      const { parquetMetadata } = await import("hyparquet");
      expect(parquetMetadata(new Uint8Array(readFileSync(path)).buffer).row_groups[0]!.columns[0]!.meta_data!.codec).toBe(codec);
      const { samples, counters } = await collect([path]);
      expect(samples.filter((s) => s.bytes).map(shape), codec).toEqual(expected);
      expect(counters.get(pixelSourceSkippedCounter("damaged_parquet")), codec).toBe(0);
    }
  });

  it("a parquet cut anywhere is one damaged_parquet, not an error; a damaged row group loses only its own rows", async () => {
    const dir = tempDir();
    const whole = readFileSync(buildResultsParquet(join(dir, "whole.parquet"), true, 2));
    const damaged = pixelSourceSkippedCounter("damaged_parquet");
    expect((await collect([join(dir, "whole.parquet")])).counters.get(damaged)).toBe(0);
    // cut before its footer (the map of its rows): nothing can be found
    for (const at of [0, 4, 1000, whole.length >> 1, whole.length - 9, whole.length - 1]) {
      const cut = join(dir, `cut-${at}.parquet`);
      writeFileSync(cut, whole.subarray(0, at));
      const { samples, counters } = await collect([cut]);
      expect(samples, `cut at ${at}`).toEqual([]);
      expect(counters.get(damaged), `cut at ${at}`).toBe(1);
    }
    // the second row group's first page header overwritten: the first, third and fourth groups are read
    const { parquetMetadata } = await import("hyparquet");
    const at = Number(parquetMetadata(new Uint8Array(whole).buffer).row_groups[1]!.columns[0]!.meta_data!.data_page_offset);
    const bad = join(dir, "bad-group.parquet");
    writeFileSync(bad, Buffer.from(whole).fill(0xff, at, at + 16));
    const { samples, counters } = await collect([bad]);
    expect(samples.map((s) => s.key)).toEqual(["000000000", "000000001", "000000004", "000000005", "000000006"]);
    expect(samples.filter((s) => s.bytes).map(shape)).toEqual(expected.filter((s) => !["000000002", "000000003"].includes(s.key)));
    expect(counters.get(damaged)).toBe(1);
  });

  it("skips images over the size bound and counts a sidecar that is not JSON, keeping the sample", async () => {
    const dir = buildFilesLayout(tempDir());
    writeFileSync(join(dir, "00000", "000000001.json"), "{not json");
    const { samples, counters } = await collect([dir], 50_000);
    expect(samples.filter((s) => s.bytes === null).map((s) => s.key)).toEqual(["000000000", "000000002", "000000003"]);
    expect(counters.get(pixelSourceSkippedCounter("too_large"))).toBe(3);
    expect(counters.get(pixelSourceSkippedCounter("bad_sidecar"))).toBe(1);
    expect(samples[1]).toMatchObject({ key: "000000001", url: null, caption: "The forest road is covered with fallen leaves." });
  });

  it("img2dataset's webdataset and parquet output folders: their shards are read, the results tables beside them are not", async () => {
    const wds = tempDir();
    await buildTar(join(wds, "00000.tar"));
    buildResultsParquet(join(wds, "00000.parquet"));
    writeFileSync(join(wds, "00000_stats.json"), "{}");
    const fromTar = await collect([wds]);
    expect(fromTar.samples.map(shape)).toEqual(expected);
    const pq = tempDir();
    buildResultsParquet(join(pq, "00000.parquet"), true);
    writeFileSync(join(pq, "00000_stats.json"), "{}");
    expect((await collect([pq])).samples.filter((s) => s.bytes).map(shape)).toEqual(expected);
    // the files layout's results table beside its shard folder stays bookkeeping
    const files = buildFilesLayout(tempDir());
    buildResultsParquet(join(files, "00000.parquet"));
    expect((await collect([files])).samples.map(shape)).toEqual(expected);
  });

  it("a tar named in capitals or gzipped is a tar; an image file over the bound is counted, never read whole", async () => {
    const dir = tempDir();
    const tar = await buildTar(join(dir, "SHARD.TAR"));
    writeFileSync(join(dir, "shard.tar.gz"), gzipSync(readFileSync(tar)));
    for (const path of [tar, join(dir, "shard.tar.gz")]) expect((await collect([path])).samples.map(shape), path).toEqual(expected);
    const huge = join(dir, "huge.jpg");
    writeFileSync(huge, "");
    truncateSync(huge, 40 * 1024 * 1024); // sparse: nothing written
    const { samples, counters } = await collect([huge]);
    expect(samples.map((s) => [s.key, s.bytes])).toEqual([["huge", null]]);
    expect(counters.get(pixelSourceSkippedCounter("too_large"))).toBe(1);
  });

  it("a tar cut at an entry's end (no end-of-archive blocks) is cut: its last key is dropped and counted, as inside an entry", async () => {
    const dir = tempDir();
    const whole = readFileSync(await buildTar(join(dir, "whole.tar")));
    // the end of the second-to-last entry's data: where the last entry's header begins (512-byte blocks)
    const keys = expected.map((e) => e.key);
    const lastHeader = whole.indexOf(Buffer.from(`${keys.at(-1)}.json`));
    const cut = join(dir, "cut.tar");
    writeFileSync(cut, whole.subarray(0, lastHeader));
    const { samples, counters } = await collect([cut]);
    expect(samples.map((s) => s.key)).toEqual(keys.slice(0, -1));
    expect(counters.get(pixelSourceSkippedCounter("truncated_tar"))).toBe(1);
    expect((await collect([join(dir, "whole.tar")])).counters.get(pixelSourceSkippedCounter("truncated_tar"))).toBe(0);
  });

  it("a tar whose keys' files are scattered (tar(1) over a folder) gives every sample with its caption and URL, read twice", async () => {
    const dir = tempDir();
    const { samples, counters } = await collect([await buildTar(join(dir, "scattered.tar"), true)]);
    // in the images' order (here the keys' reverse), each with its own caption, URL and bytes
    const byKey = new Map(expected.map((e) => [`./${e.key}`, e]));
    expect(samples.map((s) => s.key)).toEqual(expected.map((e) => `./${e.key}`).reverse());
    for (const s of samples) expect(shape(s)).toEqual({ ...byKey.get(s.key)!, key: s.key });
    expect(counters.get(pixelSourceSkippedCounter("no_image_file"))).toBe(1);
    expect(counters.get(pixelSourceSkippedCounter("truncated_tar"))).toBe(0);
  });

  it("a plain folder's key is the file's path under it: two folders' photo.jpg are two pictures", async () => {
    const dir = tempDir();
    for (const [sub, i] of [["a", 0], ["b", 4]] as const) {
      mkdirSync(join(dir, sub));
      writeFileSync(join(dir, sub, "photo.jpg"), readFileSync(SAMPLES[i]!.image!));
      writeFileSync(join(dir, sub, "photo.txt"), SAMPLES[i]!.caption);
    }
    const { samples } = await collect([dir]);
    expect(samples.map((s) => [s.key, s.caption])).toEqual([["a/photo", SAMPLES[0]!.caption], ["b/photo", SAMPLES[4]!.caption]]);
  });

  it("a caption or sidecar that cannot be read (dangling or looping link) is counted; the sample stays", async () => {
    const dir = buildFilesLayout(tempDir());
    const shard = join(dir, "00000");
    const first = SAMPLES.find((s) => s.image)!;
    rmSync(join(shard, `${first.key}.txt`));
    symlinkSync(join(shard, "gone.txt"), join(shard, `${first.key}.txt`));
    const second = SAMPLES.filter((s) => s.image)[1]!;
    rmSync(join(shard, `${second.key}.json`));
    symlinkSync(join(shard, `${second.key}.json`), join(shard, `${second.key}.json`));
    const { samples, counters } = await collect([dir]);
    expect(samples.map((s) => s.key)).toEqual(expected.map((e) => e.key));
    // (the caption file gone, the sidecar's caption stands in)
    expect(samples[0]).toMatchObject({ key: first.key, caption: first.caption, url: first.url });
    expect(samples[1]).toMatchObject({ key: second.key, url: null, caption: second.caption });
    expect(counters.get(pixelSourceSkippedCounter("unreadable_file"))).toBe(2);
  });

  it("plain image files and folders of them: the file name is the key", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "pics"));
    writeFileSync(join(dir, "pics", "road.v2.jpg"), readFileSync(SAMPLES[0]!.image!));
    writeFileSync(join(dir, "pics", "notes.md"), "not an image");
    const { samples } = await collect([join(dir, "pics"), SAMPLES[4]!.image!]);
    expect(samples.map((s) => [s.key, s.caption, s.bytes?.length])).toEqual([
      ["road.v2", null, 67685],
      ["ballon", null, 24628],
    ]);
  });
});
