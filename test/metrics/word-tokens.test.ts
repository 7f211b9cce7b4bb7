import { describe, expect, it } from "vitest";
import { wordTokens } from "../../shared/metrics/word-tokens.ts";
import { AOL, SOLDIERS } from "./msrp-pairs.ts";

describe("wordTokens", () => {
  it("lower-cases, drops punctuation, keeps hyphenated words and grouped numbers whole (MSRP line 1073)", () => {
    expect(wordTokens(AOL[0])).toEqual(["america", "online", "last", "quarter", "lost", "846,000", "dial-up", "subscribers"]);
  });

  it("splits clitics off like PTB (MSRP line 2531)", () => {
    expect(wordTokens(SOLDIERS[1]).slice(0, 3)).toEqual(["we", "'re", "losing"]);
    expect(wordTokens("Dominick's can't")).toEqual(["dominick", "'s", "ca", "n't"]);
  });

  it("gives no tokens for empty or punctuation-only text", () => {
    expect(wordTokens("")).toEqual([]);
    expect(wordTokens(' -- "" ... ')).toEqual([]);
  });
});
