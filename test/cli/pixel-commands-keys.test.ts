/**
 * `paracap dedup-images` when keys repeat: the same file names in two folders, or one input given
 * more than once. Every sample keeps a distinct key in the groups instead of the index refusing them.
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, removeTempDirs, tempDir } from "../runner/helpers.ts";
import { OTHERS, PHOTO } from "../pixels/images.ts";

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
