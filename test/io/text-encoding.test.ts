/** Text as users hand it over: a byte-order mark, UTF-16, CRLF, a lone CR inside a line, chunks cut anywhere. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decodeText, sniffTextEncoding, textLines } from "../../shared/io/text-encoding.ts";

const CC = new URL("../fixtures/data/conceptual-captions/gcc-validation-lines00001-00500.tsv", import.meta.url).pathname;
const captions = readFileSync(CC, "utf8").split("\n").filter((l) => l !== "").slice(0, 200).map((l) => l.split("\t")[0]!);

const utf16be = (s: string) => Buffer.from(Buffer.from(s, "utf16le")).swap16();

async function lines(chunks: Iterable<Buffer>): Promise<string[]> {
  const out: string[] = [];
  for await (const l of textLines((async function* () { yield* chunks; })())) out.push(l);
  return out;
}

/** The bytes cut into pieces of `size` (1: every byte apart, so every mark and character is split). */
function* pieces(b: Buffer, size: number): Generator<Buffer> {
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
}

describe("text encodings", () => {
  it("names the encoding its mark says, UTF-8 without one", () => {
    expect(sniffTextEncoding(Buffer.from([0xef, 0xbb, 0xbf, 0x61]))).toEqual({ encoding: "utf-8", bom: 3 });
    expect(sniffTextEncoding(Buffer.from([0xff, 0xfe, 0x61, 0]))).toEqual({ encoding: "utf-16le", bom: 2 });
    expect(sniffTextEncoding(Buffer.from([0xfe, 0xff, 0, 0x61]))).toEqual({ encoding: "utf-16be", bom: 2 });
    expect(sniffTextEncoding(Buffer.from("plain"))).toEqual({ encoding: "utf-8", bom: 0 });
  });

  it("decodes real captions the same from UTF-8, UTF-8 with a mark, UTF-16LE and UTF-16BE, in any chunking", async () => {
    const text = captions.join("\r\n") + "\n";
    const encoded = [Buffer.from(text), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]), Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(text)])];
    for (const bytes of encoded) {
      expect(decodeText(bytes)).toBe(text);
      for (const size of [1, 2, 3, 7, 4096]) expect(await lines(pieces(bytes, size))).toEqual(captions);
    }
  });

  it("ends lines at LF and CRLF only: a lone CR stays in its line; a last line needs no LF", async () => {
    expect(await lines([Buffer.from("a man rides\ra horse\r\nsecond\n\nlast")])).toEqual(["a man rides\ra horse", "second", "", "last"]);
    expect(await lines([Buffer.from("one\n")])).toEqual(["one"]);
    expect(await lines([Buffer.from("ab")])).toEqual(["ab"]);
    expect(await lines([])).toEqual([]);
  });
});
