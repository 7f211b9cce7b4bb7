/**
 * A transformer encoder through transformers.js (onnxruntime-node): tokenises texts, runs them in
 * padded batches and returns each text's token vectors with padding removed. From a local model
 * directory nothing is fetched; a hub id downloads once into a cache folder (online machines only).
 */
import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { isMainThread } from "node:worker_threads";
import type { TokenVectors } from "./embedding-math.ts";
import { DTYPE_SUFFIX, type ModelDtype, type TransformerConfig } from "../core/transformer-config.ts";

/** A model that cannot be used as given (missing directory or file, failed download): the user's to fix. */
export class ModelError extends Error {
  override readonly name = "ModelError";
}

export type ModelSource = { kind: "dir"; path: string } | { kind: "hub"; id: string };

/** Files transformers.js reads from a model directory for an encoder with the given weights. */
export function requiredFiles(dtype: ModelDtype): string[] {
  return ["config.json", "tokenizer.json", "tokenizer_config.json", `onnx/model${DTYPE_SUFFIX[dtype]}.onnx`];
}

const HUB_ID = /^[\w-][\w.-]*\/[\w.-]+$/;

/** An existing path is a model directory (checked for its files); otherwise owner/name is a hub id. */
export function modelSource(model: string, dtype: ModelDtype): ModelSource {
  const path = resolve(model);
  if (existsSync(path)) {
    if (!statSync(path).isDirectory()) throw new ModelError(`model ${model} is a file; give the model's directory`);
    const missing = requiredFiles(dtype).filter((f) => !existsSync(join(path, f)));
    if (missing.length > 0) {
      throw new ModelError(`model directory ${model} lacks ${missing.join(", ")} (a transformers.js model directory holds ${requiredFiles(dtype).join(", ")})`);
    }
    return { kind: "dir", path };
  }
  if (HUB_ID.test(model) && !model.includes("..")) return { kind: "hub", id: model };
  throw new ModelError(`no model directory ${model} (and it is not a hub id like Xenova/all-MiniLM-L6-v2)`);
}

export interface EncodedText extends TokenVectors {
  /** token ids, one per row */
  readonly ids: readonly number[];
  /** rows that are special tokens ([CLS], [SEP], …) */
  readonly special: readonly boolean[];
}

export interface TransformerModel {
  readonly source: ModelSource;
  /** names of the model's outputs */
  readonly outputs: readonly string[];
  /** seconds the load took (tokenizer, config and onnxruntime session; not the library's import) */
  readonly loadSeconds: number;
  /** onnxruntime intra-op threads (null: onnxruntime's default, all cores) */
  readonly threads: number | null;
  /** inference calls and texts run so far (for benchmarks and tests) */
  readonly runs: { readonly calls: number; readonly texts: number };
  /** each text's vectors from `output`, in input order; identical texts are run once */
  encode(texts: readonly string[], output: string): Promise<EncodedText[]>;
  /** token ids of a text, without special tokens (for idf statistics) */
  tokenIds(text: string): number[];
}

type Spec = Pick<TransformerConfig, "dtype" | "maxTokens" | "batchSize" | "threads"> & { model: string };

/**
 * Models loaded by this process, by spec. Per process on purpose: a model is hundreds of MB and
 * seconds to load, and the embedding and bertscore scorers of one run share it.
 */
const loaded = new Map<string, Promise<TransformerModel>>();

export function loadTransformer(spec: Spec): Promise<TransformerModel> {
  const key = JSON.stringify([spec.model, spec.dtype, spec.maxTokens, spec.batchSize, spec.threads]);
  let m = loaded.get(key);
  if (!m) {
    m = load(spec);
    m.catch(() => loaded.delete(key)); // a failed load is retried by the next caller
    loaded.set(key, m);
  }
  return m;
}

/** Where hub downloads are kept (never inside node_modules, which may be shared or read-only). */
export function hubCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.PARACAP_MODEL_CACHE ?? join(env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "paracap", "transformers");
}

