/**
 * `features` and `score` read stdin line by line and stop at a line that is not UTF-8; with
 * `--encoding <label>` they decode every line with the named encoding instead (real Conceptual
 * Captions converted by iconv to Mac Roman and windows-1252).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { NotInEncodingError, textLines } from "../../shared/io/text-encoding.ts";
import { runCli } from "../runner/helpers.ts";

const CC = new URL("../../../shared/data/conceptual-captions/gcc-validation-part1-lines00001-07900.tsv", import.meta.url).pathname;
/** captions 715–730: "fiancé" at 722 */
const captions = readFileSync(CC, "utf8").split("\n").slice(714, 730).map((l) => l.split("\t")[0]!);

function iconv(to: string, input: string): Buffer {
  return execFileSync("iconv", ["-f", "utf-8", "-t", `${to}//TRANSLIT`], { input });
}

async function lines(bytes: Buffer, size: number, encoding?: string): Promise<string[]> {
  const out: string[] = [];
  const chunks = async function* () {
    for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
  };
  for await (const l of textLines(chunks(), encoding)) out.push(l);
  return out;
}

describe("stdin in a named encoding", () => {
  it("textLines decodes every line with the named encoding, in any chunking, CRLF or LF", async () => {
    expect(captions.some((c) => c.includes("fiancé"))).toBe(true);
    const mac = iconv("macintosh", captions.join("\r\n") + "\n");
    for (const size of [1, 7, 4096]) expect(await lines(mac, size, "macintosh")).toEqual(captions);
    // "utf-8" named reads as without a name
    expect(await lines(Buffer.from(captions.join("\n")), 5, "utf-8")).toEqual(captions);
  });

  it("a line holding a byte the encoding has no character for stops the lines with its number", async () => {
    const greek = Buffer.concat([iconv("iso-8859-7", "καλημέρα\n"), Buffer.from("bad \xae\n", "latin1")]);
    const got: string[] = [];
    const err = await (async () => {
      for await (const l of textLines((async function* () { yield greek; })(), "iso-8859-7")) got.push(l);
    })().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(NotInEncodingError);
    expect((err as NotInEncodingError).line).toBe(2);
    expect(got).toEqual(["καλημέρα"]);
  });

  it("paracap features --encoding macintosh reads a Mac Roman stdin; without it, it stops at the first non-UTF-8 line", async () => {
    const stdin = iconv("macintosh", captions.join("\n") + "\n");
    const named = await runCli(["features", "--encoding", "mac"], { stdin });
    expect(named.code).toBe(0);
    const texts = named.stdout.trim().split("\n").map((l) => (JSON.parse(l) as { text: string }).text);
    expect(texts).toEqual(captions);
    const guessed = await runCli(["features"], { stdin });
    expect(guessed.code).toBe(2);
    expect(guessed.stderr).toMatch(/line 8 is not UTF-8/);
  });

  it("paracap score --encoding windows-1252 scores a windows-1252 pair; an unknown label stops at argument time", async () => {
    const pair = `${captions[7]}\t${captions[7]!.replace("birthday", "party")}\n`;
    const r = await runCli(["score", "--scorers", "syntactic", "--encoding", "windows-1252"], { stdin: iconv("windows-1252", pair) });
    const utf8 = await runCli(["score", "--scorers", "syntactic"], { stdin: pair });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(utf8.stdout);
    const bad = await runCli(["score", "--encoding", "mac-roman"], { stdin: pair });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^paracap score: --encoding "mac-roman" is not an encoding paracap can read[^\n]*\n$/);
  });
});
