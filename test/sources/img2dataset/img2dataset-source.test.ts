/**
 * A webdataset tar cut short, read by a run: the samples before the cut are used and the shard is
 * reported damaged (shards.corrupt, complete: false), as a truncated dump or WARC is; a whole tar is
 * a whole read.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ParacapConfigInput } from "../../../shared/core/config.ts";
import { readStats, removeTempDirs, run, runCli, tempDir } from "../../runner/helpers.ts";
import { buildFilesLayout, buildTar } from "../../pixels/img2dataset-fixture.ts";
import { execFileSync } from "node:child_process";
import { BUILTIN_SOURCES } from "../../../shared/sources/registry.ts";

afterAll(removeTempDirs);

const FAST: ParacapConfigInput = { tiers: ["gold", "silver"], scoring: { scorers: ["syntactic"] } };

describe("img2dataset tars in a run", () => {
  it("a tar cut inside its third sample: two samples used, the shard damaged, the run incomplete", async () => {
    const dir = tempDir();
    const whole = await buildTar(join(dir, "00000.tar"));
    const bytes = readFileSync(whole);
    const cut = join(dir, "cut.tar");
    writeFileSync(cut, bytes.subarray(0, bytes.indexOf(Buffer.from("000000002.jpg")) + 512 + 5000));
    const out = join(dir, "out");
    await run(out, [{ path: cut, kind: "current" }], FAST, { workers: 1 });
    const stats = readStats(out);
    expect(stats.extraction["pixels.samples"]).toBe(2);
    expect(stats.extraction["pixels.skipped.truncated_tar"]).toBe(1);
    expect(stats.shards.corrupt).toEqual([{ shard: expect.any(String), file: cut, offset: null, error: `${cut}: the tar is cut short: the samples after its last whole entry are lost, the rest was read` }]);
    expect(stats.complete).toBe(false);

    const wholeOut = join(dir, "whole-out");
    await run(wholeOut, [{ path: whole, kind: "current" }], FAST, { workers: 1 });
    const w = readStats(wholeOut);
    expect(w.shards.corrupt).toEqual([]);
    expect(w.complete).toBe(true);
  });
});

describe("a .tar that is not one", () => {
  it("the run reads nothing and says the file is not a tar (not that it was cut short)", async () => {
    const dir = tempDir();
    const fake = join(dir, "00000.tar");
    writeFileSync(fake, "hello, this is not a tar\n");
    const r = await runCli(["run", "--input", fake, "--out", join(dir, "out"), "--quiet"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`paracap run: no samples read from the input (skipped: 1 truncated_tar): ${fake}: no whole tar entry could be read: not a tar, or damaged from its start\n`);
  });

  it("a tar made by tar(1) of a folder (first entries `./`, `00000/`) is read as a webdataset shard, not as MediaWiki XML", () => {
    const dir = tempDir();
    const layout = buildFilesLayout(join(dir, "layout"));
    const dot = join(dir, "dot.tar");
    const shard = join(dir, "shard.tar");
    execFileSync("tar", ["-cf", dot, "-C", layout, "."]);
    execFileSync("tar", ["-cf", shard, "-C", layout, "00000"]);
    for (const path of [dot, shard]) {
      const head = readFileSync(path).subarray(0, 4096);
      expect(BUILTIN_SOURCES.detect("x.tar", head)?.name, path).toBe("img2dataset");
    }
    // a tar of something else is not claimed
    const other = join(dir, "other.tar");
    writeFileSync(join(dir, "notes.xml"), "<mediawiki/>");
    execFileSync("tar", ["-cf", other, "-C", dir, "notes.xml"]);
    expect(BUILTIN_SOURCES.detect("other.tar", readFileSync(other).subarray(0, 4096))?.name).not.toBe("img2dataset");
  });
});
