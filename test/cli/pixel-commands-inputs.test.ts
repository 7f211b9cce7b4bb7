/**
 * `paracap hash` and `paracap dedup-images` on awkward inputs: keys that repeat (the same file names in
 * two folders, one input given more than once) keep distinct keys instead of the index refusing them;
 * a tar or parquet cut short is named in the summary instead of passing for a whole one or stopping the command.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, removeTempDirs, tempDir } from "../runner/helpers.ts";
import { OTHERS, PHOTO, pngWithBrokenBody } from "../pixels/images.ts";
import { buildResultsParquet, buildTar } from "../pixels/img2dataset-fixture.ts";

afterAll(removeTempDirs);

const jsonl = (text: string) => text.split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l) as { members: { key: string }[] });

describe("paracap dedup-images with repeated keys", () => {
  it("one image given three times is one group of three members with distinct keys", async () => {
    const r = await runCli(["dedup-images", PHOTO.original, PHOTO.original, PHOTO.original]);
    expect(r.code, r.stderr).toBe(0);
    const groups = jsonl(r.stdout);
    expect(groups).toHaveLength(1);
    const keys = groups[0]!.members.map((m) => m.key);
    expect(new Set(keys).size).toBe(3);
    expect(keys).toContain("highQuality");
  });

  it("a folder with x.jpg in two subfolders, given twice: each copy is its own member", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "a"));
    mkdirSync(join(dir, "b"));
    copyFileSync(PHOTO.original, join(dir, "a", "x.jpg"));
    copyFileSync(OTHERS.differentPhoto, join(dir, "b", "x.jpg"));
    const r = await runCli(["dedup-images", dir, dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^paracap dedup-images: 4 samples, 4 images hashed/);
    const keys = jsonl(r.stdout).flatMap((g) => g.members.map((m) => m.key));
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe("a webdataset tar cut short", () => {
  it("hash and dedup-images say so in their summaries", async () => {
    const dir = tempDir();
    const bytes = readFileSync(await buildTar(join(dir, "00000.tar")));
    const cut = join(dir, "cut.tar");
    writeFileSync(cut, bytes.subarray(0, bytes.indexOf(Buffer.from("000000002.jpg")) + 512 + 5000));
    const hash = await runCli(["hash", cut]);
    expect(hash.code).toBe(0);
    expect(hash.stderr).toBe("paracap hash: 2 samples, 0 without a decodable image; skipped: 1 truncated_tar\n");
    const dedup = await runCli(["dedup-images", cut]);
    expect(dedup.code).toBe(0);
    expect(dedup.stderr).toMatch(/^paracap dedup-images: 2 samples, .*; skipped: 1 truncated_tar\n$/);
  });
});

describe("a .parquet cut short or that is not one", () => {
  it("hash and dedup-images count it in their summaries and go on with the next input", async () => {
    const dir = tempDir();
    const whole = readFileSync(buildResultsParquet(join(dir, "00000.parquet"), true));
    const cut = join(dir, "cut.parquet");
    writeFileSync(cut, whole.subarray(0, whole.length >> 1));
    const bad = join(dir, "results.parquet");
    writeFileSync(bad, "this is not a parquet file\n");
    const hash = await runCli(["hash", cut, bad, PHOTO.original]);
    expect(hash.code, hash.stderr).toBe(0);
    expect(hash.stderr).toBe("paracap hash: 1 sample, 0 without a decodable image; skipped: 2 damaged_parquet\n");
    const dedup = await runCli(["dedup-images", cut, bad, PHOTO.original]);
    expect(dedup.code, dedup.stderr).toBe(0);
    expect(dedup.stderr).toMatch(/^paracap dedup-images: 1 samples, .*; skipped: 2 damaged_parquet\n$/);
  });
});

describe("dedup-images --thesis-filters", () => {
  it("judges an image by its header before decoding: a 7000 × 7000 PNG whose body is no image is outside the bounds, not undecodable", async () => {
    const broken = join(tempDir(), "huge.png");
    writeFileSync(broken, pngWithBrokenBody(7000, 7000));
    const inputs = [PHOTO.original, PHOTO.lowQualityJpeg, broken];
    const filtered = await runCli(["dedup-images", "--thesis-filters", ...inputs]);
    expect(filtered.code, filtered.stderr).toBe(0);
    expect(filtered.stderr).toBe("paracap dedup-images: 3 samples, 2 images hashed (0 undecodable, 1 outside the thesis bounds); 1 groups of 2 images by phash ≤ 8, 0 chains split (diameter > 16)\n");
    // decoded (no bounds), it is corrupt; the photos' group is the same either way
    const plain = await runCli(["dedup-images", ...inputs]);
    expect(plain.stderr).toMatch(/^paracap dedup-images: 3 samples, 2 images hashed \(1 undecodable\);/);
    expect(filtered.stdout).toBe(plain.stdout);
    expect(jsonl(filtered.stdout)[0]!.members.map((m) => m.key)).toEqual(["highQuality", "lowQuality"]);
  });
});
