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

  constructor(private readonly memoLimit = 200_000) {}

  /** Tokens of `text` as rouge-score produces them with `use_stemmer=True`. */
  tokenize(text: string): string[] {
    const raw = text.toLowerCase().replace(/[^a-z0-9]+/g, " ").split(" ");
    const out: string[] = [];
    for (const token of raw) {
      if (token === "") continue; // split artefacts; rouge-score drops them via VALID_TOKEN_RE
      const kept = token.length > 3 ? this.stem(token) : token;
      if (kept !== "") out.push(kept);
    }
    return out;
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
