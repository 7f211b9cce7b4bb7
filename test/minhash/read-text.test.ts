/** `paracap minhash` reads a legacy text (not UTF-8) as windows-1252: "’" saved as byte 0x92 stays "’", not the C1 control U+0092 Node's own decoder gives. */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { readText } from "../../shared/cli/minhash-command.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const MSRP = new URL("../../../shared/data/paraphrase/msr_paraphrase_train.txt", import.meta.url).pathname;

it("a windows-1252 text keeps its curly quotes and accents", () => {
  // line 57 of MSRP train: "the president’s appearance"
  const sentence = readFileSync(MSRP, "utf8").split("\n")[56]!.split("\t")[3]!;
  expect(sentence).toContain("president’s");
  const path = join(tempDir(), "legacy.txt");
  // iconv -f utf-8 -t windows-1252: "’" is 0x92, "é" 0xE9
  writeFileSync(path, Buffer.concat([Buffer.from(sentence.replace("’", "\x92") + " Caf\xe9.\n", "latin1")]));
  expect(readText(path)).toBe(`${sentence} Café.\n`);
});

it("a gzipped text and UTF-16 without a mark read as their text; a zip (Project Gutenberg's older downloads) or other binary file is one line saying what to do", async () => {
  const { gzipSync } = await import("node:zlib");
  const { UserError } = await import("../../shared/core/errors.ts");
  const MERCIER = new URL("../../../shared/data/translations/verne-20000-leagues-pg164-mercier-1872.txt", import.meta.url).pathname;
  const dir = tempDir();
  const gz = join(dir, "164.txt.gz");
  writeFileSync(gz, gzipSync(readFileSync(MERCIER)));
  expect(readText(gz)).toBe(readText(MERCIER));
  // a zip's first bytes: a local file header, then the (deflated) text
  const zip = join(dir, "164.zip");
  writeFileSync(zip, Buffer.concat([Buffer.from("PK\x03\x04\x14\x00\x00\x00\x08\x00", "latin1"), gzipSync(readFileSync(MERCIER)).subarray(10)]));
  expect(() => readText(zip)).toThrow(UserError);
  expect(() => readText(zip)).toThrow(/164\.zip is a zip archive: unzip it/);
  // UTF-16 without its mark (some editors' "Unicode") is text, not NUL-laden bytes
  const wide = join(dir, "164-utf16.txt");
  writeFileSync(wide, Buffer.from(readText(MERCIER), "utf16le"));
  expect(readText(wide)).toBe(readText(MERCIER));
  const png = new URL("../../../shared/data/images/jimagehash/catCustom.png", import.meta.url).pathname;
  expect(() => readText(png)).toThrow(/catCustom\.png is not a text file/);
});
