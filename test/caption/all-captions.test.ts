/**
 * Every caption and sentence of the real data handed to the project goes through the caption
 * analyser without a throw: Wikipedia dump excerpts and history (the captions paracap extracts),
 * MSRP and PAWS sentences, and Conceptual Captions. A caption the pre-NLP guard excludes is a
 * counted drop, not analysed, so it is skipped here too.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createCaptionAnalyzer } from "../../shared/caption/analyzer.ts";
import { unreadableReason } from "../../shared/caption/caption-guard.ts";
import { resolveConfig } from "../../shared/core/config.ts";
import { readDumpPages } from "../../shared/dump/page-reader.ts";
import { createWikitextExtractor } from "../../shared/sources/mediawiki/revision-reuse.ts";
import { plainDump } from "../support/plain-dump.ts";

const DATA = new URL("../../../shared/data/", import.meta.url).pathname;

async function dumpCaptions(into: Set<string>): Promise<void> {
  for (const dir of ["wikipedia", "wikipedia-history"]) {
    for (const name of readdirSync(join(DATA, dir)).filter((n) => /\.(xml|bz2)$/.test(n))) {
      // the extractor the pipeline uses: a history's unchanged spans are not scanned again
      const extractor = createWikitextExtractor({});
      try {
        for await (const rev of readDumpPages(await plainDump(join(DATA, dir, name)), { namespaces: [0] })) {
          const { refs } = extractor.extract(rev);
          if (refs === null) continue; // a counted skip in the pipeline (extraction limits), not the analyser's business
          for (const r of refs) {
            if (r.caption) into.add(r.caption);
            if (r.alt) into.add(r.alt);
          }
        }
      } catch {
        // damaged excerpts keep what was read before the damage
      }
    }
  }
}

function tsvColumns(file: string, columns: number[], skipHeader = false): string[] {
  const lines = readFileSync(file, "utf8").split("\n").slice(skipHeader ? 1 : 0);
  return lines.flatMap((l) => {
    const f = l.split("\t");
    return columns.map((c) => f[c]).filter((t): t is string => !!t && t.trim() !== "");
  });
}

describe("the caption analyser over all real captions", () => {
  it("throws on none of them", async () => {
    const texts = new Set<string>();
    await dumpCaptions(texts);
    const fromDumps = texts.size;
    for (const t of tsvColumns(join(DATA, "paraphrase/msr_paraphrase_train.txt"), [3, 4], true)) texts.add(t);
    for (const t of tsvColumns(join(DATA, "paraphrase/paws-wiki-labeled-final-dev.tsv"), [1, 2], true)) texts.add(t);
    for (const f of readdirSync(join(DATA, "conceptual-captions")).filter((n) => n.endsWith(".tsv"))) {
      for (const t of tsvColumns(join(DATA, "conceptual-captions", f), [0])) texts.add(t);
    }
    expect(fromDumps).toBeGreaterThan(1000);
    expect(texts.size).toBeGreaterThan(20_000);

    const config = resolveConfig({});
    const analyzer = createCaptionAnalyzer();
    const failures: string[] = [];
    let guarded = 0;
    for (const t of texts) {
      if (unreadableReason(t, config.captions) !== null) {
        guarded++;
        continue;
      }
      try {
        analyzer.features(t);
      } catch (err) {
        failures.push(`${(err as Error).message}: ${t.slice(0, 120)}`);
      }
    }
    expect(failures).toEqual([]);
    // the guard's defaults never exclude real captions or sentences
    expect(guarded).toBe(0);
  });
});
