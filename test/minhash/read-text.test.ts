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
