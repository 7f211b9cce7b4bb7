/**
 * `paracap score` reads the paraphrase corpora as researchers download them, not only
 * caption1<TAB>caption2: MSRPC with its header (and BOM), PAWS without one, GLUE's QQP, Kaggle's
 * Quora CSV (a quoted question holding a line break and a comma), a Hugging Face `to_json` export and
 * paracap's own tier lines. Each gives the metrics the same pairs give as plain caption pairs, one
 * output line per record. Called in process (the parsing is under test, not the process).
 */
import { readFileSync } from "node:fs";
import { Readable } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { scoreCommand } from "../../shared/cli/tool-commands.ts";
import { UserError } from "../../shared/core/errors.ts";

const DATA = new URL("../../../shared/data/paraphrase/", import.meta.url).pathname;
const lines = (file: string) => readFileSync(DATA + file, "utf8").replace(/^\uFEFF/, "").split(/\r?\n/).filter((l) => l !== "");
const MSRP = lines("msr_paraphrase_train.txt").slice(0, 3);
const PAWS = lines("paws-wiki-labeled-final-dev.tsv").slice(0, 3);
const QQP = lines("qqp-glue-dev-first9.tsv"); // header + 9

async function score(stdin: string | Buffer, args: string[] = []): Promise<{ out: unknown[]; err: string }> {
  let stdout = "";
  let stderr = "";
  const o = vi.spyOn(process.stdout, "write").mockImplementation((c) => ((stdout += String(c)), true));
  const e = vi.spyOn(process.stderr, "write").mockImplementation((c) => ((stderr += String(c)), true));
  try {
    const bytes = typeof stdin === "string" ? Buffer.from(stdin, "utf8") : stdin;
    // in small chunks, as a pipe delivers them: the gzip and Parquet marks may come cut
    const chunks = Array.from({ length: Math.ceil(bytes.length / 3) }, (_, i) => bytes.subarray(i * 3, i * 3 + 3));
    await scoreCommand(["--scorers", "syntactic", ...args], Readable.from(chunks));
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
  return { out: stdout.trimEnd().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l)), err: stderr };
}

/** The metrics of the same pairs given as caption1<TAB>caption2. */
async function plain(pairs: [string, string][]): Promise<unknown[]> {
  return (await score(pairs.map((p) => p.join("\t")).join("\n") + "\n")).out;
}

describe("score reads the published corpora's layouts", () => {
  it("MSRPC with its header and BOM, and without; PAWS without a header and with one; QQP as GLUE ships it", async () => {
    const msrpPairs = MSRP.map((l) => l.split("\t")).map((f) => [f[3]!, f[4]!] as [string, string]);
    const expected = await plain(msrpPairs);
    expect(expected).toHaveLength(3);
    const headed = await score("\uFEFFQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\r\n" + MSRP.join("\r\n") + "\r\n");
    expect(headed.out).toEqual(expected);
    expect(headed.err).toContain("#1 String and #2 String");
    expect((await score(MSRP.join("\n") + "\n")).out).toEqual(expected);

    const pawsPairs = PAWS.map((l) => l.split("\t")).map((f) => [f[1]!, f[2]!] as [string, string]);
    const pawsExpected = await plain(pawsPairs);
    expect((await score(PAWS.join("\n") + "\n")).out).toEqual(pawsExpected);
    expect((await score("id\tsentence1\tsentence2\tlabel\n" + PAWS.join("\n") + "\n")).out).toEqual(pawsExpected);

    const qqpPairs = QQP.slice(1).map((l) => l.split("\t")).map((f) => [f[3]!, f[4]!] as [string, string]);
    expect((await score(QQP.join("\n") + "\n")).out).toEqual(await plain(qqpPairs));
  });

  it("Kaggle's Quora CSV: a quoted question over two lines is one record, one output line", async () => {
    const rows = QQP.slice(1, 4).map((l) => l.split("\t"));
    const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
    // the first question gets a line break inside its quotes, as Quora's train.csv has
    rows[0]![3] = rows[0]![3]!.replace(" ", "\n");
    const csv = '"id","qid1","qid2","question1","question2","is_duplicate"\n' + rows.map((f) => [f[0], f[1], f[2], q(f[3]!), q(f[4]!), f[5]].join(",")).join("\n") + "\n";
    const r = await score(csv);
    // the line break is a space to the tokenizer: the plain pair without it scores alike
    expect(r.out).toEqual(await plain(rows.map((f) => [f[3]!.replace("\n", " "), f[4]!])));
    expect(r.err).toContain("question1 and question2");
  });

  it("JSON lines: a Hugging Face export and paracap's own tier lines", async () => {
    const pairs = PAWS.map((l) => l.split("\t")).map((f) => [f[1]!, f[2]!] as [string, string]);
    const expected = await plain(pairs);
    const hf = pairs.map(([a, b], i) => JSON.stringify({ id: i + 1, sentence1: a, sentence2: b, label: 1 })).join("\n") + "\n";
    expect((await score(hf)).out).toEqual(expected);
    const tier = pairs.map(([a, b], i) => JSON.stringify({ id: `p${i}`, a: { text: a, image: "x" }, b: { text: b, image: "x" } })).join("\n") + "\n";
    expect((await score(tier)).out).toEqual(expected);
  });

  it("gzipped stdin (train.jsonl.gz, dev.tsv.gz) is read through; a Parquet or zip file on stdin says what reads it", async () => {
    const { gzipSync } = await import("node:zlib");
    const text = "id\tsentence1\tsentence2\tlabel\n" + PAWS.join("\n") + "\n";
    expect((await score(gzipSync(Buffer.from(text)))).out).toEqual((await score(text)).out);
    const parquet = Buffer.concat([Buffer.from("PAR1"), Buffer.alloc(16), Buffer.from("PAR1")]);
    await expect(score(parquet)).rejects.toThrow(/stdin is a Parquet file: .*paracap compare/);
    await expect(score(Buffer.from("PK\x03\x04rest", "latin1"))).rejects.toThrow(/stdin is a zip archive/);
  });

  it("a line that fits no layout says which layouts are read; --skip-bad answers it in its place", async () => {
    await expect(score("a\tb\tc\n")).rejects.toThrow(UserError);
    await expect(score("a\tb\tc\n")).rejects.toThrow(/sentence1\/sentence2, question1\/question2/);
    await expect(score('{"text": "a dog"}\n')).rejects.toThrow(/keys: text/);
    const csv = '"id","question1","question2"\n1,"a dog runs","a dog is running"\n2,"only one"\n3,"a cat sleeps","a cat is asleep"\n';
    const r = await score(csv, ["--skip-bad"]);
    expect(r.out).toHaveLength(3);
    expect(r.out[1]).toEqual({ skipped: "not_a_pair" });
    expect(r.err).toContain("3 records, 2 scored, 1 skipped: 1 not_a_pair (first: line 3)");
  });
});
