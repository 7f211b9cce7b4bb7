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

// letters or digits, with inner apostrophes kept (don't, o'clock); hyphens split words, as punctuation
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;
const POSSESSIVE = /['’]s$/;

/** The distinct words of a text, in first-occurrence order. */
export function wordSet(text: string): string[] {
  const seen = new Set<string>();
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const word = match[0].replace(POSSESSIVE, "");
    if (word.length > 0 && !DETERMINERS.has(word)) seen.add(word);
  }
  return [...seen];
}
