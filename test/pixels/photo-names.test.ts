/**
 * `paracap hash` on photos as people keep them, not as img2dataset writes them: JPEGs saved as `.jfif`
 * or `.jpe` (Windows and older browsers), names with dots ("2019.06.01 beach.jpg") and upper-case
 * extensions inside a tar (its origin must name the member as it is in the tar), and a file that starts
 * as a zip but has no central directory (one line, not a sample "unsupported"; zips that are whole are
 * read: zip-archives.test.ts). Real jimagehash images.
 */
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import tar from "tar-stream";
import { afterAll, describe, expect, it } from "vitest";
import { inProcessCli } from "../support/in-process-cli.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const J = new URL("../../../shared/data/images/jimagehash/", import.meta.url).pathname;
const lines = (stdout: string) => stdout.trimEnd().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>);

async function packTar(path: string, files: [string, string][]): Promise<void> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on("data", (c: unknown) => chunks.push(c as Buffer));
  const done = new Promise<void>((resolve) => pack.on("end", () => resolve()));
  for (const [name, src] of files) pack.entry({ name }, readFileSync(src));
  pack.finalize();
  await done;
  writeFileSync(path, Buffer.concat(chunks));
}

describe("photo folders and archives as people have them", () => {
  it("a folder's .jfif and .jpe JPEGs are hashed, as the same bytes named .jpg are", async () => {
    const dir = tempDir("paracap-photos-");
    copyFileSync(join(J, "ballon.jpg"), join(dir, "ballon.jfif"));
    copyFileSync(join(J, "lowQuality.jpg"), join(dir, "low.jpe"));
    const r = await inProcessCli(["hash", dir]);
    expect(r.code, r.stderr).toBe(0);
    const got = lines(r.stdout);
    expect(got.map((l) => l.key).sort()).toEqual(["ballon", "low"]);
    expect(got.every((l) => l.format === "jpeg")).toBe(true);
    expect(r.stderr).not.toContain("other_file");
    const direct = lines((await inProcessCli(["hash", join(J, "ballon.jpg")])).stdout)[0]!;
    expect(got.find((l) => l.key === "ballon")!.md5).toBe(direct.md5);
  });

  it("a tar of photos: dotted names and upper-case extensions are images, and the origin names the member", async () => {
    const dir = tempDir("paracap-photos-");
    const path = join(dir, "holiday.tar");
    await packTar(path, [
      ["holiday/2019.06.01 beach.jpg", join(J, "ballon.jpg")],
      ["holiday/IMG_0001.JPG", join(J, "highQuality.jpg")],
      ["holiday/cat.v2.png", join(J, "catCustom.png")],
    ]);
    const r = await inProcessCli(["hash", path]);
    expect(r.code, r.stderr).toBe(0);
    const got = lines(r.stdout);
    expect(got.map((l) => l.origin)).toEqual([`${path}:holiday/2019.06.01 beach.jpg`, `${path}:holiday/IMG_0001.JPG`, `${path}:holiday/cat.v2.png`]);
    expect(got.map((l) => l.key)).toEqual(["holiday/2019.06.01 beach", "holiday/IMG_0001", "holiday/cat.v2"]);
    expect(got.every((l) => l.error === undefined)).toBe(true);
    expect(r.stderr).toContain("3 samples, 0 without a decodable image\n");
  });

  it("a zip archive without its central directory is one line saying so (hash and dedup-images)", async () => {
    const dir = tempDir("paracap-photos-");
    const zip = join(dir, "photos.zip");
    // a real zip's first bytes: a local file header ("PK\x03\x04"); no central directory at its end
    writeFileSync(zip, Buffer.concat([Buffer.from("PK\x03\x04", "latin1"), readFileSync(join(J, "ballon.jpg"))]));
    for (const command of ["hash", "dedup-images"]) {
      const r = await inProcessCli([command, zip]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/photos\.zip: not a readable zip archive \(.*\): a zip lists its members at its end/);
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    }
  });
});
