/**
 * A BERT-shaped ONNX encoder with random weights, for benchmarks: the same operator shapes as a real
 * checkpoint (embedding table, L layers of multi-head self-attention and a feed-forward block, layer
 * norms), so onnxruntime does the same arithmetic and holds the same weights as for the real model.
 * What it computes is meaningless; only its cost is measured. No weights can be downloaded here.
 * Tokenizer: the tests' tiny WordPiece (every word one token, mostly [UNK]).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import onnxProto from "onnx-proto";
import { writeTinyTokenizer } from "../../../test/semantic/tiny-model.ts";

const { onnx } = onnxProto;

export interface EncoderShape {
  vocab: number;
  hidden: number;
  layers: number;
  heads: number;
  ffn: number;
  maxPositions: number;
}

/** sentence-transformers/all-MiniLM-L6-v2 (22.7 M parameters, 90 MB in fp32). */
export const MINILM_L6: EncoderShape = { vocab: 30522, hidden: 384, layers: 6, heads: 12, ffn: 1536, maxPositions: 512 };
/** sentence-transformers/all-mpnet-base-v2 (BERT-base size: 109 M parameters, 438 MB in fp32). */
export const BASE_12: EncoderShape = { vocab: 30527, hidden: 768, layers: 12, heads: 12, ffn: 3072, maxPositions: 514 };

export function parameterCount(s: EncoderShape): number {
  const layer = 4 * (s.hidden * s.hidden + s.hidden) + 2 * s.hidden * s.ffn + s.ffn + s.hidden + 4 * s.hidden;
  return (s.vocab + s.maxPositions) * s.hidden + 2 * s.hidden + s.layers * layer;
}

export function writeShapedModel(dir: string, s: EncoderShape): string {
  mkdirSync(join(dir, "onnx"), { recursive: true });
  writeFileSync(join(dir, "onnx/model.onnx"), encode(s));
  writeTinyTokenizer(dir, s.hidden);
  return dir;
}

function encode(s: EncoderShape): Uint8Array {
  const T = onnx.TensorProto.DataType;
  let seed = 1;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5) * 0.1;
  const init: object[] = [];
  const nodes: object[] = [];
  const weight = (name: string, dims: number[], fill?: number) => {
    const n = dims.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    for (let i = 0; i < n; i++) data[i] = fill ?? random();
    init.push({ name, dataType: T.FLOAT, dims, rawData: new Uint8Array(data.buffer) });
    return name;
  };
  const ints = (name: string, values: number[]) => {
    init.push({ name, dataType: T.INT64, dims: [values.length], int64Data: values });
    return name;
  };
  let k = 0;
  const node = (opType: string, inputs: string[], attribute: object[] = []) => {
    const out = `t${k++}`;
    nodes.push({ opType, input: inputs, output: [out], name: out, attribute });
    return out;
  };
  const intAttr = (name: string, i: number) => ({ name, type: onnx.AttributeProto.AttributeType.INT, i });
  const intsAttr = (name: string, v: number[]) => ({ name, type: onnx.AttributeProto.AttributeType.INTS, ints: v });
  const floatAttr = (name: string, f: number) => ({ name, type: onnx.AttributeProto.AttributeType.FLOAT, f });
  const H = s.hidden;
  const dh = H / s.heads;
  const layerNorm = (x: string, p: string) => node("LayerNormalization", [x, weight(`${p}.g`, [H], 1), weight(`${p}.b`, [H], 0)], [intAttr("axis", -1), floatAttr("epsilon", 1e-12)]);
  const dense = (x: string, p: string, from: number, to: number) => node("Add", [node("MatMul", [x, weight(`${p}.w`, [from, to])]), weight(`${p}.bias`, [to])]);

  // token + position embeddings (positions 0..seq-1 from the ids' shape)
  const tokens = node("Gather", [weight("word_embeddings", [s.vocab, H]), "input_ids"], [intAttr("axis", 0)]);
  const seqLen = node("Gather", [node("Shape", ["input_ids"]), ints("one", [1])], [intAttr("axis", 0)]);
  const positions = node("Range", [node("Squeeze", [ints("zero_", [0])]), node("Squeeze", [seqLen]), node("Squeeze", [ints("step_", [1])])]);
  const posEmb = node("Gather", [weight("position_embeddings", [s.maxPositions, H]), positions], [intAttr("axis", 0)]);
  let x = layerNorm(node("Add", [tokens, posEmb]), "emb.ln");
  const heads = ints("heads_shape", [0, 0, s.heads, dh]);
  const merged = ints("merged_shape", [0, 0, H]);
  const scale = weight("scale", [], 1 / Math.sqrt(dh));
  for (let l = 0; l < s.layers; l++) {
    const p = `l${l}`;
    const q = node("Transpose", [node("Reshape", [dense(x, `${p}.q`, H, H), heads])], [intsAttr("perm", [0, 2, 1, 3])]);
    const kT = node("Transpose", [node("Reshape", [dense(x, `${p}.k`, H, H), heads])], [intsAttr("perm", [0, 2, 3, 1])]);
    const v = node("Transpose", [node("Reshape", [dense(x, `${p}.v`, H, H), heads])], [intsAttr("perm", [0, 2, 1, 3])]);
    const probs = node("Softmax", [node("Mul", [node("MatMul", [q, kT]), scale])], [intAttr("axis", -1)]);
    const ctx = node("Reshape", [node("Transpose", [node("MatMul", [probs, v])], [intsAttr("perm", [0, 2, 1, 3])]), merged]);
    x = layerNorm(node("Add", [x, dense(ctx, `${p}.o`, H, H)]), `${p}.ln1`);
    const ff = dense(node("Relu", [dense(x, `${p}.ff1`, H, s.ffn)]), `${p}.ff2`, s.ffn, H);
    x = layerNorm(node("Add", [x, ff]), `${p}.ln2`);
  }
  nodes.push({ opType: "Identity", input: [x], output: ["last_hidden_state"], name: "out" });

  const input = (name: string) => ({ name, type: { tensorType: { elemType: T.INT64, shape: { dim: [{ dimParam: "batch" }, { dimParam: "sequence" }] } } } });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: "paracap-bench",
    opsetImport: [{ domain: "", version: 17 }],
    graph: {
      name: "shaped",
      node: nodes,
      initializer: init,
      input: [input("input_ids"), input("attention_mask"), input("token_type_ids")],
      output: [{ name: "last_hidden_state", type: { tensorType: { elemType: T.FLOAT, shape: { dim: [{ dimParam: "batch" }, { dimParam: "sequence" }, { dimValue: H }] } } } }],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}
