/**
 * wink-nlp's English lite model (wink-eng-lite-web-model) with a cheaper core model read. The package's
 * core() deep-copies its 3 MB model JSON, which its module `require`s once (JSON.parse(JSON.stringify(…))
 * on every call), and decodes the lexicon's base64 with atob and a loop per byte: ~70 ms of CPU and as
 * much garbage in every run that tags captions. coreModel() here builds the same object from one
 * readFileSync + JSON.parse per call (each call's object is its own: wink-nlp writes to it) and Buffer's
 * base64 decoder writing straight into the Uint32Array. Every other part of the model (sbd, pos, ner,
 * negation, sa, metaCER, featureFn, addons) is the package's own module; the package's model.js itself
 * is not loaded, as it would load the JSON through read-core-model.js.
 *
 * Loading wink-nlp with the model (createWinkTagger) costs ~72 ms of CPU instead of ~99, and leaves
 * 28 MB of heap instead of 39 (the package's parsed JSON stays in require's cache). What is left of
 * core() (~40 ms) is JSON.parse (~15 with the read) and the lexeme lookup (87,593 keys in a dictionary,
 * ~22): a v8.serialize'd copy of the parsed model deserializes ~10 ms faster, but its strings then cost
 * the lookup as much more, and the lexicon as raw bytes would save ~3 ms: no cached form pays.
 *
 * The result must be the package's, field for field (test/caption/wink-model.test.ts compares them
 * with the installed package's, so an upgrade that reads its JSON otherwise fails there): a model JSON
 * without the fields read here, a package without these dist files, or base64 Buffer might read
 * otherwise than atob fall back to the package's own core() (or whole model).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Model } from "wink-nlp";

// Each path a string literal: scripts/build-functions.ts finds the packages the functions need from them.
const require = createRequire(import.meta.url);

/** The model JSON's parts coreModel reads or rewrites; everything else passes through as parsed. */
interface CoreJson {
  lexicon: string | Uint32Array;
  xpansions: string | Uint32Array;
  packing: { layout: Record<string, number[]>; efList?: string[] };
  features: Record<string, Feature>;
  pos: { hash: Record<string, number> };
}
interface Feature {
  list: unknown[];
  hash?: Record<string, number>;
  intrinsicSize?: number;
  index?: number;
  maxIndex?: number;
}

/**
 * The package's model, but for core(). Falls back to the package's model object whole if its files are
 * not where expected. `onCore` is handed the core model object wink-nlp loads (lexicon.ts reads it).
 */
export function englishLiteModel(onCore?: (core: object) => void): Model {
  try {
    const jsonPath = require.resolve("wink-eng-lite-web-model/dist/languages/cur/models/eng-core-web-model.json");
    const packageCore = () => (require("wink-eng-lite-web-model/dist/load-core-model.js") as () => unknown)();
    // the package's model.js, built from the same modules (Object.create(null), this key order)
    const model = Object.create(null) as Record<string, unknown>;
    model.core = () => {
      const core = coreModel(jsonPath) ?? packageCore();
      onCore?.(core as object);
      return core;
    };
    model.sbd = require("wink-eng-lite-web-model/dist/load-sbd-model.js");
    model.pos = require("wink-eng-lite-web-model/dist/load-pos-model.js");
    model.ner = require("wink-eng-lite-web-model/dist/load-ner-model.js");
    model.negation = require("wink-eng-lite-web-model/dist/load-negation-model.js");
    model.sa = require("wink-eng-lite-web-model/dist/load-sa-model.js");
    model.metaCER = require("wink-eng-lite-web-model/dist/load-cer-meta-model.js");
    model.featureFn = require("wink-eng-lite-web-model/dist/feature.js");
    const addons = Object.create(null) as Record<string, unknown>;
    addons.stem = require("wink-eng-lite-web-model/dist/porter-stemmer.js");
    addons.lemmatize = require("wink-eng-lite-web-model/dist/lemmatize.js");
    addons.readabilityStats = require("wink-eng-lite-web-model/dist/readability-stats.js");
    addons.wordVectors = undefined;
    model.addons = addons;
    return model as unknown as Model;
  } catch {
    const whole = require("wink-eng-lite-web-model") as Model & { core(): object };
    if (!onCore) return whole;
    return { ...whole, core: () => {
      const core = whole.core();
      onCore(core);
      return core;
    } } as Model;
  }
}

