/**
 * Tokenises, sentence-splits and Penn-tags a caption with wink-nlp (English lite model). The model is
 * loaded once per process (or worker thread) and shared by every tagger: wink-nlp cannot load the
 * model more than about 20 times in one process (each load grows a shared structure until
 * JSON.stringify fails with "Invalid string length"), and a warm cloud function instance or a
 * long local run creates a tagger per shard. `tag` is on the hot path (once per distinct caption).
 */
import { createRequire } from "node:module";
import type winkNLP from "wink-nlp";
import { lexicalAlternative } from "./lexical-alternatives.ts";
import { createLexicon, type Lexicon } from "./lexicon.ts";
import { pennTags } from "./penn-tags.ts";
import { englishLiteModel } from "./wink-model.ts";

// Required on first use, not at import: loading the model costs ~70 ms of CPU, which commands that
// only reach this module through shared imports (`paracap cloud status`, `extract`) never need.
const require = createRequire(import.meta.url);

/** One token of a caption with its Penn tag. */
export interface CaptionToken {
  readonly word: string;
  readonly tag: string;
  /** whitespace precedes this token in the text (false joins "15", "-", "inch") */
  readonly spaceBefore: boolean;
  /** another tag the lexicon allows where the model's may be wrong (lexical-alternatives.ts); only the improved rules read it */
  readonly alt?: string;
}

/** A tagged caption: all tokens, and the sentence segments as [first, last] token indices (inclusive). */
export interface TaggedCaption {
  readonly tokens: readonly CaptionToken[];
  readonly sentences: readonly (readonly [number, number])[];
}

export interface CaptionTagger {
  tag(text: string): TaggedCaption;
}

let shared: { nlp: ReturnType<typeof winkNLP>; lexicon: Lexicon } | null = null;

/** wink-nlp with only the pipes the tagger needs (sentence boundaries and POS), and its lexicon, loaded on first use. */
function loadNlp(): { nlp: ReturnType<typeof winkNLP>; lexicon: Lexicon } {
  if (shared) return shared;
  const createNlp = require("wink-nlp") as typeof winkNLP;
  let core: object | undefined;
  // the package's model, read faster (wink-model.ts); its core model object also holds the lexicon
  const nlp = createNlp(englishLiteModel((c) => (core = c)), ["sbd", "pos"]);
  shared = { nlp, lexicon: createLexicon(core) };
  return shared;
}

/** The process's one wink-nlp instance (sentence boundaries, POS, lemmas), for other per-caption steps (deja/canonical-form.ts): never a second model load. */
export function sharedWinkNlp(): ReturnType<typeof winkNLP> {
  return loadNlp().nlp;
}

export function createWinkTagger(): CaptionTagger {
  const { nlp, lexicon } = loadNlp();
  const its = nlp.its;
  return {
    tag(text) {
      if (text === "") return { tokens: [], sentences: [] };
      const doc = nlp.readDoc(text);
      const toks = doc.tokens();
      const values = toks.out(its.value) as string[];
      const upos = toks.out(its.pos) as string[];
      const lemmas = toks.out(its.lemma as never) as unknown as Array<string | null>; // its.lemma is typed for the full model add-ons
      const spaces = toks.out(its.precedingSpaces as never) as unknown as string[]; // ditto
      const tags = pennTags(values.map((value, i) => ({ value, upos: upos[i]!, lemma: lemmas[i] ?? null })));
      const tokens = values.map((word, i): CaptionToken => {
        const tag = tags[i]!;
        const alt = lexicalAlternative(word, tag, lemmas[i] ?? null, lexicon);
        return alt === undefined ? { word, tag, spaceBefore: spaces[i] !== "" } : { word, tag, spaceBefore: spaces[i] !== "", alt };
      });
      const sentences = doc.sentences().out(its.span) as unknown as [number, number][];
      return { tokens, sentences };
    },
  };
}
