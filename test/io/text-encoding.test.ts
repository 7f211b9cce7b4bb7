/** Text as users hand it over: a byte-order mark, UTF-16, CRLF, a lone CR inside a line, chunks cut anywhere. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decodeText, guessTextEncoding, NotUtf8Error, sniffTextEncoding, textLines } from "../../shared/io/text-encoding.ts";

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

  it("a line that is not UTF-8 stops the lines with its number, in any chunking, never a line with U+FFFD", async () => {
    const text = captions.slice(0, 30).join("\n") + "\n";
    const bytes = Buffer.from(text);
    // a real caption's "é" cut to its first byte, as a line cut inside a character
    const damaged = Buffer.concat([bytes, Buffer.from("i ordered a cake for my fianc\xc3 's 25th birthday .\n", "latin1"), bytes]);
    for (const size of [1, 7, 4096]) {
      const got: string[] = [];
      const err = await (async () => {
        for await (const l of textLines((async function* () { yield* pieces(damaged, size); })())) got.push(l);
      })().then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(NotUtf8Error);
      expect((err as NotUtf8Error).line).toBe(31);
      expect(got).toEqual(captions.slice(0, 30));
    }
  });

  it("guesses a file's encoding from its head: a legacy single-byte file, UTF-16 without its mark, damaged UTF-8", () => {
    // with a real Conceptual Captions line (line 722 of the shared list) that has an "é"
    const text = captions.join("\n") + "\ni ordered a cake for my fiancé 's 25th birthday .";
    expect(guessTextEncoding(Buffer.from(text), true).encoding).toBe("utf-8");
    expect(guessTextEncoding(Buffer.from(text.replace(/é/g, "\xe9"), "latin1"), true).encoding).toBe("windows-1252");
    expect(guessTextEncoding(Buffer.from(text, "utf16le"), true).encoding).toBe("utf-16le");
    expect(guessTextEncoding(Buffer.from(text, "utf16le").swap16(), true).encoding).toBe("utf-16be");
    // one cut character among well-formed ones: UTF-8 with damage
    const utf8 = Buffer.from("fiancé café " + text);
    expect(guessTextEncoding(Buffer.concat([utf8, Buffer.from([0xc3, 0x20])]), true).encoding).toBe("utf-8");
    // a head cut inside a character is not held against the file; the whole file ending so is
    expect(guessTextEncoding(Buffer.from("plain ascii caf\xc3", "latin1"), false).encoding).toBe("utf-8");
    expect(guessTextEncoding(Buffer.from("plain ascii caf\xc3", "latin1"), true).encoding).toBe("windows-1252");
  });
});
