/**
 * Output folders for the report tests. `semanticFolder` builds one the semantic scorers do not write
 * yet: real MSRP caption pairs (first 300 of train, test/fixtures/metrics) with their real syntactic
 * metrics, a bag-of-words cosine as the semantic score, `deltaSemSyn` = cosine − syntactic, a second
 * semantic-looking metric (Jaccard, listed first so the axis must be found through Δ) and MSRP's gold
 * label as the `paraphrase` decision, and a `paraphraseBy` field paracap does not know. One pair and one
 * dropped example carry an HTML/markdown injection (issue 9 item 5).
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { scorePair } from "../../shared/metrics/index.ts";
import type { Stats } from "../../shared/output/stats.ts";
import type { PublishedPair } from "../../shared/output/tier-dataset.ts";
import { fixturePairs } from "../metrics/msrp-pairs.ts";

export const EVIL_CAPTION = 'A caption with <img src=x onerror="alert(1)"> inside | a pipe\nand a second line';
export const EVIL_PAGE = "<script>alert(2)</script> Page";

const tokens = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

function bagOfWordsCosine(a: string, b: string): number {
  const count = (t: string[]) => t.reduce((m, w) => m.set(w, (m.get(w) ?? 0) + 1), new Map<string, number>());
  const x = count(tokens(a));
  const y = count(tokens(b));
  let dot = 0;
  for (const [w, n] of x) dot += n * (y.get(w) ?? 0);
  const norm = (m: Map<string, number>) => Math.sqrt([...m.values()].reduce((s, n) => s + n * n, 0));
  return dot === 0 ? 0 : dot / (norm(x) * norm(y));
}

function jaccard(a: string, b: string): number {
  const x = new Set(tokens(a));
  const y = new Set(tokens(b));
  const inter = [...x].filter((w) => y.has(w)).length;
  return inter / (x.size + y.size - inter || 1);
}

export function semanticPairs(tier: string, from: number, to: number): PublishedPair[] {
  return fixturePairs().slice(from, to).map(([label, a0, b], i) => {
    const a = from + i === 7 ? EVIL_CAPTION : a0;
    const syn = scorePair(a, b);
    const cos = bagOfWordsCosine(a, b);
    const side = (text: string, k: number) => ({ text, page: from + i === 7 && k === 0 ? EVIL_PAGE : `MSRP pair ${from + i + 1}`, pageId: 1000 + from + i, revisionId: 5_000_000_000 + from + i, ordinal: k, uses: 1 });
    return {
      id: `${tier}-${String(from + i).padStart(4, "0")}`,
      tier,
      image: `File:MSRP ${from + i + 1}.jpg`,
      type: "caption" as const,
      a: side(a, 0),
      b: side(b, 1),
      metrics: { jaccardWords: jaccard(a, b), ...syn, bagOfWordsCosine: cos, deltaSemSyn: cos - syn.syntactic },
      paraphrase: label,
      // the score and threshold the decision used: a nested field, exported as one JSON text column
      paraphraseBy: { score: "bagOfWordsCosine", threshold: 0.5 },
    };
  });
}

const jsonl = (pairs: PublishedPair[]) => pairs.map((p) => JSON.stringify(p) + "\n").join("");

/**
 * A folder with a real run's stats.json and config.json (from `runDir`) whose gold (gzip, as the cloud
 * writes it) and silver datasets are the constructed pairs; bronze is empty.
 */
export function semanticFolder(runDir: string, dir: string): { gold: PublishedPair[]; silver: PublishedPair[] } {
  const gold = semanticPairs("gold", 0, 180);
  const silver = semanticPairs("silver", 180, 300);
  cpSync(join(runDir, "config.json"), join(dir, "config.json"));
  const stats = JSON.parse(readFileSync(join(runDir, "stats.json"), "utf8")) as Stats;
  stats.tiers.gold!.pairs = gold.length;
  stats.tiers.silver!.pairs = silver.length;
  stats.tiers.bronze!.pairs = 0;
  // a dropped example is input text too
  const dropped = stats.tiers.gold!.funnel.find((r) => r.filter?.examples)!.filter!;
  const reason = Object.keys(dropped.examples!)[0]!;
  dropped.examples![reason]!.unshift(EVIL_CAPTION);
  writeFileSync(join(dir, "stats.json"), JSON.stringify(stats, null, 2));
  writeFileSync(join(dir, "gold.jsonl.gz"), gzipSync(jsonl(gold)));
  writeFileSync(join(dir, "silver.jsonl"), jsonl(silver));
  writeFileSync(join(dir, "bronze.jsonl"), "");
  return { gold, silver };
}
