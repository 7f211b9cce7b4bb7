/**
 * Word tokens for the thesis (Java-style) metrics: Levenshtein, n-gram overlaps, Cordeiro BLEU, Sumo.
 * An approximation of the reference's CoreNLP PTB tokens with punctuation-only tokens dropped (spec §5.3):
 * lower-cased; hyphenated words, numbers with `.`/`,` inside and `PG&E`-style words stay one token; clitics split
 * off as their own tokens (`john's` → `john` `'s`, `can't` → `ca` `n't`); everything else that is not a letter or
 * digit separates tokens and is dropped. Unlike Java's ASCII `\W`, non-ASCII letters are kept (the reference's
 * dropping of CJK/Cyrillic tokens is an artefact, not a choice).
 */

// A word: letters/digits/marks, optionally joined by single inner `-`, `.`, `,`, `&`, `'` (PTB keeps these inside).
const WORD_RE = /[\p{L}\p{N}\p{M}]+(?:[-.,&'][\p{L}\p{N}\p{M}]+)*/gu;
// PTB clitics, split off the end of a word.
const CLITIC_RE = /^(.+?)(n't|'s|'re|'ve|'ll|'d|'m)$/;

/** Lower-cased word tokens of `text`, punctuation dropped; `[]` for a text without words. */
export function wordTokens(text: string): string[] {
  const normalised = text.toLowerCase().replace(/[\u2018\u2019\u02bc]/g, "'");
  const out: string[] = [];
  for (const match of normalised.matchAll(WORD_RE)) {
    const word = match[0];
    const clitic = word.includes("'") ? CLITIC_RE.exec(word) : null;
    if (clitic) out.push(clitic[1]!, clitic[2]!);
    else out.push(word);
  }
  return out;
}
