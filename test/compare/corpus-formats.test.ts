import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { corpusText, CorpusFormatError, detectFormat, readCorpus } from "../../shared/compare/corpus-formats.ts";
import { fixturePairs } from "../metrics/msrp-pairs.ts";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/paraphrase/${name}`, import.meta.url));
const MSRP = fixture("msr_paraphrase_train.txt.gz");
const PAWS = fixture("paws-wiki-labeled-final-dev.tsv.gz");
const QQP = fixture("qqp-glue-dev-first9.tsv");
const bytes = (s: string) => Buffer.from(s, "utf8");

describe("readCorpus", () => {
  it("reads MSRP train (gzip, BOM, no header) with quoting disabled: all 4,076 pairs, quotes kept", () => {
    const c = readCorpus(MSRP);
    expect(c.format).toBe("msrp");
    expect(c.pairs).toHaveLength(4076);
    expect(c.pairs.filter((p) => p.label)).toHaveLength(2753);
    expect(c.skipped).toBe(0);
    expect(c.pairs[0]).toEqual({
      a: 'Amrozi accused his brother, whom he called "the witness", of deliberately distorting his evidence.',
      b: 'Referring to him as only "the witness", Amrozi accused his brother of deliberately distorting his evidence.',
      label: true,
    });
  });

  it("reads MSRP with the header the official download has", () => {
    const text = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\r\n" + corpusText(MSRP).split("\n").slice(0, 3).join("\r\n");
    const c = readCorpus(bytes(text));
    expect(c.format).toBe("msrp");
    expect(c.pairs).toHaveLength(3);
    expect(c.pairs[1]!.label).toBe(false);
  });

  it("reads PAWS dev (CRLF, header removed upstream) and with its header", () => {
    const c = readCorpus(PAWS);
    expect(c.format).toBe("paws");
    expect(c.pairs).toHaveLength(8000);
    expect(c.pairs.filter((p) => p.label)).toHaveLength(3539);
    expect(c.pairs[1]).toEqual({ a: "They were there to enjoy us and they were there to pray for us .", b: "They were there for us to enjoy and they were there for us to pray .", label: true });
    const headed = readCorpus(bytes("id\tsentence1\tsentence2\tlabel\r\n" + corpusText(PAWS).split("\n").slice(0, 2).join("\n")));
    expect(headed.format).toBe("paws");
    expect(headed.pairs).toHaveLength(2);
  });

  it("reads QQP's GLUE TSV by its header, and GLUE's unlabelled test layout", () => {
    const c = readCorpus(QQP);
    expect(c.format).toBe("qqp");
    expect(c.pairs).toHaveLength(9);
    expect(c.pairs.filter((p) => p.label)).toHaveLength(4);
    expect(c.pairs[0]).toEqual({ a: "Why are African-Americans so beautiful?", b: "Why are hispanics so beautiful?", label: false });
    const test = readCorpus(bytes("id\tquestion1\tquestion2\n0\tHow do I learn?\tWhat is the way to learn?\n"));
    expect(test.pairs).toEqual([{ a: "How do I learn?", b: "What is the way to learn?", label: null }]);
  });

  it("reads TaPaCo's layout: every unordered pair within a paraphrase set", () => {
    const [, a, b] = fixturePairs()[0]!;
    const [, c] = fixturePairs()[1]!;
    const text = [`1\t11\t${a}\tlist1\ttag`, `1\t12\t${b}`, `1\t13\t${c}\t\t`, `2\t21\t${c}`].join("\n");
    expect(detectFormat(text)).toBe("tapaco");
    const corpus = readCorpus(bytes(text));
    expect(corpus.pairs).toEqual([
      { a, b, label: true },
      { a, b: c, label: true },
      { a: b, b: c, label: true },
    ]);
  });

  it("reads paracap datasets (.jsonl and .jsonl.gz) and counts lines that are not pairs", () => {
    const line = JSON.stringify({ id: "x", tier: "gold", a: { text: "A dog runs." }, b: { text: "A dog is running." }, metrics: {} });
    const text = `${line}\nnot json\n{"a":{}}\n`;
    for (const b of [bytes(text), gzipSync(bytes(text))]) {
      const c = readCorpus(b);
      expect(c.format).toBe("paracap");
      expect(c.pairs).toEqual([{ a: "A dog runs.", b: "A dog is running.", label: null }]);
      expect(c.skipped).toBe(2);
      expect(c.skippedLines).toEqual([2, 3]);
    }
  });

  it("counts a malformed row as skipped instead of misreading it", () => {
    const lines = corpusText(PAWS).split("\n").slice(0, 5);
    lines[2] = "3\tonly one sentence\t1";
    const c = readCorpus(bytes(lines.join("\n")), "paws");
    expect(c.pairs).toHaveLength(4);
    expect(c.skippedLines).toEqual([3]);
  });

  it("detects the format with a stray row among the first lines, or lines of several kilobytes", () => {
    const lines = corpusText(PAWS).split("\n").slice(0, 30);
    lines[4] = "5\ta sentence with\ta tab inside\tthe second\t0";
    const stray = readCorpus(bytes(lines.join("\n")));
    expect(stray.format).toBe("paws");
    expect(stray.skippedLines).toEqual([5]);
    // 30 rows of ~4 KB each: far past the first 64 KiB before the 20th line
    const long = corpusText(PAWS).split("\n").slice(0, 30).map((l) => {
      const c = l.split("\t");
      return [c[0], `${c[1]} ${"and so on ".repeat(200)}`, `${c[2]} ${"and so on ".repeat(200)}`, c[3]].join("\t");
    });
    const read = readCorpus(bytes(long.join("\n")));
    expect(read.format).toBe("paws");
    expect(read.pairs).toHaveLength(30);
    // but a file most of whose rows fit nothing is still refused
    expect(() => detectFormat(["1\ta\tb\t0", "x", "y", "z", "w"].join("\n"))).toThrow(CorpusFormatError);
  });

  it("a pair with a sentence over maxChars is a skipped line (scoring cost is bounded as in a run)", () => {
    const lines = corpusText(PAWS).split("\n").slice(0, 5);
    const c = lines[3]!.split("\t");
    lines[3] = [c[0], `${c[1]} ${"long ".repeat(100_000)}`, c[2], c[3]].join("\t");
    const read = readCorpus(bytes(lines.join("\n")), undefined, { maxChars: 5000 });
    expect(read.pairs).toHaveLength(4);
    expect(read.skippedLines).toEqual([4]);
    expect(readCorpus(bytes(lines.join("\n"))).pairs).toHaveLength(5);
  });

  it("names what it expected for an unknown format", () => {
    expect(() => readCorpus(bytes("hello world\nsecond line\n"))).toThrow(CorpusFormatError);
    expect(() => readCorpus(bytes("hello world\n"))).toThrow(/MSRPC, PAWS, QQP, TaPaCo, paracap JSONL, or a table .* whose header names its two sentence columns/);
  });

  it("reads an empty file (a tier without pairs) as a corpus of no pairs", () => {
    expect(readCorpus(bytes("\n\n"))).toEqual({ format: "empty", encoding: "utf-8", pairs: [], skipped: 0, skippedLines: [] });
    expect(readCorpus(gzipSync(bytes(""))).pairs).toEqual([]);
  });
});
