/**
 * English verb morphology the taggers do not expose: wink-nlp gives a lemma but no tense, so the
 * Penn mapping needs to know which irregular forms are unambiguously past tense or past participle.
 * Regular "-ed" forms (and irregulars like "built", "made") are ambiguous and are decided by context.
 */

/** Irregular simple-past forms that can never be a participle ("took", not "taken"). */
export const PAST_ONLY: ReadonlySet<string> = new Set([
  "arose", "ate", "awoke", "was", "were", "bore", "beat", "became", "began", "bit", "blew", "broke", "chose",
  "came", "did", "drew", "drank", "drove", "fell", "flew", "forbade", "forgot", "forgave", "froze", "gave",
  "went", "grew", "hid", "knew", "lay", "mistook", "overcame", "overtook", "rode", "rang", "rose", "ran",
  "saw", "shook", "shone", "showed", "sang", "sank", "slew", "spoke", "sprang", "stole", "stank", "strove",
  "swore", "swam", "took", "tore", "threw", "undertook", "underwent", "woke", "wore", "wove", "withdrew", "wrote",
]);

/** Irregular past participles that can never be a finite past tense ("taken", not "took"). */
export const PARTICIPLE_ONLY: ReadonlySet<string> = new Set([
  "arisen", "eaten", "awoken", "been", "born", "borne", "beaten", "become", "begun", "bitten", "blown", "broken",
  "chosen", "done", "drawn", "drunk", "driven", "fallen", "flown", "forbidden", "forgotten", "forgiven", "frozen",
  "given", "gone", "grown", "hidden", "known", "lain", "mistaken", "overtaken", "ridden", "rung", "risen", "run",
  "seen", "shaken", "shown", "sung", "sunk", "slain", "spoken", "sprung", "stolen", "stunk", "striven", "sworn",
  "swum", "taken", "torn", "thrown", "undertaken", "woken", "worn", "woven", "withdrawn", "written", "gotten",
  "proven", "sewn", "sown", "swollen", "mown", "hewn", "overseen", "overthrown", "rewritten",
]);

/** Modal auxiliaries (Penn MD), including clitic and PTB-split forms. */
export const MODALS: ReadonlySet<string> = new Set([
  "can", "cannot", "could", "may", "might", "must", "shall", "should", "will", "would", "ought", "ca", "wo", "'ll", "'d", "’ll", "’d",
]);

/** Forms of be/have/get that make a following past form a participle ("was built", "has led", "got lost"). */
export const PASSIVE_OR_PERFECT_AUX: ReadonlySet<string> = new Set([
  "be", "is", "are", "am", "was", "were", "been", "being", "'s", "'re", "'m", "’s", "’re", "’m",
  "have", "has", "had", "having", "'ve", "’ve", "get", "gets", "got", "getting",
]);

/**
 * Is `form` the regular third-person singular present of the verb `lemma` ("rides"/"ride",
 * "fishes"/"fish", "carries"/"carry")? Irregular ones ("has", "does", "is") are tagged by word.
 */
export function isThirdPersonSingular(form: string, lemma: string): boolean {
  if (form === `${lemma}s` || form === `${lemma}es`) return true;
  return /[^aeiou]y$/.test(lemma) && form === `${lemma.slice(0, -1)}ies`;
}
