/**
 * Crawls compressed otherwise than per-record gzip: `.warc.zst` (the WARC zstd profile: a frame per record,
 * with a dictionary in a skippable frame at the start, as ArchiveTeam writes them), `.warc.bz2` and `.warc.xz`.
 * Each is read whole through its decoder and gives the plain WARC's documents; they were read as a broken
 * MediaWiki dump ("malformed XML … is this a MediaWiki XML export?"). Built here from the pywb WARC with the
 * real compressors.
 */
import { execFileSync } from "node:child_process";
import { createReadStream, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Counters } from "../../../shared/core/counters.ts";
import { ParacapConfig } from "../../../shared/core/config.ts";
import type { ByteSource } from "../../../shared/io/byte-source.ts";
import { BUILTIN_SOURCES } from "../../../shared/sources/registry.ts";
import type { ShardSpec } from "../../../shared/sources/shard-spec.ts";
import { warcSource } from "../../../shared/sources/warc/warc-source.ts";
import { LOCAL_VIEW } from "../../../shared/runner/local-shards.ts";
import { removeTempDirs, tempDir } from "../../runner/helpers.ts";
import { inProcessCli } from "../../support/in-process-cli.ts";

const PYWB = new URL("../../../../shared/data/warc/pywb-iana.warc.gz", import.meta.url).pathname;
const config = ParacapConfig.parse({});

afterAll(removeTempDirs);

const fileBytes = (path: string): ByteSource => ({ label: path, read: (start = 0, end?: number) => createReadStream(path, { start, end: end === undefined ? undefined : end - 1 }) as AsyncIterable<Buffer> });
const shard = (path: string): ShardSpec => ({ id: "s", uri: path, source: "warc", kind: "current", start: null, end: null, fragment: false });
const compress = (program: string, args: string[], input: Buffer) => execFileSync(program, args, { input, maxBuffer: 1 << 28 });

/** A file's documents (URI, record id, body size) and the reader's counters. */
async function read(path: string): Promise<{ docs: string[]; counters: Record<string, number> }> {
  const counters = new Counters();
  const docs: string[] = [];
  for await (const d of warcSource.documents(shard(path), fileBytes(path), config, counters)) docs.push(`${d.uri} ${d.id} ${d.body.length}`);
  return { docs, counters: counters.toJSON() };
}

let dir: string;
let plain: string;
let warc: Buffer;

beforeAll(() => {
  dir = tempDir("paracap-compressed-crawl-");
  warc = gunzipSync(readFileSync(PYWB));
  plain = join(dir, "pywb-iana.warc");
  writeFileSync(plain, warc);
});

