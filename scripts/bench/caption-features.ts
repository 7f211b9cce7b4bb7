/**
 * Caption feature throughput: createCaptionAnalyzer().features() on real captions (Conceptual Captions
 * validation lines + Wikipedia image captions from the enwiki sample fixture), against plain wink-nlp
 * `readDoc(text).tokens().out(its.pos)` on the same captions in the same run.
 *
 *   npx tsx scripts/bench/caption-features.ts
 */
import { readFileSync } from "node:fs";
import winkNLP from "wink-nlp";
import model from "wink-eng-lite-web-model";
import { createCaptionAnalyzer } from "../../shared/caption/analyzer.ts";

const CC = "/work/shared/data/conceptual-captions/gcc-validation-part1-lines00001-07900.tsv";
const LABELS = new URL("../../test/fixtures/caption/sentence-labels.tsv", import.meta.url).pathname;

const cc = readFileSync(CC, "utf8").split("\n").filter((l) => l !== "").map((l) => l.split("\t")[0]!);
const wiki = readFileSync(LABELS, "utf8").split("\n").slice(1).filter((l) => l.includes("enwiki")).map((l) => l.split("\t")[1]!);
const captions = [...cc, ...wiki];

function rate(fn: (t: string) => unknown, rounds = 3): number {
  for (const t of captions.slice(0, 1000)) fn(t); // warm-up
  let best = 0;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (const t of captions) fn(t);
    best = Math.max(best, captions.length / ((performance.now() - t0) / 1000));
  }
  return best;
}

const nlp = winkNLP(model);
const its = nlp.its;
const baseline = rate((t) => nlp.readDoc(t).tokens().out(its.pos));
const analyzer = createCaptionAnalyzer();
const features = rate((t) => analyzer.features(t));
const paper = createCaptionAnalyzer({ classifier: "paper" });
const featuresPaper = rate((t) => paper.features(t));

console.log(`captions: ${captions.length} (${cc.length} Conceptual Captions, ${wiki.length} Wikipedia), best of 3 rounds, 1 core`);
console.log(`baseline wink-nlp readDoc+pos : ${Math.round(baseline)} captions/s`);
console.log(`features (improved)           : ${Math.round(features)} captions/s  ratio ${(features / baseline).toFixed(2)}`);
console.log(`features (paper)              : ${Math.round(featuresPaper)} captions/s  ratio ${(featuresPaper / baseline).toFixed(2)}`);
