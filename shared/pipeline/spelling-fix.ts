/**
 * "Only a spelling edit": a history pair such as "… and suject to debate" / "… and subject to debate"
 * (syntactic 0.99) is one revision fixing a typo in the other, not a paraphrase.
 *
 * Definition. Tokens are maximal runs of letters, digits and word-internal apostrophes, lower-cased
 * (so whitespace, punctuation and case never count). Two captions differ only by a spelling edit when
 *  1. their tokens, concatenated without separators, are equal (differences in whitespace, punctuation,
 *     case, or a word split/joined: "every day" / "everyday"); or
 *  2. they have the same number of tokens, 1 to MAX_EDITED_TOKENS positions differ, and every differing
 *     token pair is a small edit: no digit in either token (a changed number or date is a change of
 *     content), and a Damerau–Levenshtein distance (insert, delete, substitute, swap adjacent letters)
 *     ≤ 1 when the shorter token has ≤ 4 characters, ≤ 2 otherwise, and below half the shorter length
 *     (so "cat"/"dog" or "is"/"an" never count as typos).
 * Without a dictionary, a one-letter change between two real words ("now"/"not", "man"/"men") also
 * counts: such a pair differs by one letter and is not a paraphrase pair either.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const damerau = require("damerau-levenshtein") as (a: string, b: string) => { steps: number };

/** At most this many tokens may be edited for a pair to count as a spelling fix. */
export const MAX_EDITED_TOKENS = 2;

const TOKEN = /[\p{L}\p{M}\p{N}]+(?:['’][\p{L}\p{M}]+)*/gu;
const DIGIT = /\p{N}/u;

export function spellingTokens(text: string): string[] {
  return text.normalize("NFC").toLowerCase().match(TOKEN) ?? [];
}

/** True when `x` → `y` is a small spelling edit of one word (see the module comment). */
export function isTypoEdit(x: string, y: string): boolean {
  if (DIGIT.test(x) || DIGIT.test(y)) return false;
  const shorter = Math.min([...x].length, [...y].length);
  const steps = damerau(x, y).steps;
  return steps <= (shorter <= 4 ? 1 : 2) && steps * 2 < shorter;
}

/** True when captions `a` and `b` differ only by a small spelling edit. */
export function onlySpellingDiffers(a: string, b: string): boolean {
  const ta = spellingTokens(a);
  const tb = spellingTokens(b);
  if (ta.join("") === tb.join("")) return true;
  if (ta.length !== tb.length) return false;
  let edited = 0;
  for (let i = 0; i < ta.length; i++) {
    if (ta[i] === tb[i]) continue;
    if (++edited > MAX_EDITED_TOKENS || !isTypoEdit(ta[i]!, tb[i]!)) return false;
  }
  return true;
}
