/**
 * A rerun over an input changed in place is not a resume: a file's new size, modification time or
 * sampled bytes, or a folder's changed file, stops the rerun with the input named (runner/input-stamps.ts); the same
 * input finds the finished run.
 */
import { copyFileSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { changedInputs, inputStamps } from "../../shared/runner/input-stamps.ts";
import { removeTempDirs, run, SAMPLE_CURRENT, SAMPLE_HISTORY, tempDir } from "./helpers.ts";

afterAll(removeTempDirs);

const FAST = { tiers: ["gold", "silver"] as ("gold" | "silver")[], scoring: { scorers: ["syntactic"] as "syntactic"[] } };

describe("input stamps", () => {
  it("a rerun over the same dump finds the finished run; over the dump rewritten in place, it stops and names it", async () => {
    const dir = tempDir();
    const dump = join(dir, "dump.xml.bz2");
    copyFileSync(SAMPLE_CURRENT, dump);
    const out = join(dir, "out");
    await run(out, [{ path: dump, kind: "current" }], FAST, { workers: 1 });
    expect((await run(out, [{ path: dump, kind: "current" }], FAST, { workers: 1 })).alreadyComplete).toBe(true);
    utimesSync(dump, new Date(), new Date(Date.now() + 60_000));
    await expect(run(out, [{ path: dump, kind: "current" }], FAST, { workers: 1 })).rejects.toThrow(`the input ${dump} changed (size, modification time or content) since the run in ${out} read it`);
    const fresh = await run(out, [{ path: dump, kind: "current" }], FAST, { workers: 1, fresh: true });
    expect(fresh.alreadyComplete).toBeUndefined();
  });

  it("a rewrite keeping size and modification time (cp -p of another version) stops the rerun; a stamp from before content samples compares by size and time", async () => {
    const dir = tempDir();
    const dump = join(dir, "dump.xml.bz2");
    copyFileSync(SAMPLE_CURRENT, dump);
    const out = join(dir, "out");
    await run(out, [{ path: dump, kind: "current" }], FAST, { workers: 1 });
    const before = inputStamps([dump]);
    const { size, atime, mtime } = statSync(dump);
    // another version of the same size put in place with the old times: the history sample's
    // stream first, then the dump's bytes (as many as fit)
    writeFileSync(dump, Buffer.concat([readFileSync(SAMPLE_HISTORY), readFileSync(SAMPLE_CURRENT)]).subarray(0, size));
    utimesSync(dump, atime, mtime);
    expect(statSync(dump).size).toBe(size);
    const after = inputStamps([dump]);
    expect(changedInputs(before, after)).toEqual([dump]);
    await expect(run(out, [{ path: dump, kind: "current" }], FAST, { workers: 1 })).rejects.toThrow(`the input ${dump} changed (size, modification time or content) since the run in ${out} read it`);
    // a manifest written before stamps sampled bytes holds `size:mtime`: equal size and time are the same input
    const legacy = { [dump]: `${size}:${Math.trunc(statSync(dump).mtimeMs)}` };
    expect(changedInputs(legacy, after)).toEqual([]);
    utimesSync(dump, atime, new Date(mtime.getTime() + 60_000));
    expect(changedInputs(legacy, inputStamps([dump]))).toEqual([dump]);
  });

  it("a run whose manifest an earlier version wrote (stamps of size and time) is found finished", async () => {
    const dir = tempDir();
    const dump = join(dir, "dump.xml.bz2");
    copyFileSync(SAMPLE_CURRENT, dump);
    const out = join(dir, "out");
    await run(out, [{ path: dump, kind: "current" }], FAST, { workers: 1 });
    const manifestPath = join(out, ".work", "manifest.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { inputStamps: Record<string, string> };
    expect(manifest.inputStamps[dump]).toMatch(/^\d+:\d+:[0-9a-f]{16}$/);
    manifest.inputStamps[dump] = manifest.inputStamps[dump]!.replace(/:[0-9a-f]{16}$/, "");
    writeFileSync(manifestPath, JSON.stringify(manifest));
    expect((await run(out, [{ path: dump, kind: "current" }], FAST, { workers: 1 })).alreadyComplete).toBe(true);
  });

  it("a folder's stamp follows a file replaced, added or removed anywhere in it", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "f/00000"), { recursive: true });
    writeFileSync(join(dir, "f/00000/a.jpg"), "one");
    writeFileSync(join(dir, "f/00000/b.txt"), "caption");
    const before = inputStamps([join(dir, "f"), join(dir, "missing"), "https://example.org/x.warc.gz"]);
    expect(Object.keys(before)).toEqual([join(dir, "f")]);
    expect(before[join(dir, "f")]).toMatch(/^2 files:[0-9a-f]{16}$/);
    writeFileSync(join(dir, "f/00000/a.jpg"), "two");
    utimesSync(join(dir, "f/00000/a.jpg"), new Date(), new Date(Date.now() + 60_000));
    const replaced = inputStamps([join(dir, "f")]);
    expect(changedInputs(before, replaced)).toEqual([join(dir, "f")]);
    writeFileSync(join(dir, "f/00000/c.jpg"), "three");
    expect(inputStamps([join(dir, "f")])[join(dir, "f")]).toMatch(/^3 files:/);
    // a run from before stamps existed has none to compare
    expect(changedInputs(undefined, replaced)).toEqual([]);
  });
});