/**
 * The core model as the package's core() gives it (read-core-model.js, then load-core-model.js), read
 * from `jsonPath`; null when the JSON lacks a field this reads (the caller then uses the package's).
 */
export function coreModel(jsonPath: string): object | null {
  const model = JSON.parse(readFileSync(jsonPath, "utf8")) as CoreJson;
  if (!isCoreJson(model)) return null;
  const { packing, features } = model;
  const lexicon = uint32FromBase64(model.lexicon as string);
  const xpansions = uint32FromBase64(model.xpansions as string);
  if (!lexicon || !xpansions) return null;
  model.lexicon = lexicon;
  model.xpansions = xpansions;
  // a lookup (value -> index in list) for each feature packed by index, and for the lexemes
  for (const f in packing.layout) if (packing.layout[f]![3] === 0) features[f]!.hash = indexByValue(features[f]!.list);
  const lexeme = features.lexeme!;
  lexeme.hash = indexByValue(lexeme.list);
  // each POS cluster ("ADJ_NOUN") as the Set of its tags' indices (0 for a tag pos.hash lacks)
  const clusters = features.posClusters!.list;
  const pos = model.pos.hash;
  for (let k = 0; k < clusters.length; k++) clusters[k] = new Set((clusters[k] as string).split("_").map((tag) => pos[tag] || 0));
  // load-core-model.js: the sizes the cache grows from, and the features packed as extra fields
  const efList: string[] = [];
  packing.efList = efList;
  for (const f in packing.layout) {
    const layout = packing.layout[f]!;
    if (layout[3] === 0) {
      const feature = features[f]!;
      feature.intrinsicSize = feature.list.length;
      feature.index = feature.list.length;
      feature.maxIndex = layout[1]! >>> layout[2]!;
    }
    if (layout[4] === 1) efList.push(f);
  }
  lexeme.intrinsicSize = lexeme.list.length;
  lexeme.index = lexeme.list.length;
  return model;
}

function isCoreJson(m: unknown): m is CoreJson {
  const o = m as Partial<CoreJson> | null;
  if (typeof o !== "object" || o === null || typeof o.lexicon !== "string" || typeof o.xpansions !== "string") return false;
  if (typeof o.packing?.layout !== "object" || o.packing.layout === null || typeof o.features !== "object" || o.features === null) return false;
  if (typeof o.pos?.hash !== "object" || o.pos.hash === null) return false;
  const hasList = (f: string) => Array.isArray(o.features![f]?.list);
  if (!hasList("lexeme") || !hasList("posClusters") || !o.features.posClusters!.list.every((c) => typeof c === "string")) return false;
  for (const f in o.packing.layout) {
    const layout = o.packing.layout[f];
    if (!Array.isArray(layout)) return false;
    if (layout[3] === 0 && (!hasList(f) || typeof layout[1] !== "number" || typeof layout[2] !== "number")) return false;
  }
  return true;
}

/** `list`'s values to their index, in an object without a prototype (the last index of a repeated value). */
function indexByValue(list: unknown[]): Record<string, number> {
  const hash = Object.create(null) as Record<string, number>;
  for (let k = 0; k < list.length; k++) hash[list[k] as string] = k;
  return hash;
}

/**
 * The bytes of `base64` as a Uint32Array of its own (platform byte order, as the package's view of
 * atob's bytes), decoded by Buffer straight into it; null where Buffer might read the text otherwise
 * than atob, or its bytes are no whole number of words (the package throws there). Buffer reads the
 * URL-safe "-" and "_" too (atob throws), hence their test; it skips any other character outside the
 * alphabet (atob throws or, for white space, skips it too), and each skipped one leaves it short of
 * the length byteLength reckons from a padded text's length: the test on `written`. (Cheaper than a
 * regular expression over the 1.9 MB of the lexicon: ~0.2 ms against ~4.)
 */
function uint32FromBase64(base64: string): Uint32Array | null {
  if (base64.length % 4 !== 0 || base64.includes("-") || base64.includes("_")) return null;
  const bytes = Buffer.byteLength(base64, "base64");
  if (bytes % 4 !== 0) return null;
  const words = new Uint32Array(bytes / 4);
  const written = Buffer.from(words.buffer).write(base64, "base64");
  return written === bytes ? words : null;
}