describe("a crawl compressed whole", () => {
  it("as .warc.zst, .warc.bz2 and .warc.xz gives the plain WARC's documents and counts, read as one shard", async () => {
    const expected = await read(plain);
    expect(expected.docs.length).toBeGreaterThan(10);
    for (const [name, bytes] of [
      ["pywb-iana.warc.zst", compress("zstd", ["-q", "-c"], warc)],
      ["pywb-iana.warc.bz2", compress("bzip2", ["-c"], warc)],
      ["pywb-iana.warc.xz", compress("xz", ["-c"], warc)],
    ] as const) {
      const path = join(dir, name);
      writeFileSync(path, bytes);
      expect(BUILTIN_SOURCES.detect(name, bytes.subarray(0, 4096))?.name).toBe("warc");
      expect(await warcSource.planRanges!({ name: path, size: bytes.length }, 1024, LOCAL_VIEW)).toBeNull();
      expect(await read(path)).toEqual(expected);
    }
  });

  it("a zstd crawl with its dictionary in a skippable frame (plain or itself compressed), a frame per record", async () => {
    const expected = await read(plain);
    const text = warc.toString("latin1");
    const starts = [...text.matchAll(/WARC\/1\.0\r\n/g)].map((m) => m.index!);
    const records = starts.map((s, i) => warc.subarray(s, starts[i + 1] ?? warc.length));
    expect(Buffer.concat(records).equals(warc)).toBe(true);
    // a raw-content dictionary: frames made with it do not decode without it
    const dictionary = warc.subarray(0, 4096);
    const dictPath = join(dir, "dictionary");
    writeFileSync(dictPath, dictionary);
    // a frame per record as the profile writes, for the first records; the rest in a few frames (a zstd start per record costs the suite time)
    const groups = [...records.slice(0, 8), ...[0, 1, 2, 3].map((g) => Buffer.concat(records.slice(8 + g * 100, g === 3 ? undefined : 8 + (g + 1) * 100)))];
    expect(Buffer.concat(groups).length).toBe(warc.length);
    const frames = Buffer.concat(groups.map((r) => compress("zstd", ["-q", "-c", "-D", dictPath], r)));
    const frame = (payload: Buffer) => {
      const h = Buffer.alloc(8);
      h.writeUInt32LE(0x184d2a5d, 0);
      h.writeUInt32LE(payload.length, 4);
      return Buffer.concat([h, payload]);
    };
    for (const [name, payload] of [
      ["archiveteam.warc.zst", dictionary],
      ["archiveteam-zdict.warc.zst", compress("zstd", ["-q", "-c"], dictionary)],
    ] as const) {
      const path = join(dir, name);
      writeFileSync(path, Buffer.concat([frame(payload), frames]));
      expect(await read(path)).toEqual(expected);
    }
    // without the dictionary the frames are not read: the file is damaged input, not silently empty
    const bare = join(dir, "no-dictionary.warc.zst");
    writeFileSync(bare, frames);
    await expect(read(bare)).rejects.toThrow(/zstd/);
  });

  it("a .warc.zst cut short keeps the records before the cut and ends in a damage error", async () => {
    const path = join(dir, "cut.warc.zst");
    const whole = compress("zstd", ["-q", "-c"], warc);
    writeFileSync(path, whole.subarray(0, Math.floor(whole.length / 2)));
    const counters = new Counters();
    const docs: string[] = [];
    await expect(
      (async () => {
        for await (const d of warcSource.documents(shard(path), fileBytes(path), config, counters)) docs.push(d.uri);
      })(),
    ).rejects.toThrow(/cut\.warc\.zst/);
    expect(docs.length).toBeGreaterThan(0);
  });

  it("`paracap extract` reads them as a run does (it read their compressed bytes as WARC records: nothing)", async () => {
    const plainOut = await inProcessCli(["extract", plain]);
    expect(plainOut.stdout.length).toBeGreaterThan(100);
    const path = join(dir, "extract.warc.bz2");
    writeFileSync(path, compress("bzip2", ["-c"], warc));
    const got = await inProcessCli(["extract", path]);
    expect(got.code).toBe(0);
    expect(got.stdout).toBe(plainOut.stdout);
    expect(got.stderr).toBe(plainOut.stderr);
  });

  it("without a zstd program (a cloud function has none) a .warc.zst is decoded in-process; one with a dictionary says to install zstd", async () => {
    const expected = await read(plain);
    const path = join(dir, "no-program.warc.zst");
    writeFileSync(path, compress("zstd", ["-q", "-c"], warc));
    const dictionary = Buffer.alloc(8);
    dictionary.writeUInt32LE(0x184d2a5d, 0);
    dictionary.writeUInt32LE(4096, 4);
    const withDict = join(dir, "dict-no-program.warc.zst");
    writeFileSync(withDict, Buffer.concat([dictionary, warc.subarray(0, 4096), compress("zstd", ["-q", "-c"], warc)]));
    const saved = process.env.PATH;
    process.env.PATH = "";
    try {
      expect(await read(path)).toEqual(expected);
      await expect(read(withDict)).rejects.toThrow(/zstd-compressed input needs zstd on PATH/);
    } finally {
      process.env.PATH = saved;
    }
  });
});
