/**
 * Caption lists as researchers have them: real Conceptual Captions lines rewritten into Conceptual
 * 12M's URL-first TSV, TSVs with a header (two columns or LAION's many), CSV, JSON Lines and parquet
 * (LAION's URL/TEXT, COYO's url/text) give the same references as the CC3M layout, however the file
 * is cut into shards; files whose columns cannot be told are refused in one line before any work.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { parquetWriteBuffer } from "hyparquet-writer";
import { afterAll, describe, expect, it } from "vitest";
import { ParacapConfig } from "../../../shared/core/config.ts";
import { Counters } from "../../../shared/core/counters.ts";
import { fileBytes } from "../../../shared/io/file-bytes.ts";
import { LOCAL_VIEW, shardsOf } from "../../../shared/runner/local-shards.ts";
import { captionTsvSource } from "../../../shared/sources/caption-tsv/caption-tsv-source.ts";
import { BUILTIN_SOURCES } from "../../../shared/sources/registry.ts";
import { removeTempDirs, tempDir } from "../../runner/helpers.ts";
import { readList, write } from "./read-list.ts";

afterAll(removeTempDirs);

const CC = join(import.meta.dirname, "../../fixtures/data/conceptual-captions/gcc-validation-lines00001-00500.tsv");
const config = ParacapConfig.parse({});
/** 300 real lines; every 7th caption put in double quotes (as titles are), so CSV must double them */
const records = readFileSync(CC, "utf8")
  .split("\n")
  .slice(0, 300)
  .map((l, i) => {
    const [caption, url] = l.split("\t") as [string, string];
    return { caption: i % 7 === 3 ? `"${caption}"` : caption, url };
  });

const csvField = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
const parquet = (columns: Record<string, unknown[]>, rowGroupSize = 64) =>
  Buffer.from(parquetWriteBuffer({ columnData: Object.entries(columns).map(([name, data]) => ({ name, data, type: typeof data[0] === "number" ? "INT32" : "STRING" })), rowGroupSize }));

const LAYOUTS: Record<string, string | Buffer> = {
  "cc3m.tsv": records.map((r) => `${r.caption}\t${r.url}\n`).join(""),
  "cc12m.tsv": records.map((r) => `${r.url}\t${r.caption}\n`).join(""),
  "header.tsv": "url\tcaption\n" + records.map((r) => `${r.url}\t${r.caption}\n`).join(""),
  "header-caption-first.tsv": "caption\turl\r\n" + records.map((r) => `${r.caption}\t${r.url}\r\n`).join(""),
  "laion.tsv": "SAMPLE_ID\tURL\tTEXT\tHEIGHT\tWIDTH\n" + records.map((r, i) => `${1000 + i}\t${r.url}\t${r.caption}\t480\t640\n`).join(""),
  "hub.csv": "\uFEFFimage_url,caption\r\n" + records.map((r, i) => `${csvField(r.url)},${i % 2 ? `"${r.caption.replace(/"/g, '""')}"` : csvField(r.caption)}\r\n`).join(""),
  "redcaps.jsonl": records.map((r, i) => JSON.stringify({ image_id: `i${i}`, url: r.url, raw_caption: r.caption.toUpperCase(), caption: r.caption }) + "\n").join(""),
  "laion.parquet": parquet({ SAMPLE_ID: records.map((_, i) => 1000 + i), URL: records.map((r) => r.url), TEXT: records.map((r) => r.caption) }),
  "coyo.parquet": parquet({ id: records.map((_, i) => i), url: records.map((r) => r.url), text: records.map((r) => r.caption) }, 1000),
  "no-extension-url-first": records.map((r) => `${r.url}\t${r.caption}\n`).join(""),
};


const read = readList;

