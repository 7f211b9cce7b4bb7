/**
 * A cheap English check for captions (the thesis used Lingua; language-ID models are unreliable on
 * 3-word captions full of names). A caption is English when its letters are mostly Latin-script ASCII
 * and English function words are at least as frequent as German/French/Spanish/Italian/Dutch ones.
 * Captions without any function word ("Koman Hydroelectric Power Station") count as English when their
 * letters are Latin: names are what Wikipedia captions are made of.
 */

const ENGLISH = new Set([
  "the", "a", "an", "of", "in", "on", "at", "by", "for", "from", "to", "with", "and", "or", "is", "are", "was",
  "were", "be", "been", "has", "have", "had", "this", "that", "these", "those", "his", "her", "its", "their",
  "it", "he", "she", "they", "we", "i", "you", "as", "into", "during", "after", "before", "near", "over",
  "under", "which", "who", "where", "when", "while", "one", "two", "first", "s", "not", "but", "can", "will",
  "showing", "view", "map", "photo", "image",
]);

// Function words of the languages most often found in foreign captions, minus those also English
// ("in", "an", "a", "of"…). Deliberately not including name particles like "de", "la", "da", "van", "von".
const FOREIGN = new Set([
  // German
  "der", "die", "das", "und", "ist", "sind", "mit", "ein", "eine", "einer", "einem", "den", "dem", "des",
  "im", "zu", "zum", "zur", "auf", "für", "nicht", "sich", "wird", "wurde", "auch", "aus", "bei", "nach", "vom",
  "über", "unter", "oder", "als", "wie", "ich", "sie", "er", "es",
  // French
  "le", "les", "et", "est", "une", "du", "au", "aux", "dans", "sur", "pour", "avec", "par", "sont", "qui", "que",
  // Spanish / Italian / Portuguese
  "el", "los", "las", "y", "es", "del", "con", "por", "para", "una", "il", "di", "che", "della", "nel", "uma", "em", "com",
  // Dutch
  "het", "een", "en", "van", "op", "met", "zijn", "voor",
]);

const NON_ASCII_LETTER = /\p{L}/u;
const LATIN = /\p{Script=Latin}/u;

/** Counts letters, Latin-script letters and ASCII letters in one pass (this runs once per caption). */
function letterCounts(text: string): { letters: number; latin: number; ascii: number } {
  let letters = 0;
  let latin = 0;
  let ascii = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) {
      letters++;
      latin++;
      ascii++;
    } else if (c > 127) {
      const ch = String.fromCodePoint(text.codePointAt(i)!);
      if (ch.length === 2) i++;
      if (NON_ASCII_LETTER.test(ch)) {
        letters++;
        if (LATIN.test(ch)) latin++;
      }
    }
  }
  return { letters, latin, ascii };
}

/** Lower-cased word tokens → is the caption English? `text` is the preprocessed caption. */
export function looksEnglish(text: string, lowerWords: readonly string[]): boolean {
  const { letters, latin, ascii } = letterCounts(text);
  if (letters === 0) return false;
  if (latin / letters < 0.8) return false; // Cyrillic, Greek, CJK, Arabic…
  let en = 0;
  let foreign = 0;
  for (const w of lowerWords) {
    if (ENGLISH.has(w)) en++;
    else if (FOREIGN.has(w)) foreign++;
  }
  if (en === 0 && foreign === 0) return ascii / letters >= 0.85; // names only: mostly plain ASCII
  return en >= foreign;
}
