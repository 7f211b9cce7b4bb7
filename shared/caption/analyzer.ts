/**
 * Caption features (records.ts CaptionFeatures), computed once per distinct caption text: preprocessing,
 * word count, profanity, English check, verb presence and the sentence verdict. The NLP model and word
 * lists load once in createCaptionAnalyzer; features() is the hot path. Caching by text is the caller's job.
 */
import type { CaptionFeatures } from "../core/records.ts";
import { looksEnglish } from "./english.ts";
import { preprocessCaption } from "./preprocess.ts";
import { createProfanityMatcher, loadDefaultProfanityList } from "./profanity.ts";
import { isSentence, type SentenceClassifier } from "./sentence-rules.ts";
import { countWords } from "./word-count.ts";
import { createWinkTagger, type CaptionToken, type TaggedCaption } from "./wink-tagger.ts";

export interface CaptionAnalyzerOptions {
  /** sentence classifier behind `isSentence`; default "improved" */
  classifier?: SentenceClassifier;
  /** profanity words/phrases, lower-case; default: the shipped LDNOOBW list */
  profanity?: ReadonlySet<string>;
}

export interface CaptionAnalyzer {
  features(text: string): CaptionFeatures;
}

const HAS_WORD_CHAR = /[\p{L}\p{N}]/u;

/** Token lists of each sentence segment of a tagged caption. */
export function sentenceSegments(tagged: TaggedCaption): CaptionToken[][] {
  return tagged.sentences.map(([a, b]) => tagged.tokens.slice(a, b + 1));
}

/** Loads wink-nlp and the word lists once; the returned analyzer is safe to call millions of times. */
export function createCaptionAnalyzer(opts: CaptionAnalyzerOptions = {}): CaptionAnalyzer {
  const classifier = opts.classifier ?? "improved";
  const tagger = createWinkTagger();
  const profane = createProfanityMatcher(opts.profanity ?? loadDefaultProfanityList());
  return {
    features(raw) {
      const text = preprocessCaption(raw);
      const tagged = tagger.tag(text);
      // one pass over the tokens for the tag string, the verb check and the English check's words
      const tokens = tagged.tokens;
      const tags = new Array<string>(tokens.length);
      const lowerWords: string[] = [];
      let hasVerb = false;
      for (let i = 0; i < tokens.length; i++) {
        const t = tokens[i]!;
        tags[i] = t.tag;
        if (!hasVerb && t.tag.startsWith("VB")) hasVerb = true;
        if (HAS_WORD_CHAR.test(t.word)) lowerWords.push(t.word.toLowerCase());
      }
      return {
        text,
        words: countWords(tokens),
        profane: profane(text),
        english: looksEnglish(text, lowerWords),
        hasVerb,
        isSentence: isSentence(sentenceSegments(tagged), classifier),
        tags: tags.join(" "),
      };
    },
  };
}
