/**
 * What wink-nlp's English lexicon (the core model the tagger loaded) says about a word out of context:
 * which parts of speech it can take and its lemma. The POS model picks one tag per token from context
 * and misreads plain captions ("A man rides a horse": "rides" NOUN); the lexicon tells which other
 * readings a word has, so the sentence rules can reconsider a tag where the syntax calls for it.
 * Only the model's own words (its intrinsic lexicon) are known; words it met in text are not.
 */

/** The parts of the core model object (wink-model.ts coreModel, or the package's core()) read here. */
interface LoadedCore {
  lexicon: Uint32Array;
  packing: { size: number; layout: Record<string, number[]> };
  features: {
    lexeme: { hash: Record<string, number>; list: string[]; intrinsicSize: number };
    posClusters: { list: unknown[] };
  };
  pos: { hash: Record<string, number> };
}

export interface LexicalEntry {
  /** Universal POS tags the lexicon allows (NOUN, VERB, …) */
  readonly pos: ReadonlySet<string>;
  readonly lemma: string;
  /** the word is its own lemma's base form (not an inflection) */
  readonly baseForm: boolean;
}

export interface Lexicon {
  /** the entry of the lower-case word, or undefined when the model does not know it */
  entry(lowerWord: string): LexicalEntry | undefined;
}

function isLoadedCore(c: unknown): c is LoadedCore {
  const o = c as Partial<LoadedCore> | null;
  return typeof o === "object" && o !== null && o.lexicon instanceof Uint32Array && typeof o.packing?.size === "number"
    && ["lexemeCID", "lemma", "isBaseForm"].every((p) => Array.isArray(o.packing!.layout[p]))
    && typeof o.features?.lexeme?.hash === "object" && typeof o.features.lexeme.intrinsicSize === "number"
    && Array.isArray(o.features.posClusters?.list) && typeof o.pos?.hash === "object";
}

/** A reader over a loaded core model; a model of another shape gives a lexicon that knows no word. */
export function createLexicon(core: unknown): Lexicon {
  if (!isLoadedCore(core)) return { entry: () => undefined };
  const { lexicon, packing, features } = core;
  const posName: string[] = [];
  for (const [name, k] of Object.entries(core.pos.hash)) posName[k] = name;
  const { hash, list, intrinsicSize } = features.lexeme;
  // the lexeme's packed field `prop`, as wink-nlp's cache.property reads an intrinsic lexeme's
  const field = (index: number, prop: string): number => {
    const [word, mask, shift] = packing.layout[prop]!;
    return (lexicon[word! + index * packing.size]! & mask!) >>> shift!;
  };
  const clusters = new Map<number, ReadonlySet<string>>();
  const cluster = (cid: number): ReadonlySet<string> => {
    let set = clusters.get(cid);
    if (set === undefined) {
      const c = features.posClusters.list[cid];
      // a Set of POS indices once the model is loaded, the "NOUN_VERB" string in the raw JSON
      set = new Set(c instanceof Set ? [...c].map((k: number) => posName[k] ?? "") : typeof c === "string" ? c.split("_") : []);
      clusters.set(cid, set);
    }
    return set;
  };
  return {
    entry(lowerWord) {
      if (!Object.prototype.hasOwnProperty.call(hash, lowerWord)) return undefined;
      const index = hash[lowerWord]!;
      if (index >= intrinsicSize) return undefined;
      return { pos: cluster(field(index, "lexemeCID")), lemma: list[field(index, "lemma")] ?? lowerWord, baseForm: field(index, "isBaseForm") === 1 };
    },
  };
}
