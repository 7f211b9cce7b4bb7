/**
 * `paracap hash` and `paracap dedup-images` spawned as a user would, on img2dataset outputs built
 * from the real test images (test/pixels/img2dataset-fixture.ts).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, removeTempDirs, tempDir } from "../runner/helpers.ts";
import { buildFilesLayout, buildTar } from "../pixels/img2dataset-fixture.ts";
import { PHOTO } from "../pixels/images.ts";

afterAll(removeTempDirs);

const jsonl = (text: string) => text.split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l) as Record<string, unknown>);

let folder: string;
let tarPath: string;
beforeAll(async () => {
  folder = buildFilesLayout(tempDir());
  tarPath = await buildTar(join(tempDir(), "00000.tar"));
});

describe("paracap hash", () => {
  it("prints every hash of every image as JSONL, and the reason for bytes that do not decode", async () => {
    const broken = join(tempDir(), "broken.jpg");
    writeFileSync(broken, "this is not a JPEG");
    const r = await runCli(["hash", PHOTO.original, folder, broken]);
    expect(r.code).toBe(0);
    const lines = jsonl(r.stdout);
    expect(lines.map((l) => l.key)).toEqual(["highQuality", "000000000", "000000001", "000000002", "000000003", "000000004", "000000006", "broken"]);
    const first = lines[0]!;
    expect(Object.keys(first)).toEqual(["key", "origin", "url", "caption", "sha256", "format", "width", "height", "bytes", "transparentPixels", "md5", "ahash", "dhash", "phash", "rahash", "rphash"]);
    expect(first).toMatchObject({ format: "jpeg", width: 500, height: 333, bytes: 67685, transparentPixels: 0 });
    for (const m of ["ahash", "dhash", "phash", "rahash", "rphash"]) expect(first[m]).toMatch(/^[0-9a-f]{16}$/);
    // the same bytes in the img2dataset folder: the same hashes, with the sidecar's url and caption
    expect({ ...lines[1], key: first.key, origin: first.origin, url: null, caption: null }).toEqual(first);
    expect(lines[1]).toMatchObject({ url: "https://example.org/a/road.jpg", caption: "A quiet road runs through a forest in autumn." });
    expect(lines[7]).toMatchObject({ key: "broken", error: "unsupported" });
    expect(r.stderr).toBe("paracap hash: 8 samples, 1 without a decodable image\n");
  });

  it("a missing input is a user error", async () => {
    const r = await runCli(["hash", "/no/such/folder"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no such file or folder: \/no\/such\/folder/);
  });
});

describe("paracap dedup-images", () => {
  it("groups the variants of the photo from a folder and a tar, keeps the other images apart, with distances", async () => {
    for (const input of [folder, tarPath]) {
      const r = await runCli(["dedup-images", input]);
      expect(r.code, r.stderr).toBe(0);
      const groups = jsonl(r.stdout);
      expect(groups).toHaveLength(1);
      const g = groups[0] as { mode: string; threshold: number; centre: string; diameter: number; members: { key: string; distance: number; url: string; caption: string }[] };
      expect(g).toMatchObject({ group: 0, mode: "phash", threshold: 8 });
      expect(g.members.map((m) => m.key)).toEqual(["000000000", "000000001", "000000002", "000000003"]);
      expect(g.members.every((m) => m.distance <= 8)).toBe(true);
      expect(g.diameter).toBeLessThanOrEqual(16);
      expect(g.members[1]).toMatchObject({ url: "https://cdn.example.org/img/92731.jpg", caption: "The forest road is covered with fallen leaves." });
      expect(r.stderr).toMatch(/6 samples, 6 images hashed \(0 undecodable\); 1 groups of 4 images by phash ≤ 8/);
    }
  });

  it("md5 mode groups only identical pixels: none here; a tight threshold splits off the watermark", async () => {
    const md5 = await runCli(["dedup-images", folder, "--mode", "md5"]);
    expect(md5.code).toBe(0);
    expect(md5.stdout).toBe("");
    const tight = await runCli(["dedup-images", folder, "--threshold", "2"]);
    const groups = jsonl(tight.stdout) as { members: { key: string }[] }[];
    expect(groups.map((g) => g.members.map((m) => m.key))).toEqual([["000000000", "000000001"]]);
  });

  it("a bad mode or threshold is a user error", async () => {
    const r = await runCli(["dedup-images", folder, "--mode", "sha1"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--mode must be one of md5, ahash/);
    const t = await runCli(["dedup-images", folder, "--threshold", "-3"]);
    expect(t.code).toBe(2);
  });
});
