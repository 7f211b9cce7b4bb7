/**
 * `paracap compare` as a user runs it, on the published MSRP train and PAWS dev files (gzipped fixtures, detected by
 * content): the paper's qualitative ordering (Table 7: PAWS has the highest syntactic similarity and the lowest
 * Δsem,syn; MSRPC a higher Δ than PAWS), the JSON shape, the printed tables, user errors.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatComparison, tableColumns, type ComparedCorpus } from "../../shared/cli/compare-command.ts";
import { MAP_LEVELS } from "../../shared/compare/corpus-summary.ts";
import { referenceCorpora } from "../../shared/compare/reference-corpora.ts";
import { resolveConfig } from "../../shared/core/config.ts";
import { semanticScoring, shippedThresholds } from "../../shared/semantic/semantic-score.ts";
import { removeTempDirs, REPO, run, runCli, tempDir } from "../runner/helpers.ts";
import { sampleRunCopy } from "../support/sample-run.ts";

const FIX = join(REPO, "test/fixtures/paraphrase");
const MSRP = join(FIX, "msr_paraphrase_train.txt.gz");
const PAWS = join(FIX, "paws-wiki-labeled-final-dev.tsv.gz");
const QQP = join(FIX, "qqp-glue-dev-first9.tsv");

const cli = (args: string[]) => runCli(args);

let rows: ComparedCorpus[];
/** `compare --json --all` of MSRP train and PAWS dev, as printed */
let allJson: string;
beforeAll(async () => {
  const r = await cli(["compare", "--json", MSRP, PAWS, QQP]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  rows = JSON.parse(r.stdout) as ComparedCorpus[];
  const all = await cli(["compare", "--json", "--all", MSRP, PAWS]);
  expect(all.code).toBe(0);
  allJson = all.stdout;
});
afterAll(removeTempDirs);

describe("paracap compare", () => {
  it("prints one JSON object per corpus, in argument order, with its detected format", () => {
    expect(rows.map((r) => [r.name, r.format, r.pairs])).toEqual([
      ["msr_paraphrase_train.txt.gz", "msrp", 4076],
      ["paws-wiki-labeled-final-dev.tsv.gz", "paws", 8000],
      ["qqp-glue-dev-first9.tsv", "qqp", 9],
    ]);
    for (const r of rows) {
      expect(r.subset).toBe("paraphrase");
      expect(r.n).toBe(Math.round(r.paraphraseShare! * r.pairs));
      for (const m of ["rouge1F", "rougeLF", "bleu4", "syntactic", "vectorCosine", "wordMoverSimilarity", "semantic", "deltaSemSyn"]) {
        expect(r.metrics[m]!.mean).toBeTypeOf("number");
        expect(r.metrics[m]!.sd).toBeGreaterThanOrEqual(0);
      }
      // Δ is the mean of semantic − syntactic, so its mean is the difference of the means
      expect(r.metrics.deltaSemSyn!.mean).toBeCloseTo(r.metrics.semantic!.mean - r.metrics.syntactic!.mean, 10);
      expect(r.map).toHaveLength(MAP_LEVELS);
      expect(r.map!.flat().reduce((s, v) => s + v, 0)).toBeCloseTo(1, 10);
    }
  });

  it("reproduces the paper's ordering: PAWS most syntactically similar with the lowest Δsem,syn; MSRPC's Δ above PAWS's", () => {
    const [msrp, paws] = rows;
    expect(paws!.metrics.syntactic!.mean).toBeGreaterThan(msrp!.metrics.syntactic!.mean + 0.1);
    expect(paws!.metrics.rouge1F!.mean).toBeGreaterThan(0.9); // Table 7: 0.94 (σ 0.03)
    expect(msrp!.metrics.deltaSemSyn!.mean).toBeGreaterThan(paws!.metrics.deltaSemSyn!.mean);
    // syntactic columns near the paper's (MSRPC 0.73/0.69/0.54/0.65, PAWS 0.94/0.79/0.69/0.81)
    expect(msrp!.metrics.syntactic!.mean).toBeCloseTo(0.65, 1);
    expect(paws!.metrics.syntactic!.mean).toBeCloseTo(0.81, 1);
  });

  it("checks its verdict against the corpus labels: on MSRP train it is the shipped calibration", () => {
    const calibrated = shippedThresholds().thresholds["mean(vectorCosine,wordMoverSimilarity)"]!;
    expect(rows[0]!.decision!.precision).toBeCloseTo(calibrated.precision, 5);
    expect(rows[0]!.decision!.recall).toBeCloseTo(calibrated.recall, 5);
    expect(rows[0]!.decision!.labelled).toBe(4076);
  });

  it("equals the shipped reference summaries of MSRP train and PAWS dev, both subsets (scripts/reference-corpora.ts)", () => {
    const shipped = referenceCorpora();
    const fresh = { paraphrase: rows, all: JSON.parse(allJson) as ComparedCorpus[] };
    for (const subset of ["paraphrase", "all"] as const) {
      expect(shipped[subset].map((r) => r.name)).toEqual([fresh[subset][0]!.name, fresh[subset][1]!.name]);
      shipped[subset].forEach((ref, i) => {
        const got = fresh[subset][i]!;
        expect([ref.pairs, ref.n, ref.format, ref.subset]).toEqual([got.pairs, got.n, got.format, got.subset]);
        for (const [m, v] of Object.entries(ref.metrics)) expect(v.mean).toBeCloseTo(got.metrics[m]!.mean, 5);
        ref.map!.forEach((row, y) => row.forEach((v, x) => expect(v).toBeCloseTo(got.map![y]![x]!, 5)));
        // the semantic axis the report checks before drawing them next to a run's maps
        expect(ref.scoring).toEqual(got.scoring);
      });
    }
    // made with the default scoring, so a default run's report draws them
    expect(shipped.all[0]!.scoring).toEqual(semanticScoring(resolveConfig({}).scoring));
    expect(shipped.scoring.threshold).toBe(shippedThresholds().thresholds[shipped.all[0]!.semantic!]!.threshold);
  });

  it("its --json rows are `paracap report --reference` input: compare X --json > r.json && paracap report out --reference r.json", async () => {
    const out = await sampleRunCopy("paracap-compare-report-");
    const refs = join(tempDir("paracap-compare-refs-"), "r.json");
    writeFileSync(refs, allJson);
    const r = await cli(["report", out, "--reference", refs]);
    expect(r.stderr).toMatch(/^paracap report: wrote .*report\.html/);
    expect(r.code).toBe(0);
    const html = readFileSync(join(out, "report.html"), "utf8");
    // the rows' maps are drawn after the shipped ones, and their semantic axis is ours: no mismatch note
    expect(html).toMatch(/Characteristic maps: gold \(n = 1\), silver \(n = 1\), MSRPC train \(all pairs\) \(n = 4,076\), PAWS dev \(all pairs\) \(n = 8,000\), msr_paraphrase_train\.txt\.gz \(n = 4,076\), paws-wiki-labeled-final-dev\.tsv\.gz \(n = 8,000\)</);
    expect(html).not.toContain("different semantic score");
    // rows scored otherwise (all word vectors) are drawn with the reason they do not compare cell by cell
    const other = join(tempDir("paracap-compare-refs-"), "other.json");
    writeFileSync(other, JSON.stringify((JSON.parse(allJson) as ComparedCorpus[]).map((row) => ({ ...row, scoring: { ...row.scoring, vectors: { maxWords: null } } }))));
    expect((await cli(["report", out, "--reference", other])).code).toBe(0);
    expect(readFileSync(join(out, "report.html"), "utf8")).toContain("Reference maps on a different semantic score, not comparable cell by cell: msr_paraphrase_train.txt.gz (the 100,000 most frequent word vectors here, all word vectors there)");
  });

  it("prints Table 7 and a 5×5 map per corpus", () => {
    const text = formatComparison(rows);
    const lines = text.split("\n");
    expect(lines[1]).toMatch(/^corpus\s+format\s+n\s+%\s+len μ\s+σ\s+ROUGE-1 μ\s+σ\s+ROUGE-L μ\s+σ\s+BLEU μ\s+σ\s+Syn μ\s+σ\s+WMS μ\s+σ\s+VecCos μ\s+σ\s+Sem μ\s+σ\s+Δsem,syn μ\s+σ$/);
    expect(lines[2]).toMatch(/^msr_paraphrase_train\.txt\.gz\s+msrp\s+\d+\s+\d+%/);
    expect(text.match(/characteristic map/g)).toHaveLength(3);
    expect(text).toMatch(/sem-0 +sem-1 +sem-2 +sem-3 +sem-4\n {2}syn-4 /);
  });

  it("prints a corpus without semantic scores or without pairs with a note instead of a map", () => {
    const plain: ComparedCorpus = { ...rows[2]!, name: "syntactic-only", map: null, paraphraseShare: null, subset: "all" };
    const empty: ComparedCorpus = { ...rows[2]!, name: "empty", format: "empty", map: null, n: 0, pairs: 0 };
    const text = formatComparison([plain, empty]);
    expect(text).toMatch(/^Table 7 \(all pairs;/);
    expect(text).toContain("syntactic-only: characteristic map, share of 5 pairs");
    expect(text).toContain("(no semantic score: configure a semantic scorer)");
    expect(text).toContain("(no pairs)");
  });

  it("a missing file or an unknown format is a one-line user error", async () => {
    const missing = await cli(["compare", join(FIX, "nope.tsv")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no such file/);
    // a folder (the paraphrase corpora's) is named as one, with what to give instead, not as EISDIR
    const folder = await cli(["compare", FIX]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toBe(`paracap compare: ${FIX} is a folder: name the corpus files in it\n`);
    const unknown = await cli(["compare", join(FIX, "PROVENANCE.md")]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown corpus format/);
    expect(unknown.stderr.trimEnd().split("\n")).toHaveLength(1);
    const noSyntactic = await cli(["compare", "--scorers", "wordVectors", QQP]);
    expect(noSyntactic.code).toBe(2);
    expect(noSyntactic.stderr).toMatch(/compare needs the syntactic scorer/);
  });
});

describe("tableColumns", () => {
  it("orders Table 7's columns as the paper (WMS, BERT, ST) whatever scorers ran, and leaves out non-scores", () => {
    const metrics = Object.fromEntries(["embeddingCosine", "syntactic", "bertscoreR", "deltaSemSyn", "zeta", "vectorOov", "semantic", "bertscoreF1", "rouge1F", "wordMoverSimilarity", "levenshtein"].map((m) => [m, { mean: 0, sd: 0 }]));
    expect(tableColumns([{ metrics } as unknown as ComparedCorpus])).toEqual(["rouge1F", "syntactic", "wordMoverSimilarity", "bertscoreF1", "embeddingCosine", "zeta", "semantic", "deltaSemSyn"]);
  });
});
