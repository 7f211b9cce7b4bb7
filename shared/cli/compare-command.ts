/** `paracap compare <corpus…>`: the paper's Table 7 and characteristic maps for published corpora and our datasets. */
import { readFile } from "node:fs/promises";
import { parseCommandArgs } from "./parse-args.ts";
import { ConfigError, resolveConfig } from "../core/config.ts";
import { compareFiles, type ComparedCorpus } from "../compare/compare-corpora.ts";
import { CorpusFormatError, readCorpusBytes, skippedUnit } from "../compare/corpus-formats.ts";
import { MAP_LEVELS, TABLE_METRICS, type CorpusSummary } from "../compare/corpus-summary.ts";
import { METRIC_NAMES } from "../metrics/index.ts";
import { checkSemanticConfig, DELTA_SEM_SYN, SEMANTIC } from "../semantic/semantic-score.ts";
import { readConfigFile } from "./config-file.ts";
import { UserError } from "../core/errors.ts";

export type { ComparedCorpus };

export const COMPARE_USAGE = `paracap compare [--json] [--all] [--scorers <list>] [--config <file>] <corpus>…
  Table 7 of the paper (n, share judged paraphrase, length, ROUGE-1, ROUGE-L, BLEU, syntactic, each semantic
  score, semantic, Δsem,syn; μ and σ) and the 5×5 characteristic map per corpus. Corpora: MSRPC, PAWS, QQP (GLUE
  TSV), TaPaCo (<lang>.txt), paracap datasets (.jsonl, .jsonl.gz), and any table whose header names its two
  sentence columns (sentence1/sentence2, question1/question2, #1 String/#2 String, text_a/text_b, …) and its
  label (label, is_duplicate, Quality): TSV, CSV, JSON lines or Parquet (a Hugging Face download), gzipped or
  not; the format is detected from the content.
  --all              describe every pair (default: the pairs judged paraphrase, as Table 7)
  --scorers <list>   comma-separated scorers (default: syntactic,wordVectors)
  --config <file>    JSON config: scoring.semantic, scoring.paraphraseThreshold, scoring.vectors
  --json             one JSON array, one object per corpus, in argument order; each carries its map
                     and semantic scoring, so the file is \`paracap report <dir> --reference\` input`;

export async function compareCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("compare", {
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: "boolean", default: false },
      all: { type: "boolean", default: false },
      scorers: { type: "string", default: "syntactic,wordVectors" },
      config: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(COMPARE_USAGE + "\n");
    return 0;
  }
  if (positionals.length === 0) throw new UserError("usage: paracap compare [--json] <corpus>…");
  const fileConfig = values.config ? await readConfigFile(values.config) : {};
  const scorers = values.scorers.split(",").map((s) => s.trim()).filter((s) => s !== "");
  const config = resolveConfig(fileConfig, { scoring: { scorers } });
  if (!config.scoring.scorers.includes("syntactic")) throw new ConfigError("compare needs the syntactic scorer (Table 7's syntactic columns)");
  checkSemanticConfig(config);
  // read every file first: a missing file or an unknown format fails before minutes of scoring
  for (const file of positionals) {
    const bytes = await readFile(file).catch((e: NodeJS.ErrnoException) => {
      throw new UserError(e.code === "ENOENT" ? `no such file: ${file}` : e.code === "EISDIR" ? `${file} is a folder: name the corpus files in it` : `cannot read ${file}: ${e.code ?? e.message}`);
    });
    try {
      const corpus = await readCorpusBytes(bytes);
      // a file not in UTF-8 is read, and the user told how (a wrong guess shows in the pairs' text)
      if (corpus.encoding === "windows-1252") process.stderr.write(`paracap compare: ${file}: not UTF-8, read as windows-1252 (Latin-1 as browsers read it); save it as UTF-8 if it is another encoding\n`);
      if (corpus.encoding !== "utf-8" && corpus.encoding !== "windows-1252") process.stderr.write(`paracap compare: ${file}: read as ${corpus.encoding.toUpperCase()}\n`);
      if (corpus.skipped > 0) {
        const more = corpus.skipped > corpus.skippedLines.length ? ", …" : "";
        const unit = skippedUnit(corpus);
        process.stderr.write(`paracap compare: ${file}: ${corpus.skipped} ${unit}(s) not read as a pair (${unit}s ${corpus.skippedLines.join(", ")}${more})\n`);
      }
      if (corpus.scoreColumn) process.stderr.write(`paracap compare: ${file}: column "${corpus.scoreColumn}" holds graded scores, not paraphrase labels: the pairs are read unlabelled\n`);
    } catch (e) {
      if (e instanceof CorpusFormatError) throw new UserError(`${file}: ${e.message}`);
      throw e;
    }
  }
  const rows = await compareFiles(positionals, config, values.all ? "all" : "paraphrase");
  process.stdout.write(values.json ? JSON.stringify(rows) + "\n" : formatComparison(rows));
  return 0;
}

