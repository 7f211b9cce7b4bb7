/**
 * Chung & Knight's word sets: a paragraph is the set of its words, lower-cased, with punctuation,
 * determiners and the possessive 's removed ("All of the above results were obtained by eliminating
 * punctuation, determiners, and 's"; without it the single-pass method did worse).
 */

/** Penn Treebank's closed DT class (a tagger would also tag some of these as pronouns; the set is the paper's intent). */
export const DETERMINERS: ReadonlySet<string> = new Set([
  "a", "an", "the", "this", "that", "these", "those", "all", "any", "some", "each", "every", "no",
  "another", "both", "either", "neither",
]);

// letters or digits, with inner apostrophes kept (don't, o'clock); hyphens split words, as punctuation;
// a leading apostrophe is kept too, so that the possessive of tokenised text ("the dog 's bowl", as
// Conceptual Captions writes it) is the possessive, not a word "s"
const WORD = /['’]?[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;
const POSSESSIVE = /['’]s$/;
const LEADING_QUOTE = /^['’]/;

/**
 * A contraction's second half as tokenised text writes it apart ("do n't", "ca n't", "you 're", as
 * Conceptual Captions and the Penn Treebank do): joined to the word before, it is the word untokenised
 * text has ("don't", "can't", "you're").
 */
const DETACHED_CLITIC = /^(?:n['’]t|['’](?:re|ve|ll|d|m))$/;
const SPACES = /^\s+$/;

/** The distinct words of a text, in first-occurrence order. */
export function wordSet(text: string): string[] {
  const lower = text.toLowerCase();
  const words: string[] = [];
  let prevEnd = -1;
  for (const match of lower.matchAll(WORD)) {
    let token = match[0];
    const start = match.index;
    if (DETACHED_CLITIC.test(token) && words.length > 0 && prevEnd >= 0 && SPACES.test(lower.slice(prevEnd, start))) {
      token = words.pop()! + token;
    }
    words.push(token);
    prevEnd = start + match[0].length;
  }
  const seen = new Set<string>();
  for (const w of words) {
    // (a leading apostrophe that is a quotation mark, as in 'hello', goes)
    const word = w.replace(POSSESSIVE, "").replace(LEADING_QUOTE, "");
    if (word.length > 0 && !DETERMINERS.has(word)) seen.add(word);
  }
  return [...seen];
}
