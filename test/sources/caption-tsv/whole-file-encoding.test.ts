/**
 * A local caption list whose first 64 KiB are plain ASCII and whose later lines are windows-1252 (real
 * Conceptual Captions lines, the ASCII ones first, converted by iconv): the head cannot tell, so the
 * local planner reads the file through once and hands its decision to every shard. Files the head
 * decides, and every UTF-8 file, are planned as before (no `encoding` in their shard specs).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { isAscii } from "node:buffer";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ParacapConfig } from "../../../shared/core/config.ts";
import { Counters } from "../../../shared/core/counters.ts";
import { tsvSkippedCounter } from "../../../shared/core/counter-names.ts";
import { fileBytes } from "../../../shared/io/file-bytes.ts";
import { decodeWindows1252 } from "../../../shared/io/windows-1252.ts";
import { wholeFileEncoding } from "../../../shared/io/text-encoding.ts";
import { planLocalShards } from "../../../shared/runner/local-shards.ts";
import { captionTsvSource } from "../../../shared/sources/caption-tsv/caption-tsv-source.ts";
import { HEAD_BYTES } from "../../../shared/sources/caption-tsv/list-layout.ts";
import { removeTempDirs, tempDir } from "../../runner/helpers.ts";

afterAll(removeTempDirs);

const CC = new URL("../../../../shared/data/conceptual-captions/gcc-validation-part1-lines00001-07900.tsv", import.meta.url).pathname;
const all = readFileSync(CC, "utf8").split("\n").filter((l) => l !== "");
const ascii = all.filter((l) => isAscii(Buffer.from(l)));
const other = all.filter((l) => !isAscii(Buffer.from(l)));
/** ~1,000 ASCII lines (~160 KB, past the head), then every line with a character beyond ASCII */
const text = [...ascii.slice(0, 1000), ...other].join("\n") + "\n";

function iconv(to: string, input: string): Buffer {
  return execFileSync("iconv", ["-f", "utf-8", "-t", `${to}//TRANSLIT`], { input, maxBuffer: 1 << 26 });
}

function write(name: string, data: Buffer): string {
  const path = join(tempDir(), name);
  writeFileSync(path, data);
  return path;
}

async function read(path: string, shardBytes: number, extraction: Record<string, unknown> = {}) {
  const config = ParacapConfig.parse({ extraction });
  const counters = new Counters();
  const shards = await planLocalShards([{ path, kind: "current" }], shardBytes, undefined, config);
  const captions: string[] = [];
  for (const shard of shards) {
    for await (const doc of captionTsvSource.documents(shard, fileBytes(path), config, counters)) captions.push(doc.caption);
  }
  return { captions, shards, counters: counters.toJSON(), report: captionTsvSource.reportLines!(counters.toJSON()) };
}

