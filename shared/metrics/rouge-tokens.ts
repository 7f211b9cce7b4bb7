import { porterStem } from "./porter-stemmer.ts";

/**
 * rouge-score 0.0.4 `tokenize(text, PorterStemmer())`, used by the paper's evaluation for ROUGE and BLEU:
 * lower-case, every char outside `[a-z0-9]` becomes a space, split, Porter-stem (nltk default mode) the tokens
 * longer than 3 chars, keep tokens matching `^[a-z0-9]+$`.
 */
export class RougeTokenizer {
  // Stemming dominates tokenisation cost and caption vocabularies are Zipfian, so a bounded memo pays off on the
  // hot path. It only caches a pure function: results never depend on what was scored before.
  private readonly memo = new Map<string, string>();

  /**
   * `scriptAware` (the improved preset): a text most of whose letters are not ASCII (Cyrillic, Greek, Arabic,
   * CJK, Vietnamese) is tokenised by Unicode letters instead, CJK and Thai by character; rouge-score's own
   * tokens leave nothing of such a text, and every pair of it would score 0 (the paper's preset keeps that).
   * A text written mostly in ASCII letters (English, with its "Café" and "São Tomé") is tokenised as rouge-score does.
   */
  constructor(private readonly memoLimit = 200_000, private readonly scriptAware = true) {}

  /** Tokens of `text` as rouge-score produces them with `use_stemmer=True` (but see `scriptAware`). */
  tokenize(text: string): string[] {
    if (this.scriptAware && mostlyForeignLetters(text)) return this.unicodeTokens(text);
    const raw = text.toLowerCase().replace(/[^a-z0-9]+/g, " ").split(" ");
    const out: string[] = [];
    for (const token of raw) {
      if (token === "") continue; // split artefacts; rouge-score drops them via VALID_TOKEN_RE
      const kept = token.length > 3 ? this.stem(token) : token;
      if (kept !== "") out.push(kept);
    }
    return out;
  }

  /** Unicode words (letters, digits, marks), lower-cased; a CJK or Thai character is a token; ASCII words stemmed as rouge-score stems them. */
  private unicodeTokens(text: string): string[] {
    const out: string[] = [];
    for (const m of text.toLowerCase().normalize("NFC").matchAll(UNICODE_TOKEN)) {
      const token = m[0];
      out.push(token.length > 3 && ASCII_WORD.test(token) ? this.stem(token) : token);
    }
    return out.filter((t) => t !== "");
  }

  private stem(token: string): string {
    let stemmed = this.memo.get(token);
    if (stemmed === undefined) {
      stemmed = porterStem(token);
      if (this.memo.size >= this.memoLimit) this.memo.clear();
      this.memo.set(token, stemmed);
    }
    return stemmed;
  }
}

/** Scripts written without spaces between words: each character is a token (as sacrebleu's international tokeniser does). */
const UNSPACED = String.raw`\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}`;
const UNICODE_TOKEN = new RegExp(String.raw`[${UNSPACED}]|(?:(?![${UNSPACED}])[\p{L}\p{N}\p{M}])+`, "gu");
const ASCII_WORD = /^[a-z0-9]+$/;
const LETTER = /\p{L}/gu;
const NON_ASCII_LETTER = /(?![\u0000-\u007f])\p{L}/gu;

/** Whether at least 30 % of the text's letters are outside ASCII (never for an ASCII text, checked first). */
export function mostlyForeignLetters(text: string): boolean {
  // eslint-disable-next-line no-control-regex
  if (/^[\u0000-\u007f]*$/.test(text)) return false;
  const letters = text.match(LETTER)?.length ?? 0;
  const foreign = text.match(NON_ASCII_LETTER)?.length ?? 0;
  return letters > 0 && foreign >= 0.3 * letters;
}
