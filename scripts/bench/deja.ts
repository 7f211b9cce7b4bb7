/**
 * Déjà canonical forms and grouping throughput on the Conceptual Captions excerpt (7,900 real
 * captions), against plain wink-nlp readDoc (with the POS tags and lemmas read out) on the same
 * captions in the same process: the NLP floor the canonical form is built on.
 *
 *   npx tsx scripts/bench/deja.ts [--rounds 3]
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { sharedWinkNlp } from "../../shared/caption/wink-tagger.ts";
import { createCanonicalizer } from "../../shared/deja/canonical-form.ts";
import { DejaGrouper, dejaStats } from "../../shared/deja/caption-graph.ts";
import { firstExisting, SHARED_DATA } from "./lib/common.ts";

const { values: args } = parseArgs({ options: { rounds: { type: "string", default: "3" } } });
const rounds = Math.max(1, Number(args.rounds));
const file = firstExisting(`${SHARED_DATA}conceptual-captions/gcc-validation-part1-lines00001-07900.tsv`, "test/fixtures/data/conceptual-captions/gcc-validation-part1-lines00001-07900.tsv");
const uses = readFileSync(file, "utf8").split("\n").filter((l) => l.length > 0).map((l) => {
  const [caption, url] = l.split("\t") as [string, string];
  return { caption, image: url, page: new URL(url).host };
});

const nlp = sharedWinkNlp();
const its = nlp.its;
const canonicalizer = createCanonicalizer();

function plainWink(): number {
  let n = 0;
  for (const u of uses) {
    const toks = nlp.readDoc(u.caption).tokens();
    n += (toks.out(its.pos) as string[]).length + (toks.out(its.lemma as never) as unknown as string[]).length;
  }
  return n;
}
function canonicalOnly(): number {
  let n = 0;
  for (const u of uses) if (!("drop" in canonicalizer.canonical(u.caption))) n++;
  return n;
}
function grouping(): number {
  const g = new DejaGrouper(canonicalizer);
  for (const u of uses) g.add(u);
  return g.retained().length;
}

/** Median of `rounds` timed runs (after one warm-up), in captions/s. */
function rate(fn: () => number): number {
  fn();
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    fn();
    times.push((performance.now() - t0) / 1000);
  }
  times.sort((a, b) => a - b);
  return uses.length / times[Math.floor(times.length / 2)]!;
}

console.log(`Conceptual Captions: ${uses.length} captions, median of ${rounds} rounds`);
const base = rate(plainWink);
const canon = rate(canonicalOnly);
const group = rate(grouping);
console.log(`plain wink readDoc + pos + lemma : ${base.toFixed(0).padStart(7)} captions/s (baseline)`);
console.log(`canonical form                   : ${canon.toFixed(0).padStart(7)} captions/s (${(canon / base).toFixed(2)}× baseline)`);
console.log(`canonical form + grouping        : ${group.toFixed(0).padStart(7)} captions/s (${(group / base).toFixed(2)}× baseline)`);
const g = new DejaGrouper(canonicalizer);
for (const u of uses) g.add(u);
const stats = dejaStats(g.retained());
console.log(`groups kept (≥ 2 images on ≥ 2 sites): ${stats.captions} captions, ${stats.images} images; dropped: ${JSON.stringify(g.counts.dropped)}`);
console.log(`images per caption: ${JSON.stringify(stats.imagesPerCaption)}; form tokens per caption: ${JSON.stringify(stats.formTokensPerCaption)}`);
