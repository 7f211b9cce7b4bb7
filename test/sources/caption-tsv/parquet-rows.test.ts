/**
 * Parquet caption lists as pyarrow writes them: the same 200 real Conceptual Captions lines in every
 * codec (test/fixtures/data/conceptual-captions/make-parquet.py), four row groups each. Every codec
 * gives the rows of the TSV lines under their row indices; a damaged row group costs its own rows,
 * counted; a file of several row groups is cut into shards between them and reads as one shard does.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parquetMetadata } from "hyparquet";
import { parquetWriteBuffer } from "hyparquet-writer";
import { afterAll, describe, expect, it } from "vitest";
import { ParacapConfig } from "../../../shared/core/config.ts";
import { Counters } from "../../../shared/core/counters.ts";
import { fileBytes } from "../../../shared/io/file-bytes.ts";
import { LOCAL_VIEW, shardsOf } from "../../../shared/runner/local-shards.ts";
import { captionTsvSource, rowGroupRanges } from "../../../shared/sources/caption-tsv/caption-tsv-source.ts";
import { rowGroupSpans } from "../../../shared/sources/caption-tsv/parquet-rows.ts";
import type { ByteRange } from "../../../shared/sources/source.ts";
import { removeTempDirs, tempDir } from "../../runner/helpers.ts";

afterAll(removeTempDirs);

const DIR = join(import.meta.dirname, "../../fixtures/data/conceptual-captions");
const fixture = (codec: string) => join(DIR, `gcc-validation-lines00001-00200.${codec}.parquet`);
/** what pyarrow writes (its "lz4" is LZ4_RAW) */
const CODECS = { none: "UNCOMPRESSED", snappy: "SNAPPY", gzip: "GZIP", brotli: "BROTLI", zstd: "ZSTD", lz4: "LZ4_RAW" } as const;
const config = ParacapConfig.parse({});
/** the 200 lines the fixtures hold, as `row url caption` */
const LINES = readFileSync(join(DIR, "gcc-validation-lines00001-00500.tsv"), "utf8")
  .split("\n")
  .slice(0, 200)
  .map((l, i) => `${i} ${l.split("\t")[1]} ${l.split("\t")[0]}`);

const arrayBuffer = (b: Buffer) => b.buffer.slice(b.byteOffset, b.byteOffset + b.length) as ArrayBuffer;
const metadataOf = (path: string) => parquetMetadata(arrayBuffer(readFileSync(path)));

/** The file as a run reads it: planned in shards of `shardBytes`, each shard's documents, the counters. */
async function read(path: string, shardBytes = 1 << 30) {
  const counters = new Counters();
  const ranges = await captionTsvSource.planRanges!({ name: path, size: statSync(path).size }, shardBytes, LOCAL_VIEW);
  if (ranges !== null && "wait" in ranges) throw new Error(ranges.wait);
  const shards = shardsOf(path, "caption-tsv", "current", ranges, 0);
  const rows: string[] = [];
  for (const shard of shards) for await (const doc of captionTsvSource.documents(shard, fileBytes(path), config, counters)) rows.push(`${doc.offset} ${doc.url} ${doc.caption}`);
  return { rows, counters: counters.toJSON(), samples: counters.samples.toJSON(), shards };
}

function write(name: string, data: Buffer): string {
  const path = join(tempDir(), name);
  writeFileSync(path, data);
  return path;
}

