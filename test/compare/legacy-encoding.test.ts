/**
 * Paraphrase corpora not in UTF-8: real MSRP lines saved as windows-1252 (its curly quote ’ is byte
 * 0x92, the byte Node's own windows-1252 decoder gets wrong), as UTF-16 without its mark, and with a
 * line cut inside a character. The pairs are never silent garbage: a legacy file reads as
 * windows-1252 and says so, UTF-16 reads as UTF-16, a damaged line is a counted skip.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readCorpus } from "../../shared/compare/corpus-formats.ts";
import { decodeWindows1252 } from "../../shared/io/windows-1252.ts";

const MSRP = new URL("../../../shared/data/paraphrase/msr_paraphrase_train.txt", import.meta.url).pathname;
/** the first 400 lines less the BOM (MSRP train has no header): line 57 holds "president’s" */
const text = readFileSync(MSRP, "utf8").replace(/^\uFEFF/, "").split("\n").slice(0, 400).join("\n") + "\n";

/** character → its windows-1252 byte, built once (built per call, the test spent ~50 CPU-s on it) */
const TABLE = new Map<string, number>();
for (let b = 0; b < 256; b++) TABLE.set(decodeWindows1252(Buffer.from([b])), b);

function toWindows1252(s: string): Buffer {
  return Buffer.from([...s].map((c) => TABLE.get(c) ?? 0x3f));
}

describe("paraphrase corpora not in UTF-8", () => {
  const utf8 = readCorpus(Buffer.from(text));

  it("the UTF-8 reading holds the characters the others must keep", () => {
    expect(utf8.format).toBe("msrp");
    expect(utf8.encoding).toBe("utf-8");
    expect(utf8.pairs.map((p) => p.a).join("\n")).toContain("the president’s appearance");
  });

  it("a windows-1252 corpus reads as windows-1252 (’ from 0x92 too), and says so", () => {
    const bytes = toWindows1252(text);
    expect(bytes.includes(0x92)).toBe(true);
    const c = readCorpus(bytes);
    expect(c.encoding).toBe("windows-1252");
    // what windows-1252 lacks (none in these lines but a few) is "?" as iconv's //TRANSLIT leaves it
    expect(c.pairs).toEqual(utf8.pairs.map((p) => ({ ...p, a: [...p.a].map((ch) => (toWindows1252(ch)[0] === 0x3f ? "?" : ch)).join(""), b: [...p.b].map((ch) => (toWindows1252(ch)[0] === 0x3f ? "?" : ch)).join("") })));
    expect(JSON.stringify(c.pairs)).not.toContain("\uFFFD");
  });

  it("UTF-16 without its mark reads as UTF-16", () => {
    expect(readCorpus(Buffer.from(text, "utf16le"))).toMatchObject({ encoding: "utf-16le", pairs: utf8.pairs });
    expect(readCorpus(Buffer.from(text, "utf16le").swap16())).toMatchObject({ encoding: "utf-16be", pairs: utf8.pairs });
  });

  it("a line cut inside a character is a counted skip, not a pair with U+FFFD", () => {
    const bytes = Buffer.from(text);
    const at = bytes.indexOf(Buffer.from("’s appearance"));
    const damaged = Buffer.concat([bytes.subarray(0, at + 1), bytes.subarray(at + 3)]); // ’ is three bytes: two lost
    const line = bytes.subarray(0, at).toString("utf8").split("\n").length;
    const c = readCorpus(damaged);
    expect(c.encoding).toBe("utf-8");
    expect(c.skipped).toBe(1);
    expect(c.skippedLines).toEqual([line]);
    expect(c.pairs).toEqual(utf8.pairs.filter((p) => !p.a.includes("’s appearance")));
  });
});