const SHORT: Record<string, string> = {
  rouge1F: "ROUGE-1", rougeLF: "ROUGE-L", bleu4: "BLEU", syntactic: "Syn", [SEMANTIC]: "Sem", [DELTA_SEM_SYN]: "Δsem,syn",
  wordMoverSimilarity: "WMS", vectorCosine: "VecCos", bertscoreF1: "BERT", embeddingCosine: "ST",
};
/** reported in --json, left out of the printed table (not Table 7 columns) */
const NOT_PRINTED = new Set(["vectorOov", "bertscoreP", "bertscoreR"]);

/** Table 7's columns for these corpora: ROUGE/BLEU/syntactic, the semantic metrics (Table 7's order first), semantic, Δ. */
export function tableColumns(rows: readonly CorpusSummary[]): string[] {
  const thesis = new Set<string>(METRIC_NAMES);
  const present = new Set(rows.flatMap((r) => Object.keys(r.metrics)));
  const head = ["rouge1F", "rougeLF", "bleu4", "syntactic"].filter((m) => present.has(m));
  const tail = [SEMANTIC, DELTA_SEM_SYN].filter((m) => present.has(m));
  const middle = [...present].filter((m) => !thesis.has(m) && !tail.includes(m) && !NOT_PRINTED.has(m));
  const rank = (m: string) => (TABLE_METRICS.includes(m) ? TABLE_METRICS.indexOf(m) : TABLE_METRICS.length);
  middle.sort((x, y) => rank(x) - rank(y) || (x < y ? -1 : 1));
  return [...head, ...middle, ...tail];
}

const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "–");

/** The plain-text Table 7 and one characteristic map per corpus. */
export function formatComparison(rows: readonly ComparedCorpus[]): string {
  const cols = tableColumns(rows);
  const header = ["corpus", "format", "n", "%", "len μ", "σ", ...cols.flatMap((c) => [`${SHORT[c] ?? c} μ`, "σ"])];
  const body = rows.map((r) => [
    r.name,
    r.format,
    String(r.n),
    r.paraphraseShare === null ? "–" : `${Math.round(r.paraphraseShare * 100)}%`,
    f2(r.length.mean),
    f2(r.length.sd),
    ...cols.flatMap((c) => (r.metrics[c] ? [f2(r.metrics[c].mean), f2(r.metrics[c].sd)] : ["–", "–"])),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  const out: string[] = [];
  out.push(`Table 7 (${rows.every((r) => r.subset === "paraphrase") ? "pairs judged paraphrase" : "all pairs"}; % = share of the corpus judged paraphrase)`);
  out.push(line(header), ...body.map(line), "");
  for (const r of rows) {
    const d = r.decision;
    out.push(`${r.name}: characteristic map, share of ${r.n} pairs (rows: syntactic level, columns: semantic level)` +
      (d ? `; verdict vs labels: P ${d.precision.toFixed(2)} R ${d.recall.toFixed(2)} F1 ${d.f1.toFixed(2)} (${d.positives}/${d.labelled} labelled paraphrase)` : ""));
    if (!r.map) {
      out.push(r.n === 0 ? "  (no pairs)" : "  (no semantic score: configure a semantic scorer)", "");
      continue;
    }
    out.push("         " + Array.from({ length: MAP_LEVELS }, (_, s) => `sem-${s}`.padStart(7)).join(""));
    for (let y = MAP_LEVELS - 1; y >= 0; y--) {
      out.push(`  syn-${y}  ` + r.map[y]!.map((v) => `${(v * 100).toFixed(1)}%`.padStart(7)).join(""));
    }
    out.push("");
  }
  return out.join("\n") + "\n";
}
