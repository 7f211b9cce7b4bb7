/**
 * Project Gutenberg texts as researchers have them: the real Mercier translation's body wrapped in the
 * header and footer wordings of other PG files (the 2020s eBook wording with a BOM, markers indented,
 * "End of this Project Gutenberg Etext", copyrighted texts' markers), saved with lone-CR line ends, and
 * a paragraph-per-line file (a corpus's export, no blank lines). Each reads as the same paragraphs.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readText } from "../../shared/cli/minhash-command.ts";
import { gutenbergMarkers, splitParagraphs, stripGutenberg } from "../../shared/minhash/paragraphs.ts";
import { inProcessCli } from "../support/in-process-cli.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";
import { MERCIER, WALTER } from "./verne.ts";

afterAll(removeTempDirs);

const original = readFileSync(MERCIER, "latin1");
const body = stripGutenberg(original);
const expected = splitParagraphs(body);
const walterHeader = readFileSync(WALTER, "latin1").split("*END THE SMALL PRINT!")[0]!;
const TITLE = "TWENTY THOUSAND LEAGUES UNDER THE SEA";

const variants: Record<string, string> = {
  "2020s eBook wording, BOM": `\uFEFFThe Project Gutenberg eBook of Twenty Thousand Leagues under the Sea\r\n\r\nThis ebook is for the use of anyone anywhere in the United States and\r\nmost other parts of the world at no cost and with almost no restrictions\r\nwhatsoever.\r\n\r\nTitle: Twenty Thousand Leagues under the Sea\r\n\r\nAuthor: Jules Verne\r\n\r\n*** START OF THE PROJECT GUTENBERG EBOOK ${TITLE} ***\r\n${body}\r\n*** END OF THE PROJECT GUTENBERG EBOOK ${TITLE} ***\r\n\r\nUpdated editions will replace the previous one--the old editions will\r\nbe renamed.\r\n`,
  "indented markers": `Project Gutenberg's Twenty Thousand Leagues under the Sea\r\n\r\n *** START OF THIS PROJECT GUTENBERG EBOOK ${TITLE} ***\r\n${body}\r\n        ***END OF THE PROJECT GUTENBERG EBOOK ${TITLE}***\r\n\r\nThis file should be named 164.txt or 164.zip\r\n`,
  "old small print, End of this Project Gutenberg Etext": `${walterHeader}*END*THE SMALL PRINT! FOR PUBLIC DOMAIN ETEXTS*Ver.04.29.93*END*\r\n${body}\r\nEnd of this Project Gutenberg Etext of 20000 Leagues Under the Sea, by Jules Verne\r\n\r\nThis file should be named 20000.txt\r\n`,
  "copyrighted text's markers": `The Project Gutenberg EBook of Twenty Thousand Leagues\r\n\r\n*** START OF THE COPYRIGHTED PROJECT GUTENBERG EBOOK ${TITLE} ***\r\n${body}\r\n*** END OF THE COPYRIGHTED PROJECT GUTENBERG EBOOK ${TITLE} ***\r\n\r\nThis is a COPYRIGHTED Project Gutenberg eBook, Details Below\r\n`,
};

describe("Project Gutenberg files in other wordings", () => {
  for (const [name, text] of Object.entries(variants)) {
    it(`${name}: the body's paragraphs, no header or licence`, () => {
      const dir = tempDir("paracap-pg-");
      writeFileSync(join(dir, "a.txt"), text, "latin1");
      expect(gutenbergMarkers(text.replace(/^\uFEFF/, ""))).toBe(true);
      expect(splitParagraphs(stripGutenberg(text.replace(/^\uFEFF/, "")))).toEqual(expected);
    });
  }

  it("lone CR line ends (a classic Mac save) split paragraphs as CRLF does", () => {
    expect(splitParagraphs(body.replace(/\r\n/g, "\r"))).toEqual(expected);
  });

  it("a PG file read without --gutenberg says so on stderr; with it, no note", async () => {
    const r = await inProcessCli(["minhash", MERCIER, "--perms", "16", "--threshold", "0.9"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("--gutenberg");
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    const g = await inProcessCli(["minhash", MERCIER, "--gutenberg", "--perms", "16", "--threshold", "0.9"]);
    expect(g.stderr).toBe("");
  });

  it("a file of one paragraph a line (no blank line anywhere) is read a paragraph a line, and says so", async () => {
    const dir = tempDir("paracap-pg-");
    const file = join(dir, "lines.txt");
    writeFileSync(file, expected.slice(0, 300).join("\n") + "\n");
    const r = await inProcessCli(["minhash", file, "--perms", "16", "--threshold", "0.9"]);
    const summary = JSON.parse(r.stdout.trimEnd().split("\n").at(-1)!).summary;
    expect(summary.paragraphsA).toBe(300);
    expect(r.stderr).toContain("one paragraph a line");
    // a hard-wrapped text with blank lines is read as before
    expect(splitParagraphs(readText(MERCIER)).length).toBeGreaterThan(2000);
  });
});

describe("minhash --text", () => {
  it("gives each pair's two paragraphs as read, so a pair can be read without splitting the files again", async () => {
    const dir = tempDir("paracap-pg-");
    const a = join(dir, "a.txt");
    writeFileSync(a, expected.slice(0, 120).join("\r\n\r\n") + "\r\n" + expected.slice(0, 40).join("\r\n\r\n"));
    const r = await inProcessCli(["minhash", a, "--text", "--perms", "64", "--threshold", "0.9"]);
    expect(r.code, r.stderr).toBe(0);
    const pairs = r.stdout.trimEnd().split("\n").slice(0, -1).map((l) => JSON.parse(l) as { a: number; b: number; textA: string; textB: string });
    expect(pairs.length).toBeGreaterThanOrEqual(30);
    const paragraphs = splitParagraphs(readText(a));
    for (const p of pairs) expect([p.textA, p.textB]).toEqual([paragraphs[p.a], paragraphs[p.b]]);
  });
});

describe("chapter headings", () => {
  it("are no pairs: within Mercier, 1,035 of 1,782 pairs were 'CHAPTER I' / 'CHAPTER II'; --keep-headings pairs them again", async () => {
    const r = await inProcessCli(["minhash", MERCIER, "--gutenberg", "--text", "--perms", "64"]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
    const summary = lines.pop().summary;
    const pairs = lines as { a: number; b: number; textA: string; textB: string }[];
    expect(pairs.some((p) => /^CHAPTER [IVXL]+$/.test(p.textA) || /^CHAPTER [IVXL]+$/.test(p.textB))).toBe(false);
    // the 46 chapter headings and the two "PART ONE"-style lines keep their places: indices are those of every paragraph
    expect(summary.paragraphsA).toBe(expected.length);
    expect(summary.headings).toBeGreaterThanOrEqual(46);
    expect(summary.pairs).toBe(pairs.length);
    expect(pairs.length).toBeGreaterThan(300);
    const kept = await inProcessCli(["minhash", MERCIER, "--gutenberg", "--perms", "64", "--keep-headings"]);
    expect(JSON.parse(kept.stdout.trimEnd().split("\n").at(-1)!).summary.pairs).toBeGreaterThan(pairs.length + 1000);
  });

  it("headings as books write them, and prose that only looks short is no heading", async () => {
    const { isHeading } = await import("../../shared/minhash/paragraphs.ts");
    for (const h of ["CHAPTER I", "Chapter 12", "CHAPTER XLVII.", "PART ONE", "Part II", "BOOK THE FIRST", "XII.", "12", "END OF THE FIRST PART", "VOLUME III", "Chapter the Second"]) expect(isHeading(h), h).toBe(true);
    for (const p of ["A SHIFTING REEF", "JULES VERNE", "Yes, sir.", "CHAPTER I A SHIFTING REEF was the first.", "Part of the crew stayed."]) expect(isHeading(p), p).toBe(false);
  });
});
