import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { parquetWriteBuffer } from "hyparquet-writer";
import { describe, expect, it } from "vitest";
import { corpusText, CorpusFormatError, readCorpus, readCorpusBytes } from "../../shared/compare/corpus-formats.ts";

// The corpora as users also download them: re-published as CSV (Kaggle's Quora), JSON lines and Parquet (the
// Hugging Face Hub), or TSV in another column order (STS-B, PAWS-X). Built here from the shipped real corpora.
const fixture = (name: string) => readFileSync(new URL(`../fixtures/paraphrase/${name}`, import.meta.url));
const PAWS = readCorpus(fixture("paws-wiki-labeled-final-dev.tsv.gz")).pairs.slice(0, 40);
const QQP = readCorpus(fixture("qqp-glue-dev-first9.tsv")).pairs;
const MSRP = readCorpus(fixture("msr_paraphrase_train.txt.gz")).pairs.slice(0, 30);
const bytes = (s: string) => Buffer.from(s, "utf8");
const csvCell = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
const csv = (rows: unknown[][]) => rows.map((r) => r.map((c) => csvCell(String(c))).join(",")).join("\r\n") + "\r\n";
const parquet = (columns: Record<string, unknown[]>) =>
  new Uint8Array(parquetWriteBuffer({ columnData: Object.entries(columns).map(([name, data]) => ({ name, data })) }));

