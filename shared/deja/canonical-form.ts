/**
 * Déjà Image-Captions' canonical caption forms (Chen et al., NAACL 2015): "We lemmatize all words,
 * convert prepositions to a special token "IN", and discard function words, numbers, and
 * punctuations", so "The bird flies in blue sky" and "A bird flying into the blue sky" are both
 * "bird fly IN blue sky". Captions "that do not include at least one verb, preposition, or
 * adjective" are trivial and dropped. Uses the process's one wink-nlp instance (wink-tagger.ts).
 */
import { sharedWinkNlp } from "../caption/wink-tagger.ts";
import type { Verdict } from "../core/filter.ts";

/** Universal POS tags of function words (closed classes), dropped from the form; prepositions (ADP) become "IN". */
const FUNCTION_POS: ReadonlySet<string> = new Set(["DET", "PRON", "AUX", "CCONJ", "SCONJ", "PART", "NUM", "PUNCT", "SYM", "SPACE"]);
/** A caption is kept if it has one of these: verb (an auxiliary counts: "Wine is the answer"), preposition, adjective. */
const CONTENT_POS: ReadonlySet<string> = new Set(["VERB", "AUX", "ADP", "ADJ"]);
/** wink token types that are never words of the form (numbers include ordinals: "19th"). */
const DROPPED_TYPES: ReadonlySet<string> = new Set(["number", "ordinal", "punctuation", "emoji", "emoticon", "symbol", "currency", "url", "email", "mention", "hashtag", "time"]);

export const PREPOSITION = "IN";

export interface CanonicalForm {
  /** space-joined tokens: the grouping key */
  readonly form: string;
  /** tokens of the form */
  readonly tokens: number;
  /** word tokens of the original caption (no punctuation) */
  readonly words: number;
}

/** The form, or why the caption has none: `no_verb_prep_adj` (trivial caption) or `empty_form`. */
export type CanonicalResult = CanonicalForm | { readonly drop: "no_verb_prep_adj" | "empty_form" };

export interface Canonicalizer {
  canonical(caption: string): CanonicalResult;
}

export function createCanonicalizer(): Canonicalizer {
  const nlp = sharedWinkNlp();
  const its = nlp.its;
  return {
    canonical(caption) {
      const toks = nlp.readDoc(caption).tokens();
      const pos = toks.out(its.pos) as string[];
      const lemmas = toks.out(its.lemma as never) as unknown as Array<string | null>; // its.lemma is typed for the full model add-ons
      const types = toks.out(its.type) as string[];
      const values = toks.out(its.value) as string[];
      const out: string[] = [];
      let content = false, words = 0;
      for (let i = 0; i < pos.length; i++) {
        const p = pos[i]!, type = types[i]!;
        if (type !== "punctuation") words++;
        if (CONTENT_POS.has(p)) content = true;
        if (DROPPED_TYPES.has(type)) continue;
        if (p === "ADP") out.push(PREPOSITION);
        else if (!FUNCTION_POS.has(p)) out.push((lemmas[i] ?? values[i]!).toLowerCase());
      }
      if (!content) return { drop: "no_verb_prep_adj" };
      if (!out.some((t) => t !== PREPOSITION)) return { drop: "empty_form" };
      return { form: out.join(" "), tokens: out.length, words };
    },
  };
}

/** As a filter verdict (core/filter.ts): keep, or drop with the reason. */
export function canonicalVerdict(result: CanonicalResult): Verdict {
  return "drop" in result ? { drop: result.drop } : true;
}

/**
 * The canonical-form pivot key of one caption (pivot style: a pure per-reference key, like
 * plugins/pivots.ts's; captions with the same key are one Déjà group), or null for a trivial caption.
 */
export function canonicalKey(canonicalizer: Canonicalizer, caption: string): string | null {
  const r = canonicalizer.canonical(caption);
  return "drop" in r ? null : `canonical:${r.form}`;
}
