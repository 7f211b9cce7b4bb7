/** `paracap run --images` given a single file: a user error naming what it takes, not a damaged shard of another source. */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DATA, removeTempDirs, runCli, tempDir } from "../runner/helpers.ts";
import { PHOTO } from "../pixels/images.ts";

afterAll(removeTempDirs);

const CC = join(DATA, "conceptual-captions/gcc-validation-lines00001-00500.tsv");

describe("paracap run --images <file>", () => {
  it("refuses one image file (exit 2, one line)", async () => {
    const r = await runCli(["run", "--input", CC, "--images", PHOTO.original, "--out", join(tempDir(), "out"), "--quiet"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`paracap run: --images takes a folder, a webdataset .tar or a .zip of images, not a single file: ${PHOTO.original}\n`);
  });
});
