import { describe, expect, it } from "vitest";
import { RougeTokenizer } from "../../shared/metrics/rouge-tokens.ts";
import { AOL, SOLDIERS } from "./msrp-pairs.ts";

describe("RougeTokenizer (rouge-score tokenize with Porter stemmer)", () => {
  const tok = new RougeTokenizer();

  it("splits on every non-[a-z0-9] char and stems tokens longer than 3 chars (MSRP line 1073)", () => {
    // 846,000 → 846 000; dial-up → dial up; online → onlin; subscribers → subscriber → subscrib; last/lost 4 chars, unchanged by Porter
    expect(tok.tokenize(AOL[0])).toEqual(["america", "onlin", "last", "quarter", "lost", "846", "000", "dial", "up", "subscrib"]);
  });

  it("does not stem tokens of ≤ 3 chars and splits apostrophes (MSRP line 2531)", () => {
    // We're → we re; losing → lose; every → everi; day (3 chars) kept
    expect(tok.tokenize(SOLDIERS[1])).toEqual(["we", "re", "lose", "one", "or", "two", "american", "soldier", "everi", "day"]);
  });

  it("drops non-ASCII letters as rouge-score does (the paper's preset), in a mostly ASCII text always", () => {
    const paper = new RougeTokenizer(undefined, false);
    expect(paper.tokenize("Café Zürich 東京")).toEqual(["caf", "z", "rich"]);
    expect(paper.tokenize("Вид на Кремль")).toEqual([]);
    expect(paper.tokenize("")).toEqual([]);
    // English with a few accented names stays rouge-score's, so English scores are the paper's
    expect(tok.tokenize("The Café de Flore in Zürich")).toEqual(["the", "caf", "de", "flore", "in", "z", "rich"]);
  });

  it("improved: a text mostly in other letters is tokenised by Unicode words, CJK by character", () => {
    // (Russian Wikipedia's caption of the Kremlin; a Japanese one of Tokyo Tower)
    expect(tok.tokenize("Вид на Московский Кремль с Большого Каменного моста")).toEqual(["вид", "на", "московский", "кремль", "с", "большого", "каменного", "моста"]);
    expect(tok.tokenize("東京タワーの夜景 (2010)")).toEqual(["東", "京", "タ", "ワ", "ー", "の", "夜", "景", "2010"]);
    expect(tok.tokenize("Hà Nội là thủ đô của Việt Nam")).toEqual(["hà", "nội", "là", "thủ", "đô", "của", "việt", "nam"]);
  });

  it("gives the same tokens with a tiny memo (cache eviction does not change results)", () => {
    const small = new RougeTokenizer(2);
    expect(small.tokenize(SOLDIERS[1] + " " + AOL[0])).toEqual(tok.tokenize(SOLDIERS[1] + " " + AOL[0]));
  });
});