describe("caption list layouts", () => {
  it("every layout gives the references of the CC3M layout, named by its columns or by where its URLs are", async () => {
    const cc3m = await read(write("cc3m.tsv", LAYOUTS["cc3m.tsv"]!));
    expect(cc3m.refs).toHaveLength(300);
    expect(cc3m.refs.every((r) => r.startsWith("http"))).toBe(true);
    for (const [name, data] of Object.entries(LAYOUTS)) {
      const got = await read(write(name, data));
      expect(got.source, name).toBe("caption-tsv");
      expect(got.refs, name).toEqual(cc3m.refs);
      expect(got.counters["tsv.lines"], name).toBe(300);
      expect(got.counters["tsv.lines.emitted"], name).toBe(300);
      expect(got.counters["tsv.header"], name).toBe(/header|laion\.tsv|\.csv/.test(name) ? 1 : undefined);
    }
  });

  it("without a telling name, the first bytes say which layout (and XML, compressed data or prose are not caption lists)", () => {
    const [r] = records;
    const detect = (head: string | Buffer) => BUILTIN_SOURCES.detect("download", Buffer.from(head))?.name;
    expect(detect(`${r!.url}\t${r!.caption}\n`)).toBe("caption-tsv");
    expect(detect(`URL\tTEXT\tWIDTH\n`)).toBe("caption-tsv");
    expect(detect(`${JSON.stringify({ url: r!.url, caption: r!.caption })}\n`)).toBe("caption-tsv");
    expect(detect(`image_url,caption\n${r!.url},x\n`)).toBe("caption-tsv");
    expect(detect((LAYOUTS["laion.parquet"] as Buffer).subarray(0, 4096))).toBe("caption-tsv");
    expect(detect(`{"title": "not a list"}\n`)).not.toBe("caption-tsv");
    expect(detect("a line of prose, with a comma\n")).not.toBe("caption-tsv");
    expect(detect("<mediawiki xmlns=")).toBe("mediawiki");
  });

  it("a shard starting mid-file decides the column order as the first does (URL-first TSV, headed TSV, JSONL cut at any byte, headed CSV at record starts)", async () => {
    const cc3m = await read(write("cc3m.tsv", LAYOUTS["cc3m.tsv"]!));
    for (const name of ["cc12m.tsv", "header.tsv", "laion.tsv", "redcaps.jsonl", "hub.csv"]) {
      const path = write(name, LAYOUTS[name]!);
      const whole = await read(path);
      expect(whole.refs, name).toEqual(cc3m.refs);
      for (const bytes of [997, 4096, 20_000]) {
        const sharded = await read(path, bytes);
        expect(sharded.shards, name).toBeGreaterThan(1);
        expect(sharded.refs, `${name} in ${bytes}-byte shards`).toEqual(whole.refs);
        expect(sharded.counters, name).toEqual(whole.counters);
      }
    }
  });

  it("a parquet file is cut between its row groups, one of a single group is one shard", async () => {
    const laion = write("laion.parquet", LAYOUTS["laion.parquet"]!);
    const whole = await read(laion);
    const split = await read(laion, 997);
    expect(split.shards).toBe(5);
    expect(split.refs).toEqual(whole.refs);
    expect(split.counters).toEqual(whole.counters);
    expect((await read(write("coyo.parquet", LAYOUTS["coyo.parquet"]!), 997)).shards).toBe(1);
  });

  it("gzipped lists (.tsv.gz, .jsonl.gz, .csv.gz, concatenated members) give the same references, one shard each", async () => {
    const cc3m = await read(write("cc3m.tsv", LAYOUTS["cc3m.tsv"]!));
    for (const name of ["cc3m.tsv", "cc12m.tsv", "laion.tsv", "redcaps.jsonl", "hub.csv"]) {
      const text = Buffer.from(LAYOUTS[name] as string);
      const got = await read(write(`${name}.gz`, gzipSync(text)), 997);
      expect(got.source, name).toBe("caption-tsv");
      expect(got.shards, name).toBe(1);
      expect(got.refs, name).toEqual(cc3m.refs);
      // two members, split inside a line (bgzip, `cat a.gz b.gz`): one stream
      const half = Math.floor(text.length / 2);
      expect((await read(write(`two-${name}.gz`, Buffer.concat([gzipSync(text.subarray(0, half)), gzipSync(text.subarray(half))])))).refs, name).toEqual(cc3m.refs);
    }
    // a .tsv.gz names a caption list, a .xml.gz a dump
    expect(BUILTIN_SOURCES.detect("cc.tsv.gz", gzipSync("x"))?.name).toBe("caption-tsv");
    expect(BUILTIN_SOURCES.detect("enwiki.xml.gz", gzipSync("<mediawiki"))?.name).toBe("mediawiki");
  });

  it("a .tsv.gz cut short gives the lines before the cut, then its shard is damaged (a DumpError), never a silent end", async () => {
    const gz = gzipSync(Buffer.from(LAYOUTS["cc12m.tsv"] as string));
    const path = write("cut.tsv.gz", gz.subarray(0, Math.floor(gz.length * 0.6)));
    const counters = new Counters();
    const [shard] = shardsOf(path, "caption-tsv", "current", null, 0);
    let n = 0;
    const err = await (async () => {
      for await (const _ of captionTsvSource.documents(shard!, fileBytes(path), config, counters)) n++;
    })().then(() => null, (e: Error) => e);
    expect(err?.name).toBe("DumpError");
    expect(err!.message).toMatch(/gzip data cut or damaged/);
    expect(n).toBeGreaterThan(100);
    expect(n).toBeLessThan(300);
    expect(counters.get("tsv.lines")).toBe(n);
  });

  it("a CSV field holds commas, doubled quotes and line breaks", async () => {
    const [a, b] = records;
    const text = `url,caption\n${a!.url},"a caption, with ""quotes"" and\na line break"\n${b!.url},${b!.caption}\n`;
    const got = await read(write("quoted.csv", text));
    expect(got.refs).toEqual([`${a!.url} a caption, with "quotes" and\na line break`, `${b!.url} ${b!.caption}`]);
  });
});

