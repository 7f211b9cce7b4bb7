/**
 * Any legal file name can be an input: shard ids are deterministic, path-safe object-name segments
 * (no `..` segment, bounded length) for dots, spaces, unicode and 255-byte names, and a run over such
 * files completes. `release..v2.xml` used to crash the run ("invalid object name").
 */
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isSafeObjectName, LocalStore } from "../../shared/io/local-store.ts";
import { shardId, ShardSpec } from "../../shared/sources/shard-spec.ts";
import { DATA, run, tempDir, removeTempDirs } from "./helpers.ts";

afterAll(removeTempDirs);

const NAMES = [
  "release..v2.xml.bz2",
  "...xml.bz2",
  "..hidden..xml.bz2",
  "a dump with  spaces.xml.bz2",
  "Zürich — 東京 ダンプ.xml.bz2",
  "odd @%#&'!$ name.xml.bz2",
  // 255 bytes, the longest name most file systems allow
  `${"é".repeat(121)}.long.xml.bz2`,
];

describe("shard ids from file names", () => {
  it("are valid, path-safe and deterministic for every legal name", () => {
    expect(Buffer.byteLength(NAMES.at(-1)!)).toBe(255);
    for (const [i, name] of NAMES.entries()) {
      for (const start of [null, 123_456]) {
        const id = shardId(i, `/data/${name}`, start);
        expect(id).toBe(shardId(i, `/data/${name}`, start));
        expect(id.length).toBeLessThanOrEqual(100);
        expect(id).not.toContain("..");
        expect(ShardSpec.shape.id.safeParse(id).success).toBe(true);
        expect(isSafeObjectName(`extract/${id}/_DONE.json`)).toBe(true);
      }
    }
    // ids of plain names are unchanged (resumable across versions)
    expect(shardId(0, "/x/enwiki-2016-pages-articles1-sample.xml.bz2", null)).toBe("s00000-enwiki-2016-pages-articles1-sample.xml.bz2");
    expect(shardId(3, "/x/enwiki-multistream.xml.bz2", 600)).toBe("s00003-enwiki-multistream.xml.bz2@600");
  });

  it("the store refuses only names with a `..`, `.` or empty segment", async () => {
    const store = new LocalStore(tempDir("paracap-names-"));
    for (const bad of ["../x", "a/../../x", "a/./b", "a//b", "/etc/passwd", "..", "a/.."]) {
      expect(isSafeObjectName(bad)).toBe(false);
      await expect(store.writeText(bad, "x")).rejects.toThrow(/invalid object name/);
    }
    await store.writeText("extract/s00000-release..v2.xml/_DONE.json", "{}");
    expect(await store.readText("extract/s00000-release..v2.xml/_DONE.json")).toBe("{}");
  });
});

describe("a run over inputs with unusual names", () => {
  it("completes and reads every shard", async () => {
    const dir = tempDir("paracap-odd-names-");
    const inputs = NAMES.map((name) => {
      const path = join(dir, name);
      copyFileSync(join(DATA, "wikipedia/wikipedia2vec-enwiki-pages-articles-sample.xml.bz2"), path);
      return { path, kind: "current" as const };
    });
    const { stats } = await run(join(dir, "out"), inputs, { tiers: ["gold", "silver"] });
    expect(stats.shards).toMatchObject({ total: NAMES.length, ok: NAMES.length, corrupt: [], missing: [] });
    expect(stats.complete).toBe(true);
    expect(stats.inputs.map((i) => i.uri)).toEqual(inputs.map((i) => i.path));
  });
});