describe("a caption list whose head is plain ASCII: the planner decides from the whole file", () => {
  it("(the test's file: the head is ASCII, the rest holds windows-1252 bytes)", () => {
    const bytes = iconv("windows-1252", text);
    expect(isAscii(bytes.subarray(0, HEAD_BYTES))).toBe(true);
    expect(isAscii(bytes)).toBe(false);
    expect(other.length).toBeGreaterThan(10);
  });

  it("a windows-1252 list is read as windows-1252 in every shard (its later lines used to be invalid_utf8 drops)", async () => {
    const bytes = iconv("windows-1252", text);
    const path = write("late-legacy.tsv", bytes);
    const expected = decodeWindows1252(bytes).split("\n").filter((l) => l !== "").map((l) => l.split("\t")[0]!);
    for (const shardBytes of [1 << 30, 50_000]) {
      const r = await read(path, shardBytes);
      if (shardBytes === 50_000) expect(r.shards.length).toBeGreaterThan(3);
      expect(r.shards.every((s) => s.encoding === "windows-1252")).toBe(true);
      expect(r.captions).toEqual(expected);
      expect(r.captions.join("\n")).toContain("i ordered a cake for my fiancé 's 25th birthday .");
      expect(r.counters[tsvSkippedCounter("invalid_utf8")]).toBeUndefined();
      expect(r.counters["tsv.files.windows_1252_by_scan"]).toBe(1);
      expect(r.report.join("\n")).toMatch(/1 caption list read as windows-1252: its first 64 KiB plain ASCII, the rest not UTF-8/);
    }
  });

  it("a CSV list too, whether or not the planner cuts it (one shard: a range carrying the decision)", async () => {
    const csv = "caption,url\n" + text.trim().split("\n").map((l) => l.split("\t")).map(([c, u]) => `"${c!.replace(/"/g, '""')}","${u!}"`).join("\n") + "\n";
    const bytes = iconv("windows-1252", csv);
    const path = write("late-legacy.csv", bytes);
    const expected = text.trim().split("\n").map((l) => l.split("\t")[0]!);
    for (const shardBytes of [1 << 30, 50_000]) {
      const r = await read(path, shardBytes);
      expect(r.shards.every((s) => s.encoding === "windows-1252")).toBe(true);
      expect(r.captions.length).toBe(expected.length);
      expect(r.captions.join("\n")).toContain("i ordered a cake for my fiancé 's 25th birthday .");
      expect(r.counters[tsvSkippedCounter("invalid_utf8")]).toBeUndefined();
    }
  });

  it("a UTF-8 list, and a list whose head decides, are planned as before: no encoding in the shard specs", async () => {
    const utf8 = await read(write("late-utf8.tsv", Buffer.from(text)), 50_000);
    expect(utf8.shards.some((s) => "encoding" in s)).toBe(false);
    expect(utf8.captions).toEqual(text.trim().split("\n").map((l) => l.split("\t")[0]!));
    // a windows-1252 file with its legacy bytes in the head: the shards decide from it, as before
    const early = await read(write("early-legacy.tsv", iconv("windows-1252", [...other, ...ascii.slice(0, 1000)].join("\n"))), 50_000);
    expect(early.shards.some((s) => "encoding" in s)).toBe(false);
    expect(early.counters["tsv.files.windows_1252"]).toBe(1);
    // the run's encoding named: nothing to scan for
    const named = await read(write("named.tsv", iconv("windows-1252", text)), 50_000, { captionEncoding: "windows-1252" });
    expect(named.shards.some((s) => "encoding" in s)).toBe(false);
    expect(named.counters["tsv.files.encoding.windows-1252"]).toBe(1);
  });

  it("a UTF-8 list damaged after its head stays UTF-8 (a well-formed character says so): the damaged line is dropped", async () => {
    const bytes = Buffer.from(text);
    const at = bytes.indexOf(Buffer.from("fiancé")) + "fianc".length;
    const damaged = Buffer.concat([bytes.subarray(0, at), Buffer.from([0xe9]), bytes.subarray(at + 2)]);
    const r = await read(write("late-damage.tsv", damaged), 50_000);
    expect(r.shards.some((s) => "encoding" in s)).toBe(false);
    expect(r.counters[tsvSkippedCounter("invalid_utf8")]).toBe(1);
  });

  it("the streamed decision is guessTextEncoding's over the whole file, wherever the chunks are cut", async () => {
    const legacy = iconv("windows-1252", text);
    const utf8 = Buffer.from(text);
    const chunked = async function* (b: Buffer, size: number) {
      for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
    };
    // byte-sized chunks over the file's last lines (where its characters beyond ASCII are), larger ones over all of it
    const tail = (b: Buffer) => b.subarray(b.indexOf(0x0a, b.length - 8000) + 1);
    for (const size of [1, 2, 3, 7, 4096, 1 << 20]) {
      expect(await wholeFileEncoding(chunked(size < 8 ? tail(legacy) : legacy, size))).toBe("windows-1252");
      expect(await wholeFileEncoding(chunked(size < 8 ? tail(utf8) : utf8, size))).toBe("utf-8");
      // a character cut at the file's end is damage, as in a whole file
      expect(await wholeFileEncoding(chunked(Buffer.from("ascii\n\xc3", "latin1"), size))).toBe("windows-1252");
    }
  });
});
