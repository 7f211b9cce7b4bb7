/**
 * Recomputes shared/compare/data/reference-corpora.json: `paracap compare` summaries (pairs judged paraphrase, and all
 * pairs) of MSRP train and PAWS dev (test/fixtures/paraphrase) with the default offline scoring.
 *
 *   npx tsx scripts/reference-corpora.ts
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { resolveConfig } from "../shared/core/config.ts";
import { compareFiles } from "../shared/compare/compare-corpora.ts";
import { REFERENCE_CORPORA_URL, ReferenceCorpora } from "../shared/compare/reference-corpora.ts";
import { semanticScoreName, shippedThresholds } from "../shared/semantic/semantic-score.ts";

/** file → the name the report shows */
const CORPORA: Record<string, string> = { "msr_paraphrase_train.txt.gz": "MSRPC train", "paws-wiki-labeled-final-dev.tsv.gz": "PAWS dev" };
const FILES = Object.keys(CORPORA).map((f) => fileURLToPath(new URL(`../test/fixtures/paraphrase/${f}`, import.meta.url)));
const config = resolveConfig({ scoring: { scorers: ["syntactic", "wordVectors"] } });
const relative = <T extends { file: string; name: string }>(rows: T[]) => rows.map((r) => ({ ...r, corpus: CORPORA[r.name]!, file: `test/fixtures/paraphrase/${r.file.split("/").pop()}` }));
const out = {
  scoring: {
    scorers: config.scoring.scorers,
    semantic: config.scoring.semantic,
    threshold: shippedThresholds().thresholds[semanticScoreName(config.scoring.semantic)]!.threshold,
    vectors: config.scoring.vectors,
  },
  paraphrase: relative(await compareFiles(FILES, config, "paraphrase")),
  all: relative(await compareFiles(FILES, config, "all")),
};
const round = (_k: string, v: unknown) => (typeof v === "number" && !Number.isInteger(v) ? Math.round(v * 1e6) / 1e6 : v);
writeFileSync(REFERENCE_CORPORA_URL, JSON.stringify(ReferenceCorpora.parse(JSON.parse(JSON.stringify(out, round))), null, 1) + "\n");
console.log(`wrote ${fileURLToPath(REFERENCE_CORPORA_URL)}`);
