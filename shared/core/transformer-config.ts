/** The `scoring.transformer` config block: which model the sentence-embedding and BERTScore scorers run, and how. */
import { z } from "zod";

/** transformers.js weight variants and the file name suffix of each in the model's onnx/ folder. */
export const DTYPE_SUFFIX = { fp32: "", fp16: "_fp16", q8: "_quantized", int8: "_int8", uint8: "_uint8", q4: "_q4" } as const;
export type ModelDtype = keyof typeof DTYPE_SUFFIX;

export const TransformerConfig = z.object({
  model: z.string().min(1).nullable().default(null)
    .describe("model of the embedding and bertscore scorers: a transformers.js model directory (config.json, tokenizer.json, onnx/model.onnx) or, online, a Hugging Face hub id such as Xenova/all-MiniLM-L6-v2"),
  dtype: z.enum(Object.keys(DTYPE_SUFFIX) as [ModelDtype, ...ModelDtype[]]).default("fp32")
    .describe("weights to load: fp32 = onnx/model.onnx, q8 = onnx/model_quantized.onnx, …"),
  maxTokens: z.number().int().min(4).max(8192).default(256)
    .describe("longer texts are truncated to this many tokens (all-MiniLM-L6-v2 was trained on 256)"),
  batchSize: z.number().int().min(1).max(1024).default(32).describe("texts per inference call"),
  threads: z.number().int().min(1).max(256).nullable().default(null)
    .describe("onnxruntime intra-op threads per model (null: all cores in the main thread, 1 in each worker thread of a --workers pool)"),
  embeddingPooling: z.enum(["mean", "cls"]).default("mean")
    .describe("how the embedding scorer makes one vector of a text: mean of the token vectors (sentence-transformers' MiniLM, mpnet) or the first token's (CLS-pooled models such as BGE)"),
  bertscoreOutput: z.string().min(1).default("last_hidden_state")
    .describe("the model output whose token vectors BERTScore matches (a model exported with per-layer outputs can name a middle layer)"),
  bertscoreIdf: z.string().min(1).nullable().default(null)
    .describe("a text file, one document per line, whose token document frequencies weight BERTScore (idf); null = uniform weights"),
  bertscoreBaseline: z.number().min(0).lt(1).nullable().default(null)
    .describe("BERTScore baseline b of this model: reports (F1 − b) / (1 − b), clamped to [0, 1]; null = raw F1"),
}).prefault({});
export type TransformerConfig = z.infer<typeof TransformerConfig>;

/** Scorers that run the transformer model. */
export const TRANSFORMER_SCORERS = ["embedding", "bertscore"] as const;

/** A transformer scorer without a model is a config error, caught before the run starts rather than in its dedup phase. */
export function requireModel(scoring: { scorers: readonly string[]; transformer: TransformerConfig }, ctx: z.RefinementCtx): void {
  if (scoring.transformer.model !== null) return;
  const need = scoring.scorers.filter((s) => (TRANSFORMER_SCORERS as readonly string[]).includes(s));
  if (need.length === 0) return;
  ctx.addIssue({
    code: "custom",
    path: ["transformer", "model"],
    message: `scorer${need.length > 1 ? "s" : ""} ${need.join(", ")} need${need.length > 1 ? "" : "s"} a model: a local model directory (--model <dir>) or a hub id`,
  });
}
