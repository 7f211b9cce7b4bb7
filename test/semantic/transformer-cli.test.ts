/**
 * The transformer scorers end to end through the paracap command, on the tiny model built here:
 * `paracap score --model` and `paracap run --model` on the embedded sample with worker threads (each
 * loads the model in its own onnxruntime session).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { scorePair } from "../../shared/metrics/index.ts";
import { createScorers, ScorerCache } from "../../shared/plugins/scorers.ts";
import { readPairs, removeTempDirs, runCli, tempDir } from "../runner/helpers.ts";
import { writeTinyModel } from "./tiny-model.ts";

let MODEL = "";
beforeAll(() => {
  MODEL = writeTinyModel(join(tempDir("paracap-tiny-cli-"), "model"));
});
afterAll(removeTempDirs);

const cli = (args: string[], stdin = "") => runCli(args, { stdin });

const jsonl = (text: string) => text.split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l) as Record<string, number>);
const TRANSFORMER_METRICS = ["embeddingCosine", "bertscoreP", "bertscoreR", "bertscoreF1"];

describe.concurrent("paracap score --model", () => {
  it("adds the embedding and bertscore metrics to the syntactic ones, in input order", async () => {
    const r = await cli(["score", "--model", MODEL, "--scorers", "syntactic,embedding,bertscore"], "The cat sat\ta dog ran\nthe cat\tThe cat sat\n");
    expect(r.code, r.stderr).toBe(0);
    const [a, b] = jsonl(r.stdout);
    expect(Object.keys(a!)).toEqual([...Object.keys(scorePair("x", "y")), ...TRANSFORMER_METRICS]);
    expect(a!.embeddingCosine).toBeCloseTo(26 / Math.sqrt(31 * 23), 6); // see transformer-scorers.test.ts
    expect(a!.syntactic).toBe(scorePair("The cat sat", "a dog ran").syntactic);
    expect(b!.bertscoreR).toBeCloseTo((2 + Math.SQRT1_2) / 3, 6); // reference "The cat sat" against "the cat"
    expect(b!.bertscoreP).toBeCloseTo(1, 6);
  });

  it("--scorers picks scorers; a bad line still gets the lines before it scored", async () => {
    const r = await cli(["score", "--model", MODEL, "--scorers", "embedding"], "the cat\tthe cat\nno tab here\n");
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("paracap score: stdin line 2: expected caption1<TAB>caption2, found no tab (--skip-bad answers such a line and goes on)\n");
    expect(jsonl(r.stdout)).toEqual([{ embeddingCosine: expect.closeTo(1, 6) }]);
  });

  it("a missing model or model directory is a one-line user error", async () => {
    const none = await cli(["score", "--model", join(MODEL, "nope")], "a\tb\n");
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^paracap score: no model directory .*nope \(and it is not a hub id/);
    const bare = await cli(["score", "--scorers", "bertscore"], "a\tb\n");
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/scoring.transformer.model: scorer bertscore needs a model/);
    const file = await cli(["run", "--model", join(MODEL, "config.json"), "--out", join(tempDir(), "out")]);
    expect(file.code).toBe(2);
    expect(file.stderr).toMatch(/^paracap run: model .*config.json is a file; give the model's directory\n$/);
  });
});

describe("paracap run --model", () => {
  it("every pair of the sample run carries the transformer metrics, equal to the scorers' own, with worker threads", async () => {
    const out = join(tempDir("paracap-run-model-"), "out");
    // the threads forced: on two cores a run this small would stay in the main thread
    const r = await runCli(["run", "--quiet", "--workers", "2", "--partitions", "2", "--model", MODEL, "--out", out], { env: { PARACAP_THREADS: "always" } });
    expect(r.code, r.stderr).toBe(0);
    const config = JSON.parse(readFileSync(join(out, "config.json"), "utf8"));
    expect(config.scoring.scorers).toEqual(["syntactic", "wordVectors", "embedding", "bertscore"]);
    expect(config.scoring.transformer.model).toBe(MODEL);
    const pairs = [...readPairs(out, "gold"), ...readPairs(out, "silver"), ...readPairs(out, "bronze")];
    expect(pairs.length).toBeGreaterThanOrEqual(2);
    const direct = await createScorers(resolveConfig({ scoring: config.scoring }), new ScorerCache());
    const expected = await direct(pairs.map((p) => [p.a.text, p.b.text] as const));
    pairs.forEach((p, i) => {
      for (const k of TRANSFORMER_METRICS) {
        expect(p.metrics[k]).toBeGreaterThanOrEqual(0);
        expect(p.metrics[k]).toBeLessThanOrEqual(1);
        expect(p.metrics[k]).toBeCloseTo(expected[i]![k]!, 6);
      }
      expect(p.metrics.syntactic).toBe(scorePair(p.a.text, p.b.text).syntactic);
    });
  });
});
