/**
 * Profanity check against a word/phrase list (default: the shipped LDNOOBW English list, CC BY 4.0).
 * Matching is case-insensitive and whole-word: "Scunthorpe" does not match an entry it contains, a
 * multi-word entry matches only as a consecutive word sequence.
 */
import { readFileSync } from "node:fs";

// A word: letters/digits, optionally joined by internal - ' ’ & ("g-spot", "s&m", "don't").
const WORD = /[\p{L}\p{N}]+(?:[-'’&][\p{L}\p{N}]+)*/gu;
// The same rule for lower-cased ASCII text (most captions), where it needs no Unicode tables.
const ASCII_WORD = /[a-z0-9]+(?:[-'&][a-z0-9]+)*/g;
const NON_ASCII = /[^\x00-\x7f]/;

/** Lower-cased words of a text, in order, by the same rule used for list entries. */
export function profanityWords(text: string): string[] {
  const lower = text.toLowerCase();
  return lower.match(NON_ASCII.test(lower) ? WORD : ASCII_WORD) ?? [];
}

/** The shipped LDNOOBW list (shared/caption/data/ldnoobw-en.txt), one entry per non-empty line. */
export function loadDefaultProfanityList(): ReadonlySet<string> {
  const text = readFileSync(new URL("./data/ldnoobw-en.txt", import.meta.url), "utf8");
  return new Set(text.split("\n").map((l) => l.trim().toLowerCase()).filter((l) => l !== ""));
}

export type ProfanityMatcher = (text: string) => boolean;

/** Builds a matcher once; entries without any word character (emoji) are matched as substrings. */
export function createProfanityMatcher(list: ReadonlySet<string>): ProfanityMatcher {
  const single = new Set<string>();
  const phrasesByFirst = new Map<string, string[][]>();
  const symbols: string[] = [];
  for (const entry of list) {
    const words = profanityWords(entry);
    if (words.length === 0) {
      if (entry.trim() !== "") symbols.push(entry.trim());
    } else if (words.length === 1) single.add(words[0]!);
    else {
      const bucket = phrasesByFirst.get(words[0]!) ?? [];
      bucket.push(words);
      phrasesByFirst.set(words[0]!, bucket);
    }
  }
  return (text) => {
    const words = profanityWords(text);
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      if (single.has(w)) return true;
      const phrases = phrasesByFirst.get(w);
      if (phrases?.some((p) => p.every((pw, k) => words[i + k] === pw))) return true;
    }
    return symbols.some((s) => text.includes(s));
  };
}
