/**
 * Reads, scores and summarises corpus files: what `paracap compare` prints and what the shipped reference summaries
 * (MSRP train, PAWS dev: data/reference-corpora.json) were made with.
 */
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import type { ParacapConfig } from "../core/config.ts";
import { readCorpusBytes, type CorpusFormat } from "./corpus-formats.ts";
import { summarisePairs, type CorpusSummary } from "./corpus-summary.ts";
import { scoreCorpusPairs } from "./score-corpus.ts";
import { semanticScoring, type SemanticScoring } from "../semantic/semantic-score.ts";

export interface ComparedCorpus extends CorpusSummary {
  file: string;
  format: CorpusFormat;
  /** lines that were not a pair (counted, never silently lost) */
  skipped: number;
  /** the first few of those line numbers */
  skippedLines: number[];
  /** the map's semantic axis: the score's name and what its values depend on (null without a semantic score), so
   * that the row is a `paracap report --reference` entry whose comparability the report can check */
  semantic: string | null;
  scoring: SemanticScoring | null;
}

/** One summary per file, in order. Read errors and unknown formats throw (the CLI turns them into user errors). */
export async function compareFiles(files: readonly string[], config: ParacapConfig, subset: "paraphrase" | "all" = "paraphrase"): Promise<ComparedCorpus[]> {
  const out: ComparedCorpus[] = [];
  for (const file of files) {
    const corpus = await readCorpusBytes(await readFile(file), { maxChars: config.captions.maxChars });
    const pairs = await scoreCorpusPairs(corpus.pairs, config);
    const summary = summarisePairs(basename(file), pairs, { subset });
    const scoring = summary.map === null ? null : semanticScoring(config.scoring);
    out.push({ file, format: corpus.format, skipped: corpus.skipped, skippedLines: corpus.skippedLines, ...summary, semantic: scoring?.semantic ?? null, scoring });
  }
  return out;
}
