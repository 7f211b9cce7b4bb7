/**
 * Second readings the lexicon allows for tokens the POS model may have mis-tagged, handed to the improved
 * sentence rules (sentence-rules.ts), which take one only where the syntax around the token calls for
 * it. The Penn tags themselves (and so the paper rules and `hasVerb`) are left as the model gave them.
 */
import type { Lexicon } from "./lexicon.ts";
import { isThirdPersonSingular } from "./verb-forms.ts";

/**
 * The alternative tag of a token, or undefined:
 * - "VBZ" for a plural noun that is also the regular -s form of a verb ("A man rides a horse": "rides" NNS);
 * - "VBP" for a singular noun that is also a verb's base form ("police officers exit the residence":
 *   "exit" NN), but not an -ing noun ("reading", "painting": a gerund or participle, never finite);
 * - "NNS" for a capitalised word tagged as a proper noun whose lower-case form is a plural common noun
 *   ("Children play football": "Children" NNP at the caption's start).
 */
export function lexicalAlternative(word: string, tag: string, lemma: string | null, lexicon: Lexicon): string | undefined {
  const lower = word.toLowerCase();
  if (tag === "NNS") {
    const base = (lemma ?? "").toLowerCase();
    if (base === "" || !isThirdPersonSingular(lower, base)) return undefined;
    return lexicon.entry(base)?.pos.has("VERB") ? "VBZ" : undefined;
  }
  if (tag === "NN") {
    if (lower.endsWith("ing")) return undefined;
    const entry = lexicon.entry(lower);
    return entry !== undefined && entry.baseForm && entry.pos.has("VERB") ? "VBP" : undefined;
  }
  if ((tag === "NNP" || tag === "NNPS") && /^\p{Lu}\p{Ll}+$/u.test(word)) {
    const entry = lexicon.entry(lower);
    if (entry === undefined || entry.baseForm || !entry.pos.has("NOUN") || entry.pos.has("PROPN")) return undefined;
    return entry.lemma !== lower ? "NNS" : undefined;
  }
  return undefined;
}
