/**
 * The transformer scorers on a tiny model built by the test (tiny-model.ts): the real transformers.js
 * loading, WordPiece tokenising, padded batching and onnxruntime inference run; the "network" is an
 * embedding lookup, so every expected score below is worked out by hand from TINY_TABLE.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { homedir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, resolveConfig, type ParacapConfigInput } from "../../shared/core/config.ts";
import { createScorers, ScorerCache } from "../../shared/plugins/scorers.ts";
import { SCORER_METRICS } from "../../shared/core/plugin-names.ts";
import { hubCacheDir, loadTransformer, ModelError, modelSource } from "../../shared/semantic/transformer-model.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";
import { writeTinyModel } from "./tiny-model.ts";

let MODEL = "";
let IDF = "";
beforeAll(() => {
  const dir = tempDir("paracap-tiny-model-");
  MODEL = writeTinyModel(join(dir, "model"), { scaledLayer: [1, 1, 1, 0], pooled: true });
  IDF = join(dir, "idf.txt");
  writeFileSync(IDF, "the cat\n\nthe dog\nthe mat\n");
});
afterAll(removeTempDirs);

const config = (scorers: string[], transformer: Record<string, unknown> = {}) =>
  resolveConfig({ scoring: { scorers, transformer: { model: MODEL, ...transformer } } } as ParacapConfigInput);
const scorer = async (scorers: string[], transformer: Record<string, unknown> = {}) => createScorers(config(scorers, transformer), new ScorerCache());

const S1 = "The cat sat"; // [CLS] the cat sat [SEP]
const S2 = "a dog ran"; // [CLS] a dog ran [SEP]
const S3 = "The cats sat on the mat"; // [CLS] the cat ##s sat on the mat [SEP]: 9 tokens, so S1 and S2 are padded beside it
const S4 = "the cat";
const cos = (u: number[], v: number[]) => u.reduce((s, x, i) => s + x * v[i]!, 0) / Math.hypot(...u) / Math.hypot(...v);

describe("embedding scorer (mean pooling, L2 norm, cosine)", () => {
  it("equals the hand-computed cosine of the mean token vectors, specials included and padding excluded", async () => {
    const score = await scorer(["embedding"]);
    // Sums of the rows (the mean's 1/n cancels in the cosine):
    // S1: CLS[1,0,0,0] the[0,0,1,0] cat[2,0,0,2] sat[0,2,2,0] SEP[0,1,0,0] = [3,3,3,2]
    // S2: CLS a[0,0,1,0] dog[2,0,0,1] ran[0,2,1,0] SEP = [3,3,2,1]
    // S3: CLS the cat ##s[1,0,1,0] sat on[1,1,1,1] the mat[0,0,2,2] SEP = [5,4,8,5]
    const got = await score([[S1, S2], [S1, S3], [S3, S3]]);
    expect(got[0]!.embeddingCosine).toBeCloseTo(26 / Math.sqrt(31 * 23), 6);
    expect(got[1]!.embeddingCosine).toBeCloseTo(61 / Math.sqrt(31 * 130), 6);
    expect(got[2]!.embeddingCosine).toBeCloseTo(1, 6);
    // with the [PAD] rows ([9,9,9,9]) averaged in, S1 would be [39,39,39,38]: a different cosine
    expect(got[0]!.embeddingCosine).not.toBeCloseTo(cos([39, 39, 39, 38], [39, 39, 38, 37]), 4);
  });

  it("CLS pooling takes the first token's vector", async () => {
    const score = await scorer(["embedding"], { embeddingPooling: "cls" });
    // every text starts with [CLS] = [1,0,0,0] in this lookup model (mean pooling gives 61/√4030 here)
    const [r] = await score([[S1, S3]]);
    expect(r!.embeddingCosine).toBeCloseTo(1, 6);
  });

  it("a negative cosine is clamped to 0", async () => {
    const score = await scorer(["embedding"]);
    // "not": CLS + not[-1,-1,-1,-1] + SEP = [0,0,-1,-1]; "the": [1,1,1,0] → cosine −1/√6
    const [r] = await score([["not", "the"]]);
    expect(r!.embeddingCosine).toBe(0);
  });

  it("batch size does not change a score (one text per inference call vs all at once)", async () => {
    const pairs = [[S1, S2], [S3, S4], [S2, S3], [S4, S1]] as const;
    const one = await (await scorer(["embedding", "bertscore"], { batchSize: 1 }))([...pairs]);
    const all = await (await scorer(["embedding", "bertscore"], { batchSize: 64 }))([...pairs]);
    for (let i = 0; i < pairs.length; i++) for (const k of Object.keys(all[i]!)) expect(one[i]![k]).toBeCloseTo(all[i]![k]!, 6);
    // exactly the metrics the config checks know them by
    expect(Object.keys(all[0]!).sort()).toEqual([...SCORER_METRICS.embedding, ...SCORER_METRICS.bertscore].sort());
  });
});

describe("bertscore scorer (greedy cosine matching)", () => {
  const r2 = Math.SQRT1_2;
  it("precision, recall and F1 equal the hand-computed matching, specials left out", async () => {
    const score = await scorer(["bertscore"]);
    const [a, b] = await score([[S1, S4], [S1, S2]]);
    // S1 = the, cat, sat against S4 = the, cat: the→the 1, cat→cat 1, sat→the 2/√8 = 1/√2 (sat·cat = 0)
    const p = (2 + r2) / 3;
    expect(a!.bertscoreP).toBeCloseTo(p, 6);
    expect(a!.bertscoreR).toBeCloseTo(1, 6);
    expect(a!.bertscoreF1).toBeCloseTo((2 * p) / (p + 1), 6);
    // S1 against S2 = a, dog, ran: the→a 1, cat→dog 6/√40, sat→ran 6/√40; and back the same
    const m = (1 + 2 * (6 / Math.sqrt(40))) / 3;
    expect(b!.bertscoreP).toBeCloseTo(m, 6);
    expect(b!.bertscoreR).toBeCloseTo(m, 6);
    expect(b!.bertscoreF1).toBeCloseTo(m, 6);
  });

  it("idf from a file weights the tokens: ln((M+1)/(df+1)) over its 3 non-empty lines", async () => {
    const score = await scorer(["bertscore"], { bertscoreIdf: IDF });
    const [r] = await score([[S1, S4]]);
    // idf: the ln(4/4) = 0, cat ln(4/2), sat ln(4/1) = 2·ln 2 → P = (ln2·1 + 2ln2·(1/√2)) / 3ln2
    const p = (1 + 2 * r2) / 3;
    expect(r!.bertscoreP).toBeCloseTo(p, 6);
    expect(r!.bertscoreR).toBeCloseTo(1, 6); // the (weight 0), cat → cat 1
    expect(r!.bertscoreF1).toBeCloseTo((2 * p) / (p + 1), 6);
  });

  it("a baseline rescales linearly, (x − b)/(1 − b), clamped at 0", async () => {
    const score = await scorer(["bertscore"], { bertscoreBaseline: 0.9 });
    const [a, b] = await score([[S1, S4], [S4, S4]]);
    const p = (2 + r2) / 3; // 0.9024
    expect(a!.bertscoreP).toBeCloseTo((p - 0.9) / 0.1, 5);
    expect(b!.bertscoreF1).toBeCloseTo(1, 6);
    const [c] = await (await scorer(["bertscore"], { bertscoreBaseline: 0.99 }))([[S1, S2]]);
    expect(c!.bertscoreF1).toBe(0);
  });

  it("matches the token vectors of the configured output (another layer)", async () => {
    const score = await scorer(["bertscore"], { bertscoreOutput: "hidden_state_0" });
    // hidden_state_0 zeroes the 4th component: cat and dog both become [2,0,0,0] → cat→dog = 1
    const [r] = await score([[S1, S2]]);
    const m = (1 + 1 + 6 / Math.sqrt(40)) / 3;
    expect(r!.bertscoreF1).toBeCloseTo(m, 6);
  });

  it("an output the model does not have is a clear error naming the ones it has", async () => {
    const score = await scorer(["bertscore"], { bertscoreOutput: "layer_7" });
    await expect(score([[S1, S2]])).rejects.toThrow(/no output layer_7 \(it has last_hidden_state, hidden_state_0, sentence_embedding\)/);
    const pooled = await scorer(["bertscore"], { bertscoreOutput: "sentence_embedding" });
    await expect(pooled([[S1, S2]])).rejects.toThrow(/output sentence_embedding has shape \[2, 4\], not per-token vectors/);
  });

  it("an unreadable idf file is a ModelError", async () => {
    await expect(scorer(["bertscore"], { bertscoreIdf: join(MODEL, "missing.txt") })).rejects.toThrow(/cannot read scoring.transformer.bertscoreIdf file .*ENOENT/);
  });
});

describe("model loading", () => {
  it("loads once per process: both scorers and later runs share the model", async () => {
    const spec = { model: MODEL, dtype: "fp32", maxTokens: 256, batchSize: 32, threads: null } as const;
    const m = await loadTransformer(spec);
    expect(await loadTransformer({ ...spec })).toBe(m);
    expect(m.source).toEqual({ kind: "dir", path: MODEL });
    expect(m.outputs).toEqual(["last_hidden_state", "hidden_state_0", "sentence_embedding"]);
    expect(m.loadSeconds).toBeGreaterThan(0);
  });

  it("runs each distinct text of a batch once, shared by the embedding and bertscore scorers", async () => {
    const spec = { model: MODEL, dtype: "fp32", maxTokens: 256, batchSize: 2, threads: null } as const;
    const m = await loadTransformer(spec);
    const score = await scorer(["embedding", "bertscore"], { batchSize: 2 });
    const before = { ...m.runs };
    await score([[S1, S2], [S2, S3], [S1, S3], [S1, S1]]);
    // 3 distinct texts in batches of 2 → 2 calls, 3 texts; the bertscore scorer reuses them
    expect({ calls: m.runs.calls - before.calls, texts: m.runs.texts - before.texts }).toEqual({ calls: 2, texts: 3 });
  });

  it("onnxruntime gets all cores in the main thread and one thread in each worker of a pool", async () => {
    expect((await loadTransformer({ model: MODEL, dtype: "fp32", maxTokens: 256, batchSize: 32, threads: null })).threads).toBeNull();
    expect((await loadTransformer({ model: MODEL, dtype: "fp32", maxTokens: 256, batchSize: 32, threads: 3 })).threads).toBe(3);
    const entry = new URL("./fixtures/load-in-worker.ts", import.meta.url).pathname;
    const w = new Worker(new URL("../../shared/runner/worker-bootstrap.mjs", import.meta.url), { workerData: { entry, model: MODEL } });
    try {
      const [msg] = (await once(w, "message")) as [{ threads: number | null; len: number }];
      expect(msg).toEqual({ threads: 1, len: 4 });
    } finally {
      await w.terminate();
    }
  });

  it("dtype q8 loads onnx/model_quantized.onnx (here the same graph under that name)", async () => {
    const dir = join(tempDir("paracap-q8-"), "model");
    writeTinyModel(dir);
    renameSync(join(dir, "onnx/model.onnx"), join(dir, "onnx/model_quantized.onnx"));
    expect(() => modelSource(dir, "fp32")).toThrow(/lacks onnx\/model.onnx/);
    const [r] = await (await scorer(["embedding"], { model: dir, dtype: "q8" }))([[S1, S2]]);
    expect(r!.embeddingCosine).toBeCloseTo(26 / Math.sqrt(31 * 23), 6);
  });

  it("truncates a text to maxTokens", async () => {
    const m = await loadTransformer({ model: MODEL, dtype: "fp32", maxTokens: 4, batchSize: 32, threads: null });
    const [e] = await m.encode([S3], "last_hidden_state");
    expect(e!.len).toBe(4);
    expect(e!.ids.slice(0, 3)).toEqual([2, 5, 6]); // [CLS] the cat
  });

  it("a directory is checked for the files transformers.js needs; a hub id is told apart from a path", () => {
    const bad = tempDir("paracap-bad-model-");
    mkdirSync(join(bad, "onnx"));
    writeFileSync(join(bad, "config.json"), "{}");
    expect(() => modelSource(bad, "fp32")).toThrow(/lacks tokenizer.json, tokenizer_config.json, onnx\/model.onnx/);
    expect(() => modelSource(MODEL, "q8")).toThrow(/lacks onnx\/model_quantized.onnx/);
    expect(() => modelSource(join(MODEL, "config.json"), "fp32")).toThrow(ModelError);
    expect(() => modelSource("./no/such/dir/here", "fp32")).toThrow(/no model directory/);
    expect(modelSource("Xenova/all-MiniLM-L6-v2", "fp32")).toEqual({ kind: "hub", id: "Xenova/all-MiniLM-L6-v2" });
    rmSync(bad, { recursive: true, force: true });
  });

  it("hub downloads go to PARACAP_MODEL_CACHE, else the XDG cache, never into node_modules", () => {
    expect(hubCacheDir({ PARACAP_MODEL_CACHE: "/m", XDG_CACHE_HOME: "/x" })).toBe("/m");
    expect(hubCacheDir({ XDG_CACHE_HOME: "/x" })).toBe("/x/paracap/transformers");
    expect(hubCacheDir({})).toBe(join(homedir(), ".cache/paracap/transformers"));
  });

  it("a transformer scorer without a model is a config error before anything runs", () => {
    expect(() => resolveConfig({ scoring: { scorers: ["syntactic", "bertscore"] } })).toThrow(ConfigError);
    expect(() => resolveConfig({ scoring: { scorers: ["embedding"] } })).toThrow(/scoring.transformer.model: scorer embedding needs a model/);
    expect(() => resolveConfig({ scoring: { transformer: { modle: "x" } } } as ParacapConfigInput)).toThrow(/did you mean "scoring.transformer.model"/);
    expect(resolveConfig({ scoring: { transformer: { model: "x" } } }).scoring.scorers).toEqual(["syntactic", "wordVectors"]);
  });
});
