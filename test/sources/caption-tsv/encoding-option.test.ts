/**
 * Caption lists in an encoding no head can tell: real Conceptual Captions lines converted by iconv
 * (libc's, on every Debian machine) to Mac Roman, ISO 8859-2 and Shift_JIS. Read without a word
 * from the user they are taken for windows-1252 ("fiancŽ"); `extraction.captionEncoding`
 * (`--encoding`) decodes every shard with the named encoding, and the run says which.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ParacapConfig } from "../../../shared/core/config.ts";
import { UploadConfig } from "../../../shared/cloud/messages.ts";
import { Counters } from "../../../shared/core/counters.ts";
import { tsvSkippedCounter } from "../../../shared/core/counter-names.ts";
import { fileBytes } from "../../../shared/io/file-bytes.ts";
import { LOCAL_VIEW, shardsOf } from "../../../shared/runner/local-shards.ts";
import { captionTsvSource } from "../../../shared/sources/caption-tsv/caption-tsv-source.ts";
import { inProcessCli } from "../../support/in-process-cli.ts";
import { removeTempDirs, tempDir } from "../../runner/helpers.ts";

afterAll(removeTempDirs);

const CC = new URL("../../../../shared/data/conceptual-captions/gcc-validation-part1-lines00001-07900.tsv", import.meta.url).pathname;
/** the first 900 lines: "£ 6,000" at line 59, "fiancé" at 722, "♥" (in no single-byte encoding here) among them */
const text = readFileSync(CC, "utf8").split("\n").slice(0, 900).join("\n");

/** `text` as iconv writes it in `encoding` (a character the encoding lacks becomes "?"). */
function iconv(to: string, input = text): Buffer {
  return execFileSync("iconv", ["-f", "utf-8", "-t", `${to}//TRANSLIT`], { input, maxBuffer: 1 << 26 });
}

function write(name: string, data: Buffer): string {
  const path = join(tempDir(), name);
  writeFileSync(path, data);
  return path;
}

async function read(path: string, extraction: Record<string, unknown> = {}, shardBytes = 1 << 30) {
  const config = ParacapConfig.parse({ extraction });
  const counters = new Counters();
  const ranges = await captionTsvSource.planRanges!({ name: path, size: statSync(path).size }, shardBytes, { ...LOCAL_VIEW, config });
  if (ranges !== null && "wait" in ranges) throw new Error(ranges.wait);
  const captions: string[] = [];
  const shards = shardsOf(path, "caption-tsv", "current", ranges, 0);
  for (const shard of shards) {
    for await (const doc of captionTsvSource.documents(shard, fileBytes(path), config, counters)) captions.push(doc.caption);
  }
  return { captions, counters: counters.toJSON(), shards: shards.length, report: captionTsvSource.reportLines!(counters.toJSON()) };
}

describe("--encoding: caption lists in a named encoding", () => {
  const captions = text.split("\n").map((l) => l.split("\t")[0]!);
  // iconv's transliteration of what Mac Roman lacks
  const macRoman = iconv("macintosh").toString("latin1");

  it("a Mac Roman list without it is read as windows-1252 (the defect), with it as Mac Roman in every shard", async () => {
    const path = write("cc-mac.tsv", iconv("macintosh"));
    const guessed = await read(path);
    expect(guessed.captions.join("\n")).toContain("fiancŽ");
    for (const shardBytes of [1 << 30, 20_000]) {
      const r = await read(path, { captionEncoding: "mac" }, shardBytes);
      expect(r.captions.length).toBe(captions.length);
      expect(r.captions.join("\n")).toContain("i ordered a cake for my fiancé 's 25th birthday .");
      expect(r.captions.join("\n")).toContain("the former model has bolstered his thinning locks with a £ 6,000 operation");
      expect(r.captions.join("\n")).not.toMatch(/[\uFFFDŽ]/);
      expect(r.captions).toEqual(new TextDecoder("macintosh").decode(Buffer.from(macRoman, "latin1")).split("\n").map((l) => l.split("\t")[0]!));
      // once per file, under the encoding's name; not taken for windows-1252
      expect(r.counters["tsv.files.encoding.macintosh"]).toBe(1);
      expect(r.counters["tsv.files.windows_1252"]).toBeUndefined();
      expect(r.report.join("\n")).toContain("1 caption list read as macintosh (extraction.captionEncoding, --encoding).");
    }
  });

  it("windows-1252 named is read as WHATWG's windows-1252 (curly quotes, not C1 controls), a multibyte encoding line by line", async () => {
    const quoted = "tom’s “new” car — 100 €\thttps://example.org/a.jpg\n";
    const r = await read(write("quotes.tsv", iconv("windows-1252", quoted)), { captionEncoding: "latin1" });
    expect(r.captions).toEqual(["tom’s “new” car — 100 €"]);
    expect(r.counters["tsv.files.encoding.windows-1252"]).toBe(1);
    const japanese = "東京の夜景\thttps://example.org/tokyo.jpg\nfiancé\thttps://example.org/b.jpg\n";
    const sjis = await read(write("sjis.tsv", iconv("shift_jis", japanese)), { captionEncoding: "shift_jis" }, 10);
    expect(sjis.shards).toBeGreaterThan(1);
    expect(sjis.captions).toEqual(["東京の夜景", "fiance"]);
  });

  it("a byte the named encoding has no character for drops its line, counted, never U+FFFD", async () => {
    // ISO 8859-2 leaves no byte unmapped; ISO 8859-7 (Greek) does: 0xAE
    const bytes = Buffer.concat([iconv("iso-8859-7", "καλημέρα\thttps://example.org/a.jpg\n"), Buffer.from("bad \xae byte\thttps://example.org/b.jpg\n", "latin1")]);
    const r = await read(write("greek.tsv", bytes), { captionEncoding: "iso-8859-7" });
    expect(r.captions).toEqual(["καλημέρα"]);
    expect(r.counters[tsvSkippedCounter("not_in_encoding")]).toBe(1);
  });

  it("the config refuses a label TextDecoder does not know, and UTF-16 (lines are split at LF bytes)", () => {
    expect(() => ParacapConfig.parse({ extraction: { captionEncoding: "mac-roman" } })).toThrow(/not an encoding/);
    expect(() => ParacapConfig.parse({ extraction: { captionEncoding: "utf-16le" } })).toThrow(/UTF-16/);
    expect(ParacapConfig.parse({ extraction: { captionEncoding: "Latin1" } }).extraction.captionEncoding).toBe("windows-1252");
    // an upload's config may name it (the cloud runner's shards read with it)
    expect(UploadConfig.parse({ extraction: { captionEncoding: "mac" } })).toEqual({ extraction: { captionEncoding: "macintosh" } });
    expect(UploadConfig.safeParse({ extraction: { captionEncoding: "mac-roman" } }).success).toBe(false);
    // absent unless set: a run's config.json without it stays as it was
    expect("captionEncoding" in ParacapConfig.parse({}).extraction).toBe(false);
  });

  it("run --encoding with an unknown label stops at argument time in one line, exit 2", async () => {
    const r = await inProcessCli(["run", "--input", CC, "--encoding", "mac-roman", "--out", join(tempDir(), "out")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^paracap run: --encoding "mac-roman" is not an encoding paracap can read[^\n]*\n$/);
  });
});
