/**
 * Porter stemmer, behaving like nltk 3.7 `PorterStemmer()` in its DEFAULT mode (`NLTK_EXTENSIONS`), because that
 * is what rouge-score 0.0.4 instantiates (`porter.PorterStemmer()`) and what the paper's ROUGE/BLEU tokens went
 * through. The default mode is not the 1980 algorithm: it adds an irregular-form table, `ies`/`ied` on 4-letter
 * words → `ie`, `y → i` only after a consonant, `bli → ble`, `alli` re-run, `fulli`, `logi`, and the `*o` rule for
 * 2-letter stems. npm's Porter packages (e.g. `stemmer`) implement Martin Porter's own version, which stems e.g.
 * `enjoy` → `enjoi` and `ties` → `ti` where nltk gives `enjoy` and `tie`, so this module is written by hand.
 * Input must be lower-case (rouge-score lower-cases first).
 */

const IRREGULAR: ReadonlyMap<string, string> = new Map([
  ["sky", "sky"],
  ["skies", "sky"],
  ["dying", "die"],
  ["lying", "lie"],
  ["tying", "tie"],
  ["news", "news"],
  ["innings", "inning"],
  ["inning", "inning"],
  ["outings", "outing"],
  ["outing", "outing"],
  ["cannings", "canning"],
  ["canning", "canning"],
  ["howe", "howe"],
  ["proceed", "proceed"],
  ["exceed", "exceed"],
  ["succeed", "succeed"],
]);

function isVowelLetter(ch: string): boolean {
  return ch === "a" || ch === "e" || ch === "i" || ch === "o" || ch === "u";
}

/** Porter's consonant test: `y` is a consonant at the start or after a vowel. */
function isConsonant(word: string, i: number): boolean {
  const ch = word[i]!;
  if (isVowelLetter(ch)) return false;
  if (ch === "y") return i === 0 ? true : !isConsonant(word, i - 1);
  return true;
}

/** m in [C](VC)^m[V]: the number of vowel→consonant transitions. */
function measure(stem: string): number {
  let m = 0;
  let prevVowel = false;
  for (let i = 0; i < stem.length; i++) {
    const cons = isConsonant(stem, i);
    if (cons && prevVowel) m++;
    prevVowel = !cons;
  }
  return m;
}

function containsVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

function endsDoubleConsonant(word: string): boolean {
  const n = word.length;
  return n >= 2 && word[n - 1] === word[n - 2] && isConsonant(word, n - 1);
}

/** Condition *o, plus nltk's extension: a 2-letter vowel-consonant stem also counts. */
function endsCvc(word: string): boolean {
  const n = word.length;
  if (n >= 3) {
    const last = word[n - 1]!;
    if (
      isConsonant(word, n - 3) &&
      !isConsonant(word, n - 2) &&
      isConsonant(word, n - 1) &&
      last !== "w" &&
      last !== "x" &&
      last !== "y"
    )
      return true;
  }
  return n === 2 && !isConsonant(word, 0) && isConsonant(word, 1);
}

type Condition = ((stem: string) => boolean) | null;
type Rule = readonly [suffix: string, replacement: string, condition: Condition];

/** nltk's `_apply_rule_list`: the FIRST rule whose suffix matches decides, even when its condition fails. */
function applyRules(word: string, rules: readonly Rule[]): string {
  for (const [suffix, replacement, condition] of rules) {
    if (word.endsWith(suffix)) {
      const stem = word.slice(0, word.length - suffix.length);
      return condition === null || condition(stem) ? stem + replacement : word;
    }
  }
  return word;
}

const positive = (stem: string): boolean => measure(stem) > 0;
const aboveOne = (stem: string): boolean => measure(stem) > 1;

function step1a(word: string): string {
  if (word.endsWith("ies") && word.length === 4) return word.slice(0, -3) + "ie";
  return applyRules(word, [
    ["sses", "ss", null],
    ["ies", "i", null],
    ["ss", "ss", null],
    ["s", "", null],
  ]);
}

