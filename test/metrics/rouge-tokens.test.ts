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

  it("drops non-ASCII letters as rouge-score does", () => {
    expect(tok.tokenize("Café Zürich 東京")).toEqual(["caf", "z", "rich"]);
    expect(tok.tokenize("")).toEqual([]);
  });

  it("gives the same tokens with a tiny memo (cache eviction does not change results)", () => {
    const small = new RougeTokenizer(2);
    expect(small.tokenize(SOLDIERS[1] + " " + AOL[0])).toEqual(tok.tokenize(SOLDIERS[1] + " " + AOL[0]));
  });
});
