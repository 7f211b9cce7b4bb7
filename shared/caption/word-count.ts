/**
 * Word count used by the min-words filter. Follows the reference tokenizer's rules (docs/method.md /
 * reference §5.3): punctuation-only tokens do not count, hyphenated words are one word ("15-inch"),
 * numbers count, and clitics split off by the tokenizer ("John 's", "ca n't") count as their own token,
 * which also keeps Wikipedia ("John's") and Conceptual Captions ("john 's") text comparable.
 */
import type { CaptionToken } from "./wink-tagger.ts";

const HAS_WORD_CHAR = /[\p{L}\p{N}]/u;
const HYPHENS = new Set(["-", "‐", "‑"]);

export function countWords(tokens: readonly CaptionToken[]): number {
  let words = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (!HAS_WORD_CHAR.test(t.word)) continue;
    // "well" "-" "known" written without spaces is one word: skip a word glued to a preceding hyphen
    // that is itself glued to a word.
    const hyphen = tokens[i - 1];
    const before = tokens[i - 2];
    const glued = hyphen !== undefined && before !== undefined && HYPHENS.has(hyphen.word) && !hyphen.spaceBefore && !t.spaceBefore && HAS_WORD_CHAR.test(before.word);
    if (!glued) words++;
  }
  return words;
}
