/**
 * A tiny transformers.js model directory, built by the tests because no weights can be downloaded:
 * an ONNX graph (input_ids, attention_mask, token_type_ids → Gather on an embedding table →
 * last_hidden_state [batch, seq, dim]), a WordPiece tokenizer.json, tokenizer_config.json and a BERT
 * config.json. The real loading, tokenising, batching and pooling code runs on it; with a lookup
 * table as the "network", every score is computable by hand from the table below.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import onnxProto from "onnx-proto";

const { onnx } = onnxProto;

/** Vocabulary in id order: the specials BERT expects, then a few lower-case words and one suffix piece. */
export const TINY_VOCAB = [
  "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
  "the", "cat", "dog", "sat", "ran", "on", "mat", "##s", "a", "not",
] as const;
export type TinyToken = (typeof TINY_VOCAB)[number];

export const TINY_DIM = 4;

/**
 * One row per vocabulary entry. [PAD] is deliberately non-zero: pooling that ignored the attention
 * mask would change every padded sentence's vector. "the" and "a" are equal (function words).
 */
export const TINY_TABLE: Record<TinyToken, [number, number, number, number]> = {
  "[PAD]": [9, 9, 9, 9],
  "[UNK]": [0, 0, 0, 3],
  "[CLS]": [1, 0, 0, 0],
  "[SEP]": [0, 1, 0, 0],
  "[MASK]": [0, 0, 0, 0],
  the: [0, 0, 1, 0],
  cat: [2, 0, 0, 2],
  dog: [2, 0, 0, 1],
  sat: [0, 2, 2, 0],
  ran: [0, 2, 1, 0],
  on: [1, 1, 1, 1],
  mat: [0, 0, 2, 2],
  "##s": [1, 0, 1, 0],
  a: [0, 0, 1, 0],
  not: [-1, -1, -1, -1],
};

/** The embedding row of a token (the tests' hand computations start here). */
export function row(t: TinyToken): number[] {
  return [...TINY_TABLE[t]];
}

export interface TinyModelOptions {
  /** a second output, `hidden_state_0`: last_hidden_state multiplied elementwise by this row (a stand-in for another layer) */
  scaledLayer?: [number, number, number, number];
  /** a pooled output, `sentence_embedding` [batch, dim] (mean over all positions), as some exports have */
  pooled?: boolean;
}

/** Writes the model directory and returns its path (dir itself). */
export function writeTinyModel(dir: string, opts: TinyModelOptions = {}): string {
  mkdirSync(join(dir, "onnx"), { recursive: true });
  writeFileSync(join(dir, "onnx/model.onnx"), encodeGraph(opts));
  writeTinyTokenizer(dir, TINY_DIM);
  return dir;
}

/** The WordPiece tokenizer files and a BERT config.json (hidden size `dim`) of a model directory. */
export function writeTinyTokenizer(dir: string, dim: number): void {
  writeFileSync(join(dir, "tokenizer.json"), JSON.stringify(tokenizerJson()));
  writeFileSync(
    join(dir, "tokenizer_config.json"),
    JSON.stringify({
      tokenizer_class: "BertTokenizer",
      do_lower_case: true,
      model_max_length: 512,
      pad_token: "[PAD]",
      unk_token: "[UNK]",
      cls_token: "[CLS]",
      sep_token: "[SEP]",
      mask_token: "[MASK]",
    }),
  );
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      model_type: "bert",
      architectures: ["BertModel"],
      hidden_size: dim,
      num_hidden_layers: 0,
      num_attention_heads: 1,
      vocab_size: TINY_VOCAB.length,
      max_position_embeddings: 512,
      pad_token_id: 0,
    }),
  );
}

function encodeGraph(opts: TinyModelOptions): Uint8Array {
  const T = onnx.TensorProto.DataType;
  const dynamic = (...names: string[]) => ({ dim: names.map((n) => (n === String(TINY_DIM) ? { dimValue: TINY_DIM } : { dimParam: n })) });
  const input = (name: string) => ({ name, type: { tensorType: { elemType: T.INT64, shape: dynamic("batch", "sequence") } } });
  const output = (name: string) => ({ name, type: { tensorType: { elemType: T.FLOAT, shape: dynamic("batch", "sequence", String(TINY_DIM)) } } });
  const table = TINY_VOCAB.flatMap((t) => TINY_TABLE[t]);
  const nodes: object[] = [{ opType: "Gather", input: ["embeddings", "input_ids"], output: ["last_hidden_state"], name: "lookup", attribute: [{ name: "axis", type: onnx.AttributeProto.AttributeType.INT, i: 0 }] }];
  const initializer: object[] = [{ name: "embeddings", dataType: T.FLOAT, dims: [TINY_VOCAB.length, TINY_DIM], floatData: table }];
  const outputs = [output("last_hidden_state")];
  if (opts.scaledLayer !== undefined) {
    initializer.push({ name: "scale", dataType: T.FLOAT, dims: [TINY_DIM], floatData: opts.scaledLayer });
    nodes.push({ opType: "Mul", input: ["last_hidden_state", "scale"], output: ["hidden_state_0"], name: "scaled" });
    outputs.push(output("hidden_state_0"));
  }
  if (opts.pooled) {
    nodes.push({ opType: "ReduceMean", input: ["last_hidden_state"], output: ["sentence_embedding"], name: "pool", attribute: [{ name: "axes", type: onnx.AttributeProto.AttributeType.INTS, ints: [1] }, { name: "keepdims", type: onnx.AttributeProto.AttributeType.INT, i: 0 }] });
    outputs.push({ name: "sentence_embedding", type: { tensorType: { elemType: T.FLOAT, shape: dynamic("batch", String(TINY_DIM)) } } });
  }
  const model = onnx.ModelProto.create({
    irVersion: 7,
    producerName: "paracap-tests",
    opsetImport: [{ domain: "", version: 13 }],
    graph: {
      name: "tiny",
      node: nodes,
      initializer,
      input: [input("input_ids"), input("attention_mask"), input("token_type_ids")],
      output: outputs,
    },
  });
  return onnx.ModelProto.encode(model).finish();
}

function tokenizerJson(): object {
  const special = (id: number) => ({ id, content: TINY_VOCAB[id], single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const specialToken = (t: string) => ({ SpecialToken: { id: t, type_id: 0 } });
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: [0, 1, 2, 3, 4].map(special),
    normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [specialToken("[CLS]"), { Sequence: { id: "A", type_id: 0 } }, specialToken("[SEP]")],
      pair: [specialToken("[CLS]"), { Sequence: { id: "A", type_id: 0 } }, specialToken("[SEP]"), { Sequence: { id: "B", type_id: 1 } }, { SpecialToken: { id: "[SEP]", type_id: 1 } }],
      special_tokens: {
        "[CLS]": { id: "[CLS]", ids: [2], tokens: ["[CLS]"] },
        "[SEP]": { id: "[SEP]", ids: [3], tokens: ["[SEP]"] },
      },
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: {
      type: "WordPiece",
      unk_token: "[UNK]",
      continuing_subword_prefix: "##",
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(TINY_VOCAB.map((t, i) => [t, i])),
    },
  };
}
