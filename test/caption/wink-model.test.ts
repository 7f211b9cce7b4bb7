import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type winkNLP from "wink-nlp";
import { coreModel, englishLiteModel } from "../../shared/caption/wink-model.ts";
import { expectEqual } from "../support/expect-equal.ts";

const require = createRequire(import.meta.url);
const packageModel = require("wink-eng-lite-web-model") as Record<string, unknown> & { core(): object; addons: Record<string, unknown> };
const JSON_PATH = require.resolve("wink-eng-lite-web-model/dist/languages/cur/models/eng-core-web-model.json");
const DATA = new URL("../../../shared/data/", import.meta.url).pathname;

/**
 * Where `a` and `b` differ as structures, or null: the same prototype, the same own keys in the same
 * order (and property attributes), typed arrays byte for byte, Sets' and Maps' entries in order, primitives by Object.is.
 */
function difference(a: unknown, b: unknown, path = "$"): string | null {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) {
    if (typeof a === "function" || typeof b === "function") return a === b ? null : `${path}: different functions`;
    return Object.is(a, b) ? null : `${path}: ${String(a)} vs ${String(b)}`;
  }
  if (a === b) return null;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${path}: prototypes differ`;
  if (ArrayBuffer.isView(a)) {
    const v = b as ArrayBufferView;
    if (a.byteLength !== v.byteLength || a.byteOffset !== v.byteOffset || a.buffer.byteLength !== v.buffer.byteLength) return `${path}: typed array extents differ`;
    return Buffer.compare(Buffer.from(a.buffer), Buffer.from(v.buffer)) === 0 ? null : `${path}: typed array bytes differ`;
  }
  if (a instanceof Set || a instanceof Map) {
    const x = [...a.entries()];
    const y = [...(b as Set<unknown> | Map<unknown, unknown>).entries()];
    return difference(x, y, `${path}<entries>`);
  }
  const ka = Reflect.ownKeys(a);
  const kb = Reflect.ownKeys(b);
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) return `${path}: keys differ`;
  for (const k of ka) {
    const da = Object.getOwnPropertyDescriptor(a, k)!;
    const db = Object.getOwnPropertyDescriptor(b, k)!;
    if (da.enumerable !== db.enumerable || da.writable !== db.writable || da.configurable !== db.configurable) return `${path}.${String(k)}: attributes differ`;
    const d = difference(da.value, db.value, `${path}.${String(k)}`);
    if (d) return d;
  }
  return null;
}

describe("the core model", () => {
  const theirs = packageModel.core();
  const ours = englishLiteModel().core as () => object;

  it("is the package's, field for field", () => {
    const mine = ours();
    expect(difference(mine, theirs)).toBeNull();
    // the comparison sees the kinds of objects the model holds
    const m = mine as { lexicon: unknown; features: { lexeme: { hash: object }; posClusters: { list: unknown[] } } };
    expect(m.lexicon).toBeInstanceOf(Uint32Array);
    expect(Object.getPrototypeOf(m.features.lexeme.hash)).toBeNull();
    expect(m.features.posClusters.list[0]).toBeInstanceOf(Set);
  });

  it("is told apart from the package's by one differing field, at any depth", () => {
    const cases: Array<(m: any) => void> = [
      (m) => (m.lexicon[1000] ^= 1),
      (m) => (m.xpansions = new Uint32Array(m.xpansions.length)),
      (m) => (m.features.lexeme.hash = { ...m.features.lexeme.hash }),
      (m) => (m.features.lexeme.hash.zyzzyva = 1),
      (m) => m.features.posClusters.list[3].add(99),
      (m) => (m.features.suffix.maxIndex += 1),
      (m) => (m.features.lexeme.index = undefined),
      (m) => m.packing.efList.pop(),
      (m) => (m.trex.lex[0] = "x"),
    ];
    for (const mutate of cases) {
      const m = ours();
      mutate(m);
      expect(difference(m, theirs)).not.toBeNull();
    }
  });

  it("is a new object at every call, sharing nothing with the last", () => {
    const a = ours() as any;
    const b = ours() as any;
    expect(a).not.toBe(b);
    expect(a.lexicon.buffer).not.toBe(b.lexicon.buffer);
    a.lexicon[0] ^= 1;
    a.features.lexeme.list.push("zyzzyva");
    a.features.lexeme.hash.zyzzyva = a.features.lexeme.list.length - 1;
    a.features.posClusters.list[1].add(42);
    a.packing.efList.push("zyzzyva");
    expect(difference(b, theirs)).toBeNull();
  });

  it("gives way to the package's core() when the JSON lacks a field it reads", () => {
    const dir = mkdtempSync(join(tmpdir(), "paracap-wink-model-"));
    try {
      const json = JSON.parse(readFileSync(JSON_PATH, "utf8")) as Record<string, any>;
      const without = (edit: (m: Record<string, any>) => void) => {
        const m = structuredClone(json);
        edit(m);
        const file = join(dir, "model.json");
        writeFileSync(file, JSON.stringify(m));
        return coreModel(file);
      };
      expect(without(() => {})).not.toBeNull();
      expect(without((m) => delete m.lexicon)).toBeNull();
      expect(without((m) => (m.lexicon = "not base64!"))).toBeNull();
      // what atob refuses or reads otherwise, though Buffer would decode it
      const lexicon = json.lexicon as string;
      expect(without((m) => (m.lexicon = lexicon.replace("+", "-")))).toBeNull();
      expect(without((m) => (m.lexicon = lexicon.replace("/", "_")))).toBeNull();
      expect(without((m) => (m.lexicon = lexicon.replace("A", "!")))).toBeNull();
      expect(without((m) => (m.lexicon = lexicon.replace("A", "=")))).toBeNull();
      expect(without((m) => (m.lexicon = lexicon.replace("A", " ")))).toBeNull();
      expect(without((m) => (m.lexicon = lexicon.slice(0, -1)))).toBeNull();
      // bytes that are no whole number of 32-bit words (the package throws)
      expect(without((m) => (m.lexicon = lexicon.slice(0, -4) + "AAAA"))).toBeNull();
      expect(without((m) => delete m.features.lexeme)).toBeNull();
      expect(without((m) => delete m.features.prefix)).toBeNull();
      expect(without((m) => delete m.pos)).toBeNull();
      expect(without((m) => delete m.packing.layout)).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the model object", () => {
  it("has the package's parts but core", () => {
    const model = englishLiteModel() as unknown as Record<string, unknown>;
    expect(Object.getPrototypeOf(model)).toBeNull();
    expect(Object.keys(model)).toEqual(Object.keys(packageModel));
    for (const k of Object.keys(packageModel)) if (k !== "core" && k !== "addons") expect(model[k], k).toBe(packageModel[k]);
    const addons = model.addons as Record<string, unknown>;
    expect(Object.getPrototypeOf(addons)).toBeNull();
    expect(Object.keys(addons)).toEqual(Object.keys(packageModel.addons));
    for (const k of Object.keys(packageModel.addons)) expect(addons[k], k).toBe(packageModel.addons[k]);
  });
});

describe("wink-nlp on this model", () => {
  const createNlp = require("wink-nlp") as typeof winkNLP;
  const texts = readFileSync(join(DATA, "paraphrase/msr_paraphrase_train.txt"), "utf8")
    .split("\n")
    .slice(1)
    .flatMap((l) => l.split("\t").slice(3, 5))
    .concat(["The bridge over the river\u00a0was built in 1890.", "Alan Turing's statue at Bletchley Park.", "a U.S. dime, which is 17.9 mm in diameter", "taking it all in -- a closer look", "15-inch guns; AIN’T it?"])
    .filter((t) => t.trim() !== "");
  const tagAll = (model: unknown) => {
    const nlp = createNlp(model as never, ["sbd", "pos"]);
    const its = nlp.its as unknown as Record<"value" | "pos" | "lemma" | "precedingSpaces" | "type" | "span", never>;
    return texts.map((t) => {
      const doc = nlp.readDoc(t);
      const toks = doc.tokens();
      return [toks.out(its.value), toks.out(its.pos), toks.out(its.lemma), toks.out(its.precedingSpaces), toks.out(its.type), doc.sentences().out(its.span)];
    });
  };
  it("tags real sentences exactly as on the package's model", () => {
    expect(texts.length).toBeGreaterThan(8000);
    const ours = tagAll(englishLiteModel());
    const theirs = tagAll(packageModel);
    expectEqual(ours, theirs);
  });
});
