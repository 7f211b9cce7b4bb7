/**
 * Caption lists not in UTF-8, as users have them: real Conceptual Captions lines saved as windows-1252
 * (Excel on Windows), a UTF-8 list with a line cut inside a character, UTF-16 without its mark. The
 * caption is never silent garbage: a windows-1252 file is read as one (the same in every shard, the
 * run saying so), a line that is not UTF-8 in a UTF-8 file is a counted drop, UTF-16 is refused in
 * one line.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ParacapConfig } from "../../../shared/core/config.ts";
import { Counters } from "../../../shared/core/counters.ts";
import { tsvSkippedCounter } from "../../../shared/core/counter-names.ts";
import { fileBytes } from "../../../shared/io/file-bytes.ts";
import { decodeWindows1252 } from "../../../shared/io/windows-1252.ts";
import { LOCAL_VIEW, shardsOf } from "../../../shared/runner/local-shards.ts";
import { captionTsvSource } from "../../../shared/sources/caption-tsv/caption-tsv-source.ts";
import { removeTempDirs, tempDir } from "../../runner/helpers.ts";

afterAll(removeTempDirs);

const CC = new URL("../../../../shared/data/conceptual-captions/gcc-validation-part1-lines00001-07900.tsv", import.meta.url).pathname;
/** the first 900 lines: "£ 6,000" at line 59, "fiancé" at 722, "♥" (not in windows-1252) among them */
const lines = readFileSync(CC, "utf8").split("\n").slice(0, 900);
const config = ParacapConfig.parse({});

/** windows-1252 bytes as `iconv -t windows-1252//TRANSLIT` writes them (a character it lacks becomes "?"). */
function toWindows1252(text: string): Buffer {
  const table = new Map<string, number>();
  for (let b = 0; b < 256; b++) table.set(decodeWindows1252(Buffer.from([b])), b);
  return Buffer.from([...text].map((c) => table.get(c) ?? 0x3f));
}

function write(name: string, data: Buffer): string {
  const path = join(tempDir(), name);
  writeFileSync(path, data);
  return path;
}

async function read(path: string, shardBytes = 1 << 30) {
  const counters = new Counters();
  const ranges = await captionTsvSource.planRanges!({ name: path, size: statSync(path).size }, shardBytes, LOCAL_VIEW);
  if (ranges !== null && "wait" in ranges) throw new Error(ranges.wait);
  const captions: string[] = [];
  const shards = shardsOf(path, "caption-tsv", "current", ranges, 0);
  for (const shard of shards) {
    for await (const doc of captionTsvSource.documents(shard, fileBytes(path), config, counters)) captions.push(doc.caption);
  }
  return { captions, counters: counters.toJSON(), samples: counters.samples, shards: shards.length, report: captionTsvSource.reportLines!(counters.toJSON()) };
}

describe("caption lists not in UTF-8", () => {
  const utf8 = lines.filter((l) => l !== "").map((l) => l.split("\t")[0]!);
  const expected = utf8.map((c) => c.replace(/♥/g, "?"));

  it("a windows-1252 list is read as windows-1252 in every shard, and the run says so", async () => {
    const path = write("cc-excel.tsv", toWindows1252(lines.join("\n")));
    for (const shardBytes of [1 << 30, 20_000]) {
      const r = await read(path, shardBytes);
      expect(r.captions).toEqual(expected);
      expect(r.captions.join("\n")).toContain("the former model has bolstered his thinning locks with a £ 6,000 operation");
      expect(r.captions.join("\n")).toContain("i ordered a cake for my fiancé 's 25th birthday .");
      expect(r.captions.join("\n")).not.toContain("\uFFFD");
      expect(r.counters["tsv.files.windows_1252"]).toBe(1);
      expect(r.report.join("\n")).toMatch(/1 caption list read as windows-1252/);
    }
  });

  it("a UTF-8 list with a line cut inside a character drops that line as invalid_utf8, with its offset", async () => {
    const bytes = Buffer.from(lines.join("\n"));
    const cut = bytes.indexOf(Buffer.from("£ 6,000"));
    // the pound sign's second byte lost: "\xC2 6,000"
    const damaged = Buffer.concat([bytes.subarray(0, cut + 1), bytes.subarray(cut + 2)]);
    const path = write("cc-cut.tsv", damaged);
    const lineStart = damaged.lastIndexOf(0x0a, cut) + 1;
    for (const shardBytes of [1 << 30, 20_000]) {
      const r = await read(path, shardBytes);
      expect(r.captions).toEqual(utf8.filter((c) => !c.includes("£ 6,000")));
      expect(r.captions.join("\n")).not.toContain("\uFFFD");
      expect(r.counters[tsvSkippedCounter("invalid_utf8")]).toBe(1);
      expect(r.samples.get(tsvSkippedCounter("invalid_utf8"))).toEqual([`cc-cut.tsv byte ${lineStart}`]);
      expect(r.counters["tsv.files.windows_1252"]).toBeUndefined();
    }
  });

  it("a windows-1252 CSV (Excel's \"CSV\") is read as windows-1252, a UTF-8 CSV's damaged record is dropped", async () => {
    const csv = (rows: string[]) => "caption,url\r\n" + rows.map((l) => l.split("\t")).map(([c, u], i) => `${i % 3 || /[",]/.test(c!) ? `"${c!.replace(/"/g, '""')}"` : c},${u!.includes(",") ? `"${u}"` : u}\r\n`).join("");
    const text = csv(lines.filter((l) => l !== ""));
    const legacy = await read(write("excel.csv", toWindows1252(text)), 30_000);
    expect(legacy.captions).toEqual(expected);
    expect(legacy.counters["tsv.files.windows_1252"]).toBe(1);
    const bytes = Buffer.from(text);
    const at = bytes.indexOf(Buffer.from("fiancé")) + "fianc".length;
    const damaged = Buffer.concat([bytes.subarray(0, at), Buffer.from([0xe9]), bytes.subarray(at + 2)]);
    const r = await read(write("cut.csv", damaged), 30_000);
    expect(r.captions).toEqual(utf8.filter((c) => !c.includes("fiancé")));
    expect(r.counters[tsvSkippedCounter("invalid_utf8")]).toBe(1);
  });

  it("a UTF-16 list, with or without its mark, is refused in one line that says what it is", async () => {
    const text = lines.slice(0, 50).join("\n");
    for (const [name, bytes] of [["le.tsv", Buffer.from(text, "utf16le")], ["bom.tsv", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")])]] as const) {
      const err = await read(write(name, bytes)).then(() => null, (e: Error) => e);
      expect(err?.message).toMatch(/UTF-16.*save it as UTF-8/);
    }
  });

  it("a UTF-8 list reads as before (no counter, the same captions)", async () => {
    const r = await read(write("cc.tsv", Buffer.from(lines.join("\n"))), 20_000);
    expect(r.captions).toEqual(utf8);
    expect(Object.keys(r.counters).filter((k) => /windows|invalid/.test(k))).toEqual([]);
  });
});
