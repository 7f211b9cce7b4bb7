/**
 * Universal POS (what wink-nlp gives) + word form + lemma + left context → Penn Treebank tags (what the
 * paper's sentence rules are written over). Universal POS has no tense or number, so those are recovered
 * from the form/lemma pair and, for base forms and -ed forms, from the preceding tokens.
 */
import { MODALS, PARTICIPLE_ONLY, PASSIVE_OR_PERFECT_AUX, PAST_ONLY } from "./verb-forms.ts";

/** One token as wink-nlp reports it. */
export interface UposToken {
  readonly value: string;
  /** Universal POS tag (NOUN, VERB, AUX, ADP, …) */
  readonly upos: string;
  /** null where wink-nlp gives none ("cannot," "dont," before punctuation) */
  readonly lemma: string | null;
}

const POSSESSIVE_PRONOUNS = new Set(["my", "your", "his", "its", "our", "their", "her", "thy"]);
const WH_DETERMINERS = new Set(["which", "what", "whatever", "whichever"]);
const WH_PRONOUNS = new Set(["who", "whom", "what", "whoever", "whomever", "whatever"]);
const WH_ADVERBS = new Set(["when", "where", "why", "how", "whenever", "wherever", "whereby", "whereupon"]);
const SENTENCE_FINAL = new Set([".", "!", "?", "...", "…"]);
const OPEN_BRACKETS = new Set(["(", "[", "{"]);
const CLOSE_BRACKETS = new Set([")", "]", "}"]);
const OPEN_QUOTES = new Set(["``", "“", "‘", "«"]);
const CLOSE_QUOTES = new Set(["''", "”", "’", "»"]);
// A base form after these is an infinitive (VB), otherwise a present-tense non-3sg form (VBP).
const INFINITIVE_TRIGGERS = new Set(["MD", "TO"]);
const DO_SUPPORT = new Set(["do", "does", "did"]);

function punctuationTag(w: string, prev: string | undefined): string {
  if (SENTENCE_FINAL.has(w) || /^[.!?]+$/.test(w)) return ".";
  if (w === ",") return ",";
  if (OPEN_BRACKETS.has(w)) return "-LRB-";
  if (CLOSE_BRACKETS.has(w)) return "-RRB-";
  if (OPEN_QUOTES.has(w)) return "``";
  if (CLOSE_QUOTES.has(w)) return "''";
  // Straight quotes are ambiguous: opening at the start or after a space-like token, closing otherwise.
  if (w === '"' || w === "'") return prev === undefined || prev === "-LRB-" || prev === "``" ? "``" : "''";
  if (w === "$" || w === "#") return w;
  if (w === "-" || w === "‐") return "HYPH";
  return ":"; // ; : – — -- …
}

function baseVerbTag(prevTags: readonly string[], prevWords: readonly string[]): string {
  // Skip adverbs ("can not see", "to really see") to find what governs the base form.
  for (let i = prevTags.length - 1; i >= 0; i--) {
    const t = prevTags[i]!;
    if (t === "RB") continue;
    if (INFINITIVE_TRIGGERS.has(t) || DO_SUPPORT.has(prevWords[i]!.toLowerCase())) return "VB";
    return "VBP";
  }
  return "VB"; // caption-initial base form: imperative (or a noun the model mistook, see sentence rules)
}

function pastVerbTag(word: string, prevTags: readonly string[], prevWords: readonly string[]): string {
  if (PAST_ONLY.has(word)) return "VBD";
  if (PARTICIPLE_ONLY.has(word)) return "VBN";
  for (let i = prevTags.length - 1; i >= 0; i--) {
    if (prevTags[i] === "RB") continue;
    return PASSIVE_OR_PERFECT_AUX.has(prevWords[i]!.toLowerCase()) ? "VBN" : "VBD";
  }
  return "VBN"; // caption-initial "Shown in …", "Built in 1890"
}

function verbTag(lower: string, lemma: string, prevTags: readonly string[], prevWords: readonly string[]): string {
  if (MODALS.has(lower)) return lower === "will" && prevTags.at(-1) === "DT" ? "NN" : "MD"; // "the will"
  switch (lower) {
    case "am": case "are": case "'re": case "’re": case "'m": case "’m": return "VBP";
    case "is": return "VBZ";
    case "'s": case "’s": return "VBZ";
    case "was": case "were": return "VBD";
    case "been": return "VBN";
    case "being": return "VBG";
    case "has": case "does": return "VBZ";
  }
  if (lower.endsWith("ing") && lemma !== lower) return "VBG";
  if (lemma === lower || lower === "be" || lower === "'ve" || lower === "’ve") return baseVerbTag(prevTags, prevWords);
  if (lower.endsWith("s") && !lemma.endsWith("s") || lower.endsWith("es")) return "VBZ";
  return pastVerbTag(lower, prevTags, prevWords);
}

function adjectiveTag(lower: string, lemma: string): string {
  if (lower === "more" || lower === "less" || lower === "fewer") return "JJR";
  if (lower === "most" || lower === "least" || lower === "fewest") return "JJS";
  if (lemma !== lower && lower.endsWith("er")) return "JJR";
  if (lemma !== lower && lower.endsWith("est")) return "JJS";
  return "JJ";
}

