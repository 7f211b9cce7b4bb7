/**
 * Awkward folders and tars: two image files under one key (`x.jpg` beside `x.png`, or consecutive in
 * a tar) give one sample per key, as img2dataset writes them, and the other image is counted, never
 * silently lost; an image file that cannot be read (a dangling symlink) is a sample without an image,
 * counted, instead of ending the read with an exception.
 */
import { copyFileSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import tar from "tar-stream";
import { afterAll, describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { pixelSourceSkippedCounter } from "../../shared/core/counter-names.ts";
import { readPixelInputs } from "../../shared/pixels/img2dataset.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";
import { OTHERS, PHOTO } from "./images.ts";

afterAll(removeTempDirs);

async function keys(path: string): Promise<{ keys: string[]; counters: Counters }> {
  const counters = new Counters();
  const out: string[] = [];
  for await (const s of readPixelInputs([path], { counters })) out.push(s.key);
  return { keys: out, counters };
}

describe("two images under one key", () => {
  it("a folder: x.jpg and x.png give one sample and one same_key skip", async () => {
    const dir = tempDir();
    copyFileSync(PHOTO.original, join(dir, "x.jpg"));
    copyFileSync(OTHERS.cat, join(dir, "x.png"));
    copyFileSync(OTHERS.differentPhoto, join(dir, "y.jpg"));
    const { keys: got, counters } = await keys(dir);
    expect(got).toEqual(["x", "y"]);
    expect(counters.get(pixelSourceSkippedCounter("same_key"))).toBe(1);
  });

  it("a tar: consecutive x.jpg and x.png entries likewise", async () => {
    const pack = tar.pack();
    const chunks: Buffer[] = [];
    pack.on("data", (c: unknown) => chunks.push(c as Buffer));
    const done = new Promise<void>((resolve) => pack.on("end", () => resolve()));
    pack.entry({ name: "x.jpg" }, readFileSync(PHOTO.original));
    pack.entry({ name: "x.png" }, readFileSync(OTHERS.cat));
    pack.entry({ name: "x.txt" }, "a caption");
    pack.entry({ name: "y.jpg" }, readFileSync(OTHERS.differentPhoto));
    pack.finalize();
    await done;
    const path = join(tempDir(), "00000.tar");
    writeFileSync(path, Buffer.concat(chunks));
    const { keys: got, counters } = await keys(path);
    expect(got).toEqual(["x", "y"]);
    expect(counters.get(pixelSourceSkippedCounter("same_key"))).toBe(1);
  });
});

describe("an image file that cannot be read", () => {
  it("a dangling symlink in a folder: a sample without bytes, counted unreadable_file; the other samples read", async () => {
    const dir = tempDir();
    symlinkSync(join(dir, "no-such-target.jpg"), join(dir, "broken.jpg"));
    copyFileSync(OTHERS.differentPhoto, join(dir, "ok.jpg"));
    const counters = new Counters();
    const samples = [];
    for await (const s of readPixelInputs([dir], { counters })) samples.push(s);
    expect(samples.map((s) => [s.key, s.bytes === null])).toEqual([["broken", true], ["ok", false]]);
    expect(counters.get(pixelSourceSkippedCounter("unreadable_file"))).toBe(1);
  });
});

describe("files that are no sample", () => {
  it("a caption or sidecar without its image, and files of other kinds, are counted; img2dataset's bookkeeping is not", async () => {
    const dir = tempDir();
    copyFileSync(PHOTO.original, join(dir, "000000000.jpg"));
    writeFileSync(join(dir, "000000000.txt"), "A quiet road in autumn.");
    // a failed download whose caption and sidecar were written anyway
    writeFileSync(join(dir, "000000001.txt"), "A road that did not download.");
    writeFileSync(join(dir, "000000001.json"), JSON.stringify({ key: "000000001", status: "failed_to_download" }));
    writeFileSync(join(dir, "notes.md"), "# notes");
    writeFileSync(join(dir, "page.html"), "<html></html>");
    writeFileSync(join(dir, "00000_stats.json"), JSON.stringify({ count: 2 }));
    const { keys: got, counters } = await keys(dir);
    expect(got).toEqual(["000000000"]);
    expect(counters.get(pixelSourceSkippedCounter("no_image_file"))).toBe(1);
    expect(counters.get(pixelSourceSkippedCounter("other_file"))).toBe(2);
  });
});
