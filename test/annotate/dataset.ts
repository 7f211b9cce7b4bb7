/**
 * A dataset folder for the annotation tests: real MSRP train pairs with their real syntactic metrics
 * and a bag-of-words cosine as the semantic score (test/output/constructed-output.ts), gold gzipped as
 * the cloud writes it, silver plain; pair 7 carries an HTML injection in its caption and page.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { PublishedPair } from "../../shared/output/tier-dataset.ts";
import { semanticPairs } from "../output/constructed-output.ts";

export const jsonl = (pairs: PublishedPair[]) => pairs.map((p) => JSON.stringify(p) + "\n").join("");

export function annotationDataset(dir: string): { gold: PublishedPair[]; silver: PublishedPair[] } {
  const gold = semanticPairs("gold", 0, 180);
  const silver = semanticPairs("silver", 180, 300);
  writeFileSync(join(dir, "gold.jsonl.gz"), gzipSync(jsonl(gold)));
  writeFileSync(join(dir, "silver.jsonl"), jsonl(silver));
  return { gold, silver };
}
