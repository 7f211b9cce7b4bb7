/**
 * Sentence classifier quality on the hand-labelled captions (test/fixtures/caption/sentence-labels.tsv):
 * confusion table, precision and recall for the `paper` and `improved` rules, on the dev split (every
 * 3rd row, tuned on), the held-out test split, and the late batch (rows 295+, labelled after tuning and
 * never used for it). Also compares the two taggers under the same rules: wink-nlp (UPOS → Penn mapping,
 * what paracap ships) and wink-pos-tagger (emits Penn tags itself), with their tagging speed.
 *
 *   npx tsx scripts/bench/sentence-classifier.ts
 */
// @ts-expect-error wink-pos-tagger ships no type declarations
import posTagger from "wink-pos-tagger";
import { sentenceSegments } from "../../shared/caption/analyzer.ts";
import { preprocessCaption } from "../../shared/caption/preprocess.ts";
import { isSentence, type SentenceClassifier, type TaggedWord } from "../../shared/caption/sentence-rules.ts";
import { confusion, type LabelledCaption, loadSentenceLabels, precision, recall } from "../../shared/caption/sentence-eval.ts";
import { createWinkTagger } from "../../shared/caption/wink-tagger.ts";

const LABELS = new URL("../../test/fixtures/caption/sentence-labels.tsv", import.meta.url).pathname;
/** Rows (1-based, without header) from here on were labelled after the rules were tuned. */
const LATE_BATCH_FROM = 295;

type Segmenter = (text: string) => TaggedWord[][];

const wink = createWinkTagger();
const winkSegments: Segmenter = (text) => sentenceSegments(wink.tag(text));

const penn = posTagger();
const pennSegments: Segmenter = (text) => {
  const segments: TaggedWord[][] = [[]];
  for (const t of penn.tagSentence(text) as { value: string; pos: string }[]) {
    segments.at(-1)!.push({ word: t.value, tag: t.pos });
    if (t.pos === ".") segments.push([]);
  }
  return segments.filter((s) => s.length > 0);
};

const rows = loadSentenceLabels(LABELS);
const splits: [string, LabelledCaption[]][] = [
  ["dev", rows.filter((r) => r.split === "dev")],
  ["test", rows.filter((r) => r.split === "test")],
  ["late batch", rows.filter((_, i) => i + 1 >= LATE_BATCH_FROM)],
  ["all", rows],
];

const pct = (x: number) => x.toFixed(3);
console.log(`labelled captions: ${rows.length} (${rows.filter((r) => r.sentence).length} sentences)`);
console.log("tagger            rules     split        n    TP  FP  FN  TN   precision recall");
for (const [taggerName, segmenter] of [["wink-nlp+mapping", winkSegments], ["wink-pos-tagger", pennSegments]] as const) {
  for (const classifier of ["paper", "improved"] as SentenceClassifier[]) {
    for (const [name, subset] of splits) {
      const c = confusion(subset, (t) => isSentence(segmenter(preprocessCaption(t)), classifier));
      console.log(
        `${taggerName.padEnd(17)} ${classifier.padEnd(9)} ${name.padEnd(11)} ${String(subset.length).padStart(4)}  ${[c.tp, c.fp, c.fn, c.tn].map((v) => String(v).padStart(3)).join(" ")}   ${pct(precision(c))}     ${pct(recall(c))}`,
      );
    }
  }
}

// Tagging speed on the same captions, repeated to smooth out JIT warm-up.
const texts = rows.map((r) => preprocessCaption(r.caption));
for (const [taggerName, segmenter] of [["wink-nlp+mapping", winkSegments], ["wink-pos-tagger", pennSegments]] as const) {
  for (let i = 0; i < 3; i++) for (const t of texts) segmenter(t);
  const t0 = performance.now();
  const reps = 20;
  for (let i = 0; i < reps; i++) for (const t of texts) segmenter(t);
  const s = (performance.now() - t0) / 1000;
  console.log(`${taggerName}: ${Math.round((reps * texts.length) / s)} captions/s (tag + segment)`);
}