describe("parquet codecs", () => {
  it("every codec pyarrow writes (uncompressed, snappy, gzip, brotli, zstd, lz4) gives the TSV's 200 rows in order", async () => {
    for (const [name, codec] of Object.entries(CODECS)) {
      const meta = metadataOf(fixture(name));
      expect(meta.row_groups.length, name).toBe(4);
      expect(new Set(meta.row_groups.flatMap((g) => g.columns.map((c) => c.meta_data?.codec))), name).toEqual(new Set([codec]));
      const got = await read(fixture(name));
      expect(got.rows, name).toEqual(LINES);
      expect(got.counters, name).toEqual({ "tsv.lines": 200, "tsv.lines.emitted": 200 });
    }
  });

  it("LZ4 in Hadoop's framing (parquet-mr's; pyarrow cannot write it) is read too", async () => {
    // a valid LZ4 block of literals only, in Hadoop's frame: uncompressed and block length, big-endian
    const hadoopLz4 = (b: Uint8Array) => {
      const lengths: number[] = [];
      if (b.length >= 15) {
        let rest = b.length - 15;
        for (; rest >= 255; rest -= 255) lengths.push(255);
        lengths.push(rest);
      }
      const block = Buffer.concat([Buffer.from([Math.min(b.length, 15) << 4, ...lengths]), b]);
      const head = Buffer.alloc(8);
      head.writeUInt32BE(b.length, 0);
      head.writeUInt32BE(block.length, 4);
      return new Uint8Array(Buffer.concat([head, block]));
    };
    const rows = LINES.slice(0, 60).map((l) => l.split(" "));
    const data = Buffer.from(parquetWriteBuffer({ columnData: [{ name: "url", data: rows.map((r) => r[1]!), type: "STRING" }, { name: "caption", data: rows.map((r) => r.slice(2).join(" ")), type: "STRING" }], codec: "LZ4", compressors: { LZ4: hadoopLz4 }, rowGroupSize: 25 }));
    const path = write("hadoop-lz4.parquet", data);
    expect(metadataOf(path).row_groups[0]!.columns[0]!.meta_data?.codec).toBe("LZ4");
    expect((await read(path)).rows).toEqual(LINES.slice(0, 60));
  });

  it("a column in a codec paracap does not decode (LZO) is a one-line error at planning, naming the codecs it does", async () => {
    const lzo = Buffer.from(parquetWriteBuffer({ columnData: [{ name: "url", data: ["https://x.org/a.jpg"], type: "STRING" }, { name: "caption", data: ["a"], type: "STRING" }], codec: "LZO", compressors: { LZO: (b: Uint8Array) => b } }));
    const err = await read(write("lzo.parquet", lzo)).then(() => null, (e: Error) => e);
    expect(err?.name).toBe("UserError");
    expect(err!.message).toMatch(/lzo\.parquet: not a caption list paracap can read: column url is compressed with LZO, which paracap does not decode \(UNCOMPRESSED, SNAPPY, GZIP, BROTLI, ZSTD, LZ4, LZ4_RAW it does\)/);
    expect(err!.message).not.toContain("\n");
  });
});

/** The zstd fixture with the zstd frames of row group `group`'s caption column made unreadable (their magic number zeroed). */
function damagedZstd(group: number): string {
  const bytes = readFileSync(fixture("zstd"));
  const chunk = metadataOf(fixture("zstd")).row_groups[group]!.columns[1]!.meta_data!;
  const from = Number(chunk.dictionary_page_offset || chunk.data_page_offset);
  const to = from + Number(chunk.total_compressed_size);
  const magic = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);
  let frames = 0;
  for (let at = bytes.indexOf(magic, from); at >= 0 && at < to; at = bytes.indexOf(magic, at + 4), frames++) bytes.fill(0, at, at + 4);
  expect(frames).toBeGreaterThan(0);
  return write("damaged-zstd.parquet", bytes);
}

describe("a damaged row group", () => {
  it("a zstd row group that does not decode: its 50 rows are counted damaged_parquet drops, the other groups' 150 read under their indices", async () => {
    const got = await read(damagedZstd(1));
    expect(got.rows).toEqual([...LINES.slice(0, 50), ...LINES.slice(100)]);
    expect(got.counters).toEqual({ "tsv.lines": 200, "tsv.lines.emitted": 150, "tsv.skipped.damaged_parquet": 50 });
    // where, for the user: rows of the second group (50 to 99)
    expect(got.samples["tsv.skipped.damaged_parquet"]).toEqual(expect.arrayContaining([expect.stringMatching(/^damaged-zstd\.parquet row [5-9]\d$/)]));
    expect(got.samples["tsv.skipped.damaged_parquet"]!.every((s) => /^damaged-zstd\.parquet row [5-9]\d$/.test(s))).toBe(true);
  });
});

