/**
 * Reads, scores and summarises corpus files: what `paracap compare` prints and what the shipped reference summaries
 * (MSRP train, PAWS dev: data/reference-corpora.json) were made with.
 */
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import type { ParacapConfig } from "../core/config.ts";
import { readCorpus, type CorpusFormat } from "./corpus-formats.ts";
import { summarisePairs, type CorpusSummary } from "./corpus-summary.ts";
import { scoreCorpusPairs } from "./score-corpus.ts";

export interface ComparedCorpus extends CorpusSummary {
  file: string;
  format: CorpusFormat;
  /** lines that were not a pair (counted, never silently lost) */
  skipped: number;
  /** the first few of those line numbers */
  skippedLines: number[];
}

/** One summary per file, in order. Read errors and unknown formats throw (the CLI turns them into user errors). */
export async function compareFiles(files: readonly string[], config: ParacapConfig, subset: "paraphrase" | "all" = "paraphrase"): Promise<ComparedCorpus[]> {
  const out: ComparedCorpus[] = [];
  for (const file of files) {
    const corpus = readCorpus(await readFile(file));
    const pairs = await scoreCorpusPairs(corpus.pairs, config);
    out.push({ file, format: corpus.format, skipped: corpus.skipped, skippedLines: corpus.skippedLines, ...summarisePairs(basename(file), pairs, { subset }) });
  }
  return out;
}
