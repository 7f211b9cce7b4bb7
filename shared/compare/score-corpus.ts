/** Scores a corpus's pairs with the configured scorers, then adds the semantic score, Δsem,syn and the verdict. */
import type { ParacapConfig } from "../core/config.ts";
import { createScorers, type ScorerCache } from "../plugins/scorers.ts";
import { semanticVerdict } from "../semantic/semantic-score.ts";
import type { LabelledPair } from "./corpus-formats.ts";
import type { SummaryPair } from "./corpus-summary.ts";

const BATCH = 256;

export async function scoreCorpusPairs(pairs: readonly LabelledPair[], config: ParacapConfig, cache?: ScorerCache): Promise<SummaryPair[]> {
  const score = await createScorers(config, cache);
  const verdict = semanticVerdict(config);
  const out: SummaryPair[] = [];
  for (let i = 0; i < pairs.length; i += BATCH) {
    const batch = pairs.slice(i, i + BATCH);
    const metrics = await score(batch.map((p) => [p.a, p.b] as const));
    batch.forEach((p, j) => out.push({ a: p.a, b: p.b, label: p.label, ...verdict(metrics[j]!) }));
  }
  return out;
}