describe("a parquet file is cut into shards between its row groups", () => {
  it("in every codec: whole row groups of about the shard size, every row read once under its index, the counters of one shard", async () => {
    for (const name of Object.keys(CODECS)) {
      const path = fixture(name);
      const whole = await read(path);
      expect(whole.shards.map((s) => [s.start, s.end]), name).toEqual([[0, statSync(path).size]]);
      for (const shardBytes of [1, 8_000]) {
        const split = await read(path, shardBytes);
        expect(split.shards.length, `${name} in ${shardBytes}-byte shards`).toBeGreaterThan(1);
        expect(split.rows, `${name} in ${shardBytes}-byte shards`).toEqual(whole.rows);
        expect(split.counters, name).toEqual(whole.counters);
      }
      // one shard per row group at the smallest size, each starting where its group does
      const starts = metadataOf(path).row_groups.map((g) => Math.min(...g.columns.map((c) => Number(c.meta_data!.dictionary_page_offset || c.meta_data!.data_page_offset))));
      expect((await read(path, 1)).shards.map((s) => s.start), name).toEqual([0, ...starts.slice(1)]);
    }
  });

  it("a damaged row group costs the same rows, counted the same, in whichever shard reads it", async () => {
    const path = damagedZstd(2);
    const whole = await read(path);
    expect(whole.counters["tsv.skipped.damaged_parquet"]).toBe(50);
    const split = await read(path, 1);
    expect(split.shards).toHaveLength(4);
    expect(split.rows).toEqual(whole.rows);
    expect(split.counters).toEqual(whole.counters);
    expect(split.samples).toEqual(whole.samples);
  });

  it("a footer whose row counts are not to be believed is not cut (a row's index would depend on the groups before it): one shard", async () => {
    const path = fixture("snappy");
    const meta = metadataOf(path);
    const size = statSync(path).size;
    expect(rowGroupSpans(meta, size)).toHaveLength(4);
    const overcounted = { ...meta, row_groups: meta.row_groups.map((g, i) => (i === 1 ? { ...g, num_rows: 10n ** 12n } : g)) };
    expect(rowGroupSpans(overcounted, size)).toBeNull();
    const shuffled = { ...meta, row_groups: [meta.row_groups[1]!, meta.row_groups[0]!, ...meta.row_groups.slice(2)] };
    expect(rowGroupSpans(shuffled, size)).toBeNull();
    expect(rowGroupRanges(null, size, 1)).toEqual([{ start: 0, end: size, fragment: false }]);
  });

  it("a file whose footer cannot be read stays one shard and reports the one-line layout error", async () => {
    const bytes = readFileSync(fixture("zstd"));
    const path = write("cut.parquet", bytes.subarray(0, bytes.length - 50));
    const refused = await read(path, 1).then(() => null, (e: Error) => e);
    expect(refused?.message).toMatch(/^.*cut\.parquet: not a caption list paracap can read: not a parquet file, or cut short[^\n]*$/);
    // a planner that cannot read ranges plans the whole file; its shard reports the same line as damage
    const ranges = await captionTsvSource.planRanges!({ name: path, size: bytes.length - 50 }, 1, { exists: LOCAL_VIEW.exists, withLocalCopy: LOCAL_VIEW.withLocalCopy });
    expect(ranges).toEqual([{ start: 0, end: bytes.length - 50, fragment: false }]);
    const shard = shardsOf(path, "caption-tsv", "current", ranges as ByteRange[], 0)[0]!;
    const docs = captionTsvSource.documents(shard, fileBytes(path), config, new Counters());
    await expect((async () => {
      for await (const _ of docs);
    })()).rejects.toMatchObject({ name: "DumpError", message: expect.stringMatching(/cut\.parquet: not a caption list paracap can read: not a parquet file, or cut short/) });
  });
});
