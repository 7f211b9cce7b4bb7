/**
 * Real "other text" paragraphs to grow a paragraph corpus (Chung & Knight added "several thousand
 * dummy paragraphs" to time their method): prose paragraphs of the Wikipedia dumps in shared/data
 * (wikitext cleaned to plain text by the caption cleaner), then sentences of MSRP, PAWS and
 * Conceptual Captions joined four at a time (~15,600 paragraphs in all). Beyond that, shared/data
 * holds no more English prose, so further paragraphs are real sentences of all those sources
 * recombined: each round shuffles the sentence pool (seeded) and joins 3–5 at a time, so a sentence
 * recurs in several paragraphs with different neighbours. Deterministic: same files, same list.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readDumpPages } from "../../../shared/dump/page-reader.ts";
import { splitParagraphs } from "../../../shared/minhash/paragraphs.ts";
import { cleanCaption } from "../../../shared/wikitext/clean-caption.ts";
import { REPO, sharedData } from "./common.ts";

const DUMPS = [
  "wikipedia/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2",
  "wikipedia/enwik8-first-4154064-bytes.xml.bz2",
  "wikipedia/wikipedia2vec-enwiki-pages-articles-sample.xml.bz2",
];

export interface PaddingSource { name: string; paragraphs: number }

/** Up to `limit` paragraphs of real text, each of ≥ 8 words, and how many each source gave. */
export async function paddingParagraphs(limit: number): Promise<{ paragraphs: string[]; sources: PaddingSource[] }> {
  const out: string[] = [];
  const sources: PaddingSource[] = [];
  const seen = new Set<string>();
  const add = (name: string, texts: Iterable<string>) => {
    let n = 0;
    for (const t of texts) {
      if (out.length >= limit) break;
      if (t.split(" ").length < 8 || seen.has(t)) continue;
      seen.add(t);
      out.push(t);
      n++;
    }
    sources.push({ name, paragraphs: n });
  };
  const dumps = [...DUMPS.map((d) => sharedData(d)), join(REPO, "shared/sample/enwiki-2016-pages-articles1-sample.xml.bz2")];
  for (const file of dumps) {
    if (!file || out.length >= limit) continue;
    const prose: string[] = [];
    try {
      for await (const page of readDumpPages(file, { namespaces: [0] })) {
        for (const para of page.text.split(/\n[ \t]*\n/)) {
          // prose only: not templates, tables, headings, lists, files, comments
          if (/^\s*(\{\{|\{\||\||=|\*|#|:|;|<|\[\[(File|Image|Category):)/i.test(para)) continue;
          const text = cleanCaption(para.replace(/\n/g, " "), [], "delete");
          if (text) prose.push(text.replace(/\s+/g, " ").trim());
        }
      }
    } catch (err) {
      // enwik8's excerpt is cut mid-page by design: the pages before the cut are used
      if (!(err instanceof Error && err.name === "DumpError")) throw err;
    }
    add(file.split("/").pop()!, prose);
  }
  const sentences = (name: string, file: string | null, pick: (line: string) => string[]) => {
    if (!file || out.length >= limit) return;
    const all = readFileSync(file, "utf8").split("\n").slice(1).flatMap(pick).filter((s) => s.length > 0);
    const joined: string[] = [];
    for (let k = 0; k + 4 <= all.length; k += 4) joined.push(all.slice(k, k + 4).join(" "));
    add(name, joined);
  };
  sentences("MSRP train (4 sentences each)", sharedData("paraphrase/msr_paraphrase_train.txt"), (l) => l.split("\t").slice(3, 5));
  sentences("PAWS dev (4 sentences each)", sharedData("paraphrase/paws-wiki-labeled-final-dev.tsv"), (l) => l.split("\t").slice(1, 3));
  sentences("Conceptual Captions (4 captions each)", sharedData("conceptual-captions/gcc-validation-part1-lines00001-07900.tsv"), (l) => [l.split("\t")[0] ?? ""]);
  const pool = out.flatMap((p) => p.split(/(?<=[.!?])\s+(?=[A-Z"])/)).filter((x) => x.split(" ").length >= 4);
  let state = 0x2545f491;
  const random = () => ((state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0) / 2 ** 32);
  for (let round = 1; out.length < limit && pool.length > 10 && round <= 100; round++) {
    for (let k = pool.length - 1; k > 0; k--) {
      const r = Math.floor(random() * (k + 1));
      [pool[k], pool[r]] = [pool[r]!, pool[k]!];
    }
    const joined: string[] = [];
    for (let k = 0; k < pool.length; ) {
      const size = 3 + Math.floor(random() * 3);
      joined.push(pool.slice(k, k + size).join(" "));
      k += size;
    }
    add(`recombined sentences, round ${round}`, joined);
  }
  return { paragraphs: out, sources };
}

export { splitParagraphs };
