/**
 * The transformer scorers of the scorer seam: sentence-embedding cosine (mean-pooled, L2-normalised
 * token vectors; the paper's ST similarity with a sentence-transformers model) and BERTScore
 * (greedy-matched token vectors). Both run the model once per batch of pairs on the batch's distinct
 * texts, and share one loaded model per process.
 */
import { readFile } from "node:fs/promises";
import type { PairScorer, ScorerContext } from "../plugins/scorer-contract.ts";
import { bertScore, clamp01, meanPoolNormalised, normalised, unitRows } from "./embedding-math.ts";
import type { TransformerConfig } from "../core/transformer-config.ts";
import { loadTransformer, ModelError, type EncodedText, type TransformerModel } from "./transformer-model.ts";

async function modelOf(t: TransformerConfig): Promise<TransformerModel> {
  if (t.model === null) throw new ModelError("scoring.transformer.model is not set (--model <dir>)");
  return loadTransformer({ ...t, model: t.model });
}

/** `embeddingCosine`: cosine of the two sentence embeddings (mean- or CLS-pooled), negative values clamped to 0. */
export async function embeddingScorer({ config }: ScorerContext): Promise<PairScorer> {
  const t = config.scoring.transformer;
  const model = await modelOf(t);
  return {
    id: "embedding",
    async scoreBatch(pairs) {
      const texts = pairs.flat();
      const encoded = await model.encode(texts, "last_hidden_state");
      const pooled = new Map<string, Float32Array>();
      const pool = t.embeddingPooling === "cls" ? (e: EncodedText) => normalised(e.data.slice(0, e.dim)) : meanPoolNormalised;
      texts.forEach((text, i) => pooled.has(text) || pooled.set(text, pool(encoded[i]!)));
      return pairs.map(([a, b]) => {
        const va = pooled.get(a)!;
        const vb = pooled.get(b)!;
        let s = 0;
        for (let d = 0; d < va.length; d++) s += va[d]! * vb[d]!;
        return { embeddingCosine: clamp01(s) };
      });
    },
  };
}

/**
 * `bertscoreP`, `bertscoreR`, `bertscoreF1` of b (reference) and a (candidate). Special tokens
 * ([CLS], [SEP]) are left out of the matching; the reference implementation gives them weight 0 but
 * lets other tokens match them.
 */
export async function bertscoreScorer({ config }: ScorerContext): Promise<PairScorer> {
  const t = config.scoring.transformer;
  const model = await modelOf(t);
  const idf = t.bertscoreIdf === null ? null : await idfWeights(model, t.bertscoreIdf);
  const baseline = t.bertscoreBaseline;
  const rescale = (x: number) => (baseline === null ? clamp01(x) : clamp01((x - baseline) / (1 - baseline)));
  return {
    id: "bertscore",
    async scoreBatch(pairs) {
      const texts = pairs.flat();
      const encoded = await model.encode(texts, t.bertscoreOutput);
      const units = new Map<string, { vectors: EncodedText; weights?: number[] }>();
      texts.forEach((text, i) => {
        if (units.has(text)) return;
        const e = encoded[i]!;
        const keep = (r: number) => !e.special[r];
        const vectors = { ...e, ...unitRows(e, keep), ids: e.ids.filter((_, r) => keep(r)), special: [] };
        units.set(text, { vectors, weights: idf ? vectors.ids.map(idf) : undefined });
      });
      return pairs.map(([a, b]) => {
        const ua = units.get(a)!;
        const ub = units.get(b)!;
        const s = bertScore(ua.vectors, ub.vectors, ua.weights, ub.weights);
        return { bertscoreP: rescale(s.precision), bertscoreR: rescale(s.recall), bertscoreF1: rescale(s.f1) };
      });
    },
  };
}

/**
 * idf(token) = ln((M + 1) / (df + 1)) over the M non-empty lines of a file, as BERTScore computes it
 * from its reference sentences. Tokens never seen get the largest weight, ln(M + 1).
 */
export async function idfWeights(model: TransformerModel, file: string): Promise<(id: number) => number> {
  const text = await readFile(file, "utf8").catch((err: NodeJS.ErrnoException) => {
    throw new ModelError(`cannot read scoring.transformer.bertscoreIdf file ${file}: ${err.code ?? err.message}`);
  });
  const df = new Map<number, number>();
  let m = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    m++;
    for (const id of new Set(model.tokenIds(line))) df.set(id, (df.get(id) ?? 0) + 1);
  }
  if (m === 0) throw new ModelError(`scoring.transformer.bertscoreIdf file ${file} has no text`);
  return (id) => Math.log((m + 1) / ((df.get(id) ?? 0) + 1));
}