describe("caption lists that cannot be read as they are", () => {
  const refused = async (name: string, data: string | Buffer) => {
    const path = write(name, data);
    const err = await captionTsvSource.planRanges!({ name: path, size: statSync(path).size }, 1 << 20, LOCAL_VIEW).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.name, name).toBe("UserError");
    expect(err!.message, name).not.toContain("\n");
    return err!.message;
  };

  it("columns no name identifies are a one-line error naming the columns found and the names accepted", async () => {
    const body = records.slice(0, 20).map((r) => `7\t${r.url}\t${r.caption}\n`).join("");
    expect(await refused("coyo-like.tsv", `id\tlink\tcaption\n${body}`)).toMatch(/columns \["id","link","caption"\] name no image URL column \(url, image_url.*\)/);
    expect(await refused("no-header.tsv", body)).toMatch(/3 fields .* no header row names the columns/);
    expect(await refused("keys.jsonl", records.slice(0, 5).map((r) => JSON.stringify({ link: r.url, caption: r.caption })).join("\n"))).toMatch(/the JSON keys \["link","caption"\] name no image URL column/);
    expect(await refused("cols.parquet", parquet({ link: records.map((r) => r.url), alt_caption: records.map((r) => r.caption) }))).toMatch(/the parquet columns \["link","alt_caption"\] name no image URL column .* and no caption column/);
    expect(await refused("cols.csv", `link,caption\n${records[0]!.url},x\n`)).toMatch(/header row's columns \["link","caption"\]/);
    // no http(s) URL in either column and no header: nothing to tell the order by
    expect(await refused("bare.tsv", records.slice(0, 9).map((r) => `${r.caption}\t${r.url.replace(/^https?:\/\//, "")}\n`).join(""))).toMatch(/no field of its first 9 two-field lines is an http\(s\) URL/);
  });

  it("through `paracap run`: exit 2 with the one line, before any work", async () => {
    const { runCli } = await import("../../runner/helpers.ts");
    const path = write("coyo-like.tsv", `id\tlink\tcaption\n7\t${records[0]!.url}\tx\n`);
    const out = join(tempDir(), "out");
    const r = await runCli(["run", "--quiet", "--input", path, "--out", out]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^paracap run: .*coyo-like\.tsv: not a caption list paracap can read: the header row's columns \["id","link","caption"\]/)]);
    expect(() => statSync(join(out, "stats.json"))).toThrow();
  });

  it("a parquet file cut short is a one-line error at planning, and a damage report (not a crash) from its shard", async () => {
    const whole = LAYOUTS["laion.parquet"] as Buffer;
    const path = write("cut.parquet", whole.subarray(0, whole.length - 100));
    expect(await refused("cut.parquet", whole.subarray(0, whole.length - 100))).toMatch(/cut\.parquet: not a caption list paracap can read: not a parquet file, or cut short/);
    const shard = shardsOf(path, "caption-tsv", "current", [{ start: 0, end: statSync(path).size, fragment: false }], 0)[0]!;
    const docs = captionTsvSource.documents(shard, fileBytes(path), config, new Counters());
    await expect((async () => {
      for await (const _ of docs);
    })()).rejects.toMatchObject({ name: "DumpError", message: expect.stringMatching(/cut\.parquet: not a caption list paracap can read: not a parquet file, or cut short/) });
  });

});

describe("damaged records are counted where they are, the rest read", () => {
  it("a CSV quote never closed costs its record: counted, and the lines after it are read", async () => {
    const [a, b, c] = records;
    const text = `url,caption\n${a!.url},${a!.caption}\n${b!.url},"an unterminated caption\n${c!.url},${c!.caption}\n`;
    const got = await read(write("open-quote.csv", text));
    expect(got.refs).toEqual([`${a!.url} ${a!.caption}`, `${c!.url} ${c!.caption}`]);
    expect(got.counters["tsv.skipped.unterminated_quote"]).toBe(1);
    expect(got.samples["tsv.skipped.unterminated_quote"]).toEqual([`open-quote.csv byte ${text.indexOf(b!.url)}`]);
    expect(got.counters["tsv.lines"]).toBe(3);
  });

  it("a JSONL line that is not JSON, or not an object with the keys' strings, is counted", async () => {
    const [a, b] = records;
    const lines = [JSON.stringify({ url: a!.url, text: a!.caption }), `{"url": "${b!.url}", "text": "cut`, "[1, 2]", JSON.stringify({ url: b!.url, text: null }), JSON.stringify({ url: 5, text: "x" }), JSON.stringify({ url: b!.url, text: b!.caption })];
    const got = await read(write("damaged.jsonl", lines.join("\n") + "\n"));
    expect(got.refs).toEqual([`${a!.url} ${a!.caption}`, `${b!.url} ${b!.caption}`]);
    expect(got.counters).toMatchObject({ "tsv.lines": 6, "tsv.lines.emitted": 2, "tsv.skipped.invalid_json": 1, "tsv.skipped.malformed_line": 2, "tsv.skipped.empty_caption": 1 });
  });

  it("after the order is decided, a line whose URL field is not a URL is a counted drop of the extract stage, as in CC3M", async () => {
    const text = records.slice(0, 10).map((r, i) => `${i === 4 ? "not a url" : r.url}\t${r.caption}\n`).join("");
    const got = await read(write("one-bad.tsv", text));
    expect(got.refs.filter((r) => r.startsWith("skipped"))).toEqual(["skipped invalid_url"]);
    expect(got.refs).toHaveLength(10);
  });
});