function adverbTag(lower: string, lemma: string): string {
  if (WH_ADVERBS.has(lower)) return "WRB";
  if (lower === "more" || lower === "less") return "RBR";
  if (lower === "most" || lower === "least") return "RBS";
  if (lemma !== lower && lower.endsWith("er")) return "RBR";
  return "RB";
}

function nounTag(lower: string, lemma: string, proper: boolean): string {
  const plural = lemma !== lower && /s$/.test(lower);
  if (proper) return plural ? "NNPS" : "NNP";
  return plural ? "NNS" : "NN";
}

// A verb never follows a determiner, possessive or adjective: there the model's VERB is a noun
// ("its capture", "the lunar far side") or an adjectival participle ("the only confirmed photo").
const NOMINAL_CONTEXT = /^(DT|PRP\$|POS|JJ|JJR|JJS|CD)$/;

/**
 * Corrects the model's VERB where English syntax rules a verb out: after a determiner-like word, and
 * for Titlecase words inside a caption (verbs are not capitalised mid-sentence; names are: "Park in Hoover").
 */
function nominalReading(value: string, lower: string, lemma: string, tag: string, i: number, prev: readonly string[]): string {
  if (i > 0 && /^\p{Lu}\p{Ll}/u.test(value) && !["VBG"].includes(tag)) return lemma !== lower && lower.endsWith("s") ? "NNPS" : "NNP";
  let j = prev.length - 1;
  while (j >= 0 && prev[j] === "RB") j--;
  if (j < 0 || !NOMINAL_CONTEXT.test(prev[j]!)) return tag;
  if (tag === "VBD" || tag === "VBN") return "JJ";
  if (tag === "VB" || tag === "VBP") return "NN";
  if (tag === "VBZ") return "NNS";
  return tag;
}

/** Penn Treebank tag of each token, in order. */
export function pennTags(tokens: readonly UposToken[]): string[] {
  const tags: string[] = [];
  const words: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const lower = t.value.toLowerCase();
    // No lemma: read the form as its own lemma (a base form), the safe reading for "cannot", "dont".
    const lemma = (t.lemma ?? t.value).toLowerCase();
    let tag: string;
    switch (t.upos) {
      case "PUNCT": tag = punctuationTag(t.value, tags.at(-1)); break;
      case "SYM": tag = t.value === "$" || t.value === "#" ? t.value : t.value === "%" ? "NN" : t.value === "&" ? "CC" : "SYM"; break;
      case "NUM": tag = "CD"; break;
      case "NOUN": tag = nounTag(lower, lemma, false); break;
      case "PROPN": tag = nounTag(lower, lemma, true); break;
      case "PRON":
        if (lower === "there") tag = "EX";
        else if (lower === "whose") tag = "WP$";
        else if (WH_PRONOUNS.has(lower)) tag = "WP";
        else if (lower === "which" || lower === "that" && tags.length > 0 && tags.at(-1)!.startsWith("NN")) tag = "WDT";
        else if (lower === "her") tag = /^(NOUN|PROPN|ADJ|NUM)$/.test(tokens[i + 1]?.upos ?? "") ? "PRP$" : "PRP";
        else if (POSSESSIVE_PRONOUNS.has(lower)) tag = "PRP$";
        else if (lower === "this" || lower === "that" || lower === "these" || lower === "those") tag = "DT";
        else tag = "PRP";
        break;
      case "DET":
        if (WH_DETERMINERS.has(lower)) tag = "WDT";
        else if (POSSESSIVE_PRONOUNS.has(lower)) tag = "PRP$";
        else tag = "DT";
        break;
      case "ADP": tag = lower === "to" ? "TO" : "IN"; break;
      case "SCONJ": tag = WH_ADVERBS.has(lower) ? "WRB" : "IN"; break;
      case "CCONJ": tag = "CC"; break;
      case "PART":
        if (lower === "to") tag = "TO";
        // "'s" after a pronoun or existential "there" is "is" ("there 's a dog", "it's"), else possessive.
        else if ((lower === "'s" || lower === "’s") && /^(PRP|EX|WP|WDT)$/.test(tags.at(-1) ?? "")) tag = "VBZ";
        else if (lower === "'s" || lower === "’s" || lower === "'" || lower === "’") tag = "POS";
        else if (lower === "not" || lower === "n't" || lower === "n’t") tag = "RB";
        else tag = "RP";
        break;
      case "ADV": tag = adverbTag(lower, lemma); break;
      case "ADJ": tag = adjectiveTag(lower, lemma); break;
      case "INTJ": tag = "UH"; break;
      case "VERB": case "AUX": tag = verbTag(lower, lemma, tags, words); break;
      default: tag = /[\p{L}\p{N}]/u.test(t.value) ? "NN" : "SYM";
    }
    if (t.upos === "VERB") tag = nominalReading(t.value, lower, lemma, tag, i, tags);
    tags.push(tag);
    words.push(t.value);
  }
  return tags;
}