describe("corpora read by their header's column names", () => {
  it("Kaggle's Quora train.csv: quoted fields with commas, quotes and a line break inside a question", () => {
    const pairs = QQP.map((p, i) => (i === 2 ? { ...p, a: `${p.a}\nAnd "why", really?` } : p));
    const rows = [["id", "qid1", "qid2", "question1", "question2", "is_duplicate"], ...pairs.map((p, i) => [i, 2 * i + 1, 2 * i + 2, p.a, p.b, p.label ? 1 : 0])];
    const c = readCorpus(bytes(csv(rows)));
    expect(c).toMatchObject({ format: "qqp", table: "csv", skipped: 0 });
    expect(c.pairs).toEqual(pairs);
  });

  it("a Hugging Face PAWS export as JSON lines (plain and gzipped), in any key order", () => {
    const text = PAWS.map((p, i) => JSON.stringify(i % 2 ? { label: p.label ? 1 : 0, sentence2: p.b, sentence1: p.a, id: i + 1 } : { id: i + 1, sentence1: p.a, sentence2: p.b, label: p.label ? 1 : 0 })).join("\n");
    for (const b of [bytes(text), gzipSync(bytes(text))]) {
      const c = readCorpus(b);
      expect(c).toMatchObject({ format: "paws", table: "jsonl", skipped: 0 });
      expect(c.pairs).toEqual(PAWS);
    }
  });

  it("a Hub Parquet download (MRPC's sentence1/sentence2/label/idx) reads as its pairs", async () => {
    const file = parquet({ sentence1: MSRP.map((p) => p.a), sentence2: MSRP.map((p) => p.b), label: MSRP.map((p) => (p.label ? 1 : 0)), idx: MSRP.map((_, i) => i) });
    const c = await readCorpusBytes(file);
    expect(c).toMatchObject({ format: "pairs", table: "parquet", skipped: 0 });
    expect(c.pairs).toEqual(MSRP);
    expect(() => readCorpus(file)).toThrow(/Parquet/);
    // a file cut short: its footer is gone, a clear error
    await expect(readCorpusBytes(file.subarray(0, file.length - 20))).rejects.toThrow(CorpusFormatError);
  });

  it("STS-B's graded score is not a paraphrase label: the pairs are read unlabelled and the column named", async () => {
    const header = ["index", "genre", "filename", "year", "old_index", "source1", "source2", "sentence1", "sentence2", "score"];
    const tsv = [header, ...PAWS.map((p, i) => [i, "main-news", "2012", "2012test", i, "none", "none", p.a, p.b, ((i * 7) % 50) / 10])].map((r) => r.join("\t")).join("\n");
    const c = readCorpus(bytes(tsv));
    expect(c).toMatchObject({ format: "pairs", table: "tsv", skipped: 0, scoreColumn: "score" });
    expect(c.pairs).toEqual(PAWS.map((p) => ({ ...p, label: null })));
    // on the Hub the 0–5 score is a float column named `label`
    const hub = await readCorpusBytes(parquet({ sentence1: PAWS.map((p) => p.a), sentence2: PAWS.map((p) => p.b), label: PAWS.map((_, i) => ((i * 7) % 50) / 10), idx: PAWS.map((_, i) => i) }));
    expect(hub).toMatchObject({ scoreColumn: "label", skipped: 0 });
    expect(hub.pairs.every((p) => p.label === null)).toBe(true);
  });

  it("TaPaCo as the Hub publishes it (CSV): every unordered pair within a paraphrase set", () => {
    const [a, b, c] = [PAWS[0]!.a, PAWS[0]!.b, PAWS[1]!.a];
    const rows = [["paraphrase_set_id", "sentence_id", "paraphrase", "lists", "tags", "language"], [7, 1, a, "", "", "en"], [7, 2, b, "", "", "en"], [7, 3, c, "", "", "en"], [8, 4, a, "", "", "en"]];
    const corpus = readCorpus(bytes(csv(rows)));
    expect(corpus).toMatchObject({ format: "tapaco", table: "csv" });
    expect(corpus.pairs).toEqual([{ a, b, label: true }, { a, b: c, label: true }, { a: b, b: c, label: true }]);
  });

  it("GLUE's unlabelled test rows (-1, or an empty label) are pairs without a label; a row whose label is no label is skipped", () => {
    const rows = [["sentence1", "sentence2", "label"], [PAWS[0]!.a, PAWS[0]!.b, -1], [PAWS[1]!.a, PAWS[1]!.b, ""], [PAWS[2]!.a, PAWS[2]!.b, "maybe"], [PAWS[3]!.a, PAWS[3]!.b, 1]];
    const c = readCorpus(bytes(csv(rows)));
    expect(c.pairs.map((p) => p.label)).toEqual([null, null, true]);
    expect(c).toMatchObject({ skipped: 1, skippedLines: [4] });
  });

  it("damage is a counted skip with its number: an unterminated quote, a line that is not JSON, a missing sentence", () => {
    const rows = csv([["question1", "question2", "is_duplicate"], [QQP[0]!.a, QQP[0]!.b, 0], [QQP[1]!.a, "", 1]]) + `"${QQP[2]!.a},${QQP[2]!.b},1\r\n`;
    const c = readCorpus(bytes(rows));
    expect(c.pairs).toEqual([QQP[0]]);
    expect(c.skippedLines).toEqual([3, 4]);
    const jsonl = [JSON.stringify({ text_a: PAWS[0]!.a, text_b: PAWS[0]!.b }), "{not json", JSON.stringify([1, 2]), JSON.stringify({ text_a: PAWS[1]!.a })].join("\n");
    const j = readCorpus(bytes(jsonl));
    expect(j.pairs).toEqual([{ a: PAWS[0]!.a, b: PAWS[0]!.b, label: null }]);
    expect(j.skippedLines).toEqual([2, 3, 4]);
  });

  it("a table whose columns name no sentence pair is refused with the names it has and those it knows", async () => {
    expect(() => readCorpus(bytes(JSON.stringify({ premise: "x", hypothesis: "y" }) + "\n"))).toThrow(/keys: premise, hypothesis.*sentence1\/sentence2/);
    expect(() => readCorpus(bytes("url,caption\nhttp://x,a dog\n"))).toThrow(CorpusFormatError);
    await expect(readCorpusBytes(parquet({ url: ["http://x"], caption: ["a dog"] }))).rejects.toThrow(/columns: url, caption/);
  });

  it("the shipped TSVs read through their headers give what they gave before", () => {
    const headed = "id\tsentence1\tsentence2\tlabel\n" + corpusText(fixture("paws-wiki-labeled-final-dev.tsv.gz")).split("\n").slice(0, 40).join("\n");
    const c = readCorpus(bytes(headed));
    expect(c).toMatchObject({ format: "paws", table: "tsv", skipped: 0 });
    expect(c.pairs).toEqual(PAWS);
  });
});
