/** The local runner with the offline semantic scorer: worker threads load the vectors and every pair carries the verdict. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scorePair } from "../../shared/metrics/index.ts";
import { readPairs, removeTempDirs, run, SAMPLE, tempDir } from "./helpers.ts";

afterAll(removeTempDirs);

describe("local run with scoring.scorers [syntactic, wordVectors]", () => {
  it("writes the semantic score, Δsem,syn and the calibrated verdict on every pair, from worker threads", async () => {
    const out = tempDir();
    const scoring = { scorers: ["syntactic", "wordVectors"] as ("syntactic" | "wordVectors")[] };
    await run(out, [SAMPLE[0]!], { tiers: ["gold", "silver"], scoring }, { workers: 2, threads: "always" });
    for (const tier of ["gold", "silver"]) {
      const pairs = readPairs(out, tier);
      expect(pairs.length).toBeGreaterThan(0);
      for (const p of pairs) {
        const m = p.metrics;
        // the syntactic metrics are those of syntactic scoring alone
        expect(m.syntactic).toBe(scorePair(p.a.text, p.b.text).syntactic);
        expect(m.semantic).toBeCloseTo((m.vectorCosine! + m.wordMoverSimilarity!) / 2, 12);
        expect(m.deltaSemSyn).toBeCloseTo(m.semantic! - m.syntactic!, 12);
        expect(p.paraphraseBy!.score).toBe("mean(vectorCosine,wordMoverSimilarity)");
        expect(p.paraphrase).toBe(m.semantic! > p.paraphraseBy!.threshold);
      }
    }
    const config = JSON.parse(readFileSync(join(out, "config.json"), "utf8")) as { scoring: { scorers: string[]; semantic: string[] } };
    expect(config.scoring.scorers).toEqual(["syntactic", "wordVectors"]);
    expect(config.scoring.semantic).toEqual(["vectorCosine", "wordMoverSimilarity"]);
  });
});