function step1b(word: string): string {
  if (word.endsWith("ied")) return word.slice(0, -3) + (word.length === 4 ? "ie" : "i");
  if (word.endsWith("eed")) {
    const stem = word.slice(0, -3);
    return measure(stem) > 0 ? stem + "ee" : word;
  }
  let stem: string | null = null;
  if (word.endsWith("ed") && containsVowel(word.slice(0, -2))) stem = word.slice(0, -2);
  else if (word.endsWith("ing") && containsVowel(word.slice(0, -3))) stem = word.slice(0, -3);
  if (stem === null) return word;

  if (stem.endsWith("at") || stem.endsWith("bl") || stem.endsWith("iz")) return stem + "e";
  if (endsDoubleConsonant(stem)) {
    const last = stem[stem.length - 1]!;
    return last === "l" || last === "s" || last === "z" ? stem : stem.slice(0, -1);
  }
  return measure(stem) === 1 && endsCvc(stem) ? stem + "e" : stem;
}

function step1c(word: string): string {
  // nltk: y → i only after a consonant and not when that consonant is the whole stem (`enjoy`, `by` stay).
  if (word.endsWith("y")) {
    const stem = word.slice(0, -1);
    return stem.length > 1 && isConsonant(stem, stem.length - 1) ? stem + "i" : word;
  }
  return word;
}

function step2(word: string): string {
  if (word.endsWith("alli") && positive(word.slice(0, -4))) return step2(word.slice(0, -4) + "al");
  return applyRules(word, [
    ["ational", "ate", positive],
    ["tional", "tion", positive],
    ["enci", "ence", positive],
    ["anci", "ance", positive],
    ["izer", "ize", positive],
    ["bli", "ble", positive],
    ["alli", "al", positive],
    ["entli", "ent", positive],
    ["eli", "e", positive],
    ["ousli", "ous", positive],
    ["ization", "ize", positive],
    ["ation", "ate", positive],
    ["ator", "ate", positive],
    ["alism", "al", positive],
    ["iveness", "ive", positive],
    ["fulness", "ful", positive],
    ["ousness", "ous", positive],
    ["aliti", "al", positive],
    ["iviti", "ive", positive],
    ["biliti", "ble", positive],
    ["fulli", "ful", positive],
    // The `l` of `logi` stays with the stem, so `geo`/`theo` behave like `archaeo`.
    ["logi", "log", () => positive(word.slice(0, -3))],
  ]);
}

function step3(word: string): string {
  return applyRules(word, [
    ["icate", "ic", positive],
    ["ative", "", positive],
    ["alize", "al", positive],
    ["iciti", "ic", positive],
    ["ical", "ic", positive],
    ["ful", "", positive],
    ["ness", "", positive],
  ]);
}

const STEP4: readonly Rule[] = [
  ["al", "", aboveOne],
  ["ance", "", aboveOne],
  ["ence", "", aboveOne],
  ["er", "", aboveOne],
  ["ic", "", aboveOne],
  ["able", "", aboveOne],
  ["ible", "", aboveOne],
  ["ant", "", aboveOne],
  ["ement", "", aboveOne],
  ["ment", "", aboveOne],
  ["ent", "", aboveOne],
  ["ion", "", (stem) => measure(stem) > 1 && (stem.endsWith("s") || stem.endsWith("t"))],
  ["ou", "", aboveOne],
  ["ism", "", aboveOne],
  ["ate", "", aboveOne],
  ["iti", "", aboveOne],
  ["ous", "", aboveOne],
  ["ive", "", aboveOne],
  ["ize", "", aboveOne],
];

function step5a(word: string): string {
  if (!word.endsWith("e")) return word;
  const stem = word.slice(0, -1);
  const m = measure(stem);
  return m > 1 || (m === 1 && !endsCvc(stem)) ? stem : word;
}

function step5b(word: string): string {
  return word.endsWith("ll") && measure(word.slice(0, -1)) > 1 ? word.slice(0, -1) : word;
}

/** Stems one lower-case word exactly as nltk 3.7 `PorterStemmer().stem(word)` does. */
export function porterStem(word: string): string {
  const irregular = IRREGULAR.get(word);
  if (irregular !== undefined) return irregular;
  if (word.length <= 2) return word;
  let w = step1a(word);
  w = step1b(w);
  w = step1c(w);
  w = step2(w);
  w = step3(w);
  w = applyRules(w, STEP4);
  w = step5a(w);
  return step5b(w);
}