async function load(spec: Spec): Promise<TransformerModel> {
  const source = modelSource(spec.model, spec.dtype);
  // Imported here: onnxruntime's native library is loaded only by runs that use a transformer scorer.
  const { AutoModel, AutoTokenizer, env, LogLevel } = await import("@huggingface/transformers");
  const started = performance.now();
  env.logLevel = LogLevel.ERROR;
  const id = source.kind === "dir" ? source.path : source.id;
  // A worker thread is one of a pool that already spreads over the cores: onnxruntime's own pool of
  // all cores in every worker would oversubscribe them.
  const threads = spec.threads ?? (isMainThread ? null : 1);
  // A directory never falls back to the hub (local_files_only is per call; env flags are process-wide).
  const options = source.kind === "dir" ? { local_files_only: true } : { local_files_only: false, cache_dir: hubCacheDir() };
  let tokenizer: Awaited<ReturnType<typeof AutoTokenizer.from_pretrained>>;
  let model: Awaited<ReturnType<typeof AutoModel.from_pretrained>>;
  try {
    tokenizer = await AutoTokenizer.from_pretrained(id, options);
    model = await AutoModel.from_pretrained(id, {
      ...options,
      dtype: spec.dtype,
      device: "cpu",
      session_options: threads === null ? {} : { intraOpNumThreads: threads, interOpNumThreads: 1 },
    });
  } catch (err) {
    const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
    const hint = source.kind === "hub" ? ` (no directory ${spec.model} here, so it was read as a hub id; downloading needs network access)` : "";
    throw new ModelError(`cannot load model ${spec.model}: ${why}${hint}`);
  }
  const session = (model as unknown as { sessions: Record<string, { outputNames: string[] }> }).sessions;
  const outputs = Object.values(session).flatMap((s) => s.outputNames);
  const specialIds = new Set<number>(tokenizer.all_special_ids);
  const loadSeconds = (performance.now() - started) / 1000;

  const runs = { calls: 0, texts: 0 };
  async function encodeBatch(texts: string[], output: string): Promise<EncodedText[]> {
    runs.calls++;
    runs.texts += texts.length;
    const enc = tokenizer(texts, { padding: true, truncation: true, max_length: spec.maxTokens });
    const result = (await model(enc)) as Record<string, { dims: number[]; data: Float32Array } | undefined>;
    const states = result[output];
    if (!states) throw new ModelError(`model ${spec.model} has no output ${output} (it has ${Object.keys(result).join(", ")})`);
    if (states.dims.length !== 3) throw new ModelError(`model ${spec.model}'s output ${output} has shape [${states.dims.join(", ")}], not per-token vectors [batch, tokens, dim]`);
    const [batch, seq, dim] = states.dims as [number, number, number];
    const ids = enc.input_ids.tolist() as bigint[][];
    const mask = enc.attention_mask.tolist() as bigint[][];
    const out: EncodedText[] = [];
    for (let b = 0; b < batch; b++) {
      // Padding is at the end (right-padding tokenizers) or anywhere: keep exactly the masked-in rows.
      const rows: number[] = [];
      for (let s = 0; s < seq; s++) if (mask[b]![s] === 1n) rows.push(s);
      const data = new Float32Array(rows.length * dim);
      rows.forEach((s, i) => data.set(states.data.subarray((b * seq + s) * dim, (b * seq + s + 1) * dim), i * dim));
      const tokenIds = rows.map((s) => Number(ids[b]![s]));
      out.push({ dim, data, len: rows.length, ids: tokenIds, special: tokenIds.map((t) => specialIds.has(t)) });
    }
    return out;
  }

  // The embedding and bertscore scorers encode the same batch one after the other: the second reuses the first's run.
  let last: { key: string; encoded: Promise<EncodedText[]> } | null = null;

  return {
    source,
    outputs,
    loadSeconds,
    threads,
    runs,
    encode(texts, output) {
      const key = JSON.stringify([output, texts]);
      if (last?.key !== key) {
        const encoded = encodeAll(texts, output);
        last = { key, encoded };
        encoded.catch(() => last?.encoded === encoded && (last = null));
      }
      return last.encoded;
    },
    tokenIds(text) {
      return tokenizer.encode(text, { add_special_tokens: false });
    },
  };

  async function encodeAll(texts: readonly string[], output: string): Promise<EncodedText[]> {
    const unique = [...new Set(texts)];
    // Similar lengths in one batch waste less compute on padding.
    unique.sort((a, b) => a.length - b.length);
    const byText = new Map<string, EncodedText>();
    for (let i = 0; i < unique.length; i += spec.batchSize) {
      const chunk = unique.slice(i, i + spec.batchSize);
      (await encodeBatch(chunk, output)).forEach((e, j) => byText.set(chunk[j]!, e));
    }
    return texts.map((t) => byText.get(t)!);
  }
}
