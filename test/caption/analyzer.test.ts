import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createCaptionAnalyzer } from "../../shared/caption/analyzer.ts";
import { CaptionFeatures } from "../../shared/core/records.ts";

const analyzer = createCaptionAnalyzer();
const f = (t: string) => analyzer.features(t);

describe("features record", () => {
  it("is a valid CaptionFeatures record with preprocessed text and one Penn tag per token", () => {
    const r = f("The bridge over the river\u00a0was built in 1890.");
    expect(CaptionFeatures.parse(r)).toEqual(r);
    expect(r.text).toBe("The bridge over the river was built in 1890.");
    expect(r.tags).toBe("DT NN IN DT NN VBD VBN IN CD .");
    expect(r.hasVerb).toBe(true);
    expect(r.isSentence).toBe(true);
  });
  it("gives an empty record for an empty caption", () => {
    expect(f(" \n ")).toEqual({ text: "", words: 0, profane: false, english: false, hasVerb: false, isSentence: false, tags: "" });
  });
  it("hasVerb is false for a verb-less noun phrase", () => {
    expect(f("Koman Hydroelectric Power Station").hasVerb).toBe(false);
  });
});

describe("word count", () => {
  it("counts a hyphenated word once", () => {
    expect(f("Shelby Hall, School of Computing").words).toBe(5);
    expect(f("A three-year-old with autism").words).toBe(4);
    expect(f("Brig. Gen. Albert S. Johnston as Lieutenant-Governor").words).toBe(7);
  });
  it("counts numbers, including ranges and decimals", () => {
    expect(f("Albert Einstein in 1893 (age 14)").words).toBe(6);
    expect(f("a U.S. dime, which is 17.9 mm in diameter").words).toBe(9);
  });
  it("does not count punctuation-only tokens", () => {
    expect(f("sunset at the historic pier .").words).toBe(5);
    expect(f('"Aristotle with a bust of Homer" by Rembrandt.').words).toBe(8);
    expect(f("taking it all in -- a closer look").words).toBe(7);
  });
  it("counts a possessive clitic as its own token, the same way in both spellings", () => {
    expect(f("Alan Turing's statue at Bletchley Park.").words).toBe(7);
    expect(f("a lady 's diamond - set wristwatch").words).toBe(f("a lady's diamond-set wristwatch").words + 1);
  });
});

describe("profanity", () => {
  const list = readFileSync(new URL("../../shared/caption/data/ldnoobw-en.txt", import.meta.url), "utf8").split("\n").filter(Boolean);
  const single = list.find((w) => /^[a-z]+$/.test(w) && w.length >= 4)!;
  // a phrase none of whose words is an entry on its own, so only the whole phrase can match
  const phrase = list.find((w) => /^[a-z]+( [a-z]+)+$/.test(w) && w.split(" ").every((p) => !list.includes(p)))!;
  it("matches a listed word case-insensitively as a whole word", () => {
    expect(f(`The ${single.toUpperCase()} at the parade`).profane).toBe(true);
  });
  it("does not match a listed word inside another word (Scunthorpe problem)", () => {
    expect(list).toContain("cunt");
    expect(f("Glanford Park in Scunthorpe, 2008").profane).toBe(false);
    expect(f(`unre${single}ed text`).profane).toBe(false);
  });
  it("matches a multi-word entry only as a consecutive phrase", () => {
    expect(f(`poster with ${phrase} on it`).profane).toBe(true);
    const words = phrase.split(" ");
    expect(f(`${words.join(" and then ")}`).profane).toBe(false);
  });
  it("uses a caller-supplied list instead of the default", () => {
    const custom = createCaptionAnalyzer({ profanity: new Set(["octopus", "power station"]) });
    expect(custom.features("Octopus swimming").profane).toBe(true);
    expect(custom.features("Koman Hydroelectric Power Station").profane).toBe(true);
    expect(custom.features(`The ${single} at the parade`).profane).toBe(false);
  });
  it("clean real captions are not profane", () => {
    expect(f("Grizzly bear fishing for salmon at Brooks Falls").profane).toBe(false);
  });
});

describe("english", () => {
  const labels = readFileSync(new URL("../fixtures/caption/sentence-labels.tsv", import.meta.url), "utf8").split("\n").slice(1).filter(Boolean);
  const foreign = readFileSync(new URL("../fixtures/caption/foreign-text.tsv", import.meta.url), "utf8").split("\n").slice(1).filter(Boolean).map((l) => l.split("\t"));
  it("accepts (almost) all real English captions, including ones full of foreign names", () => {
    const english = labels.map((l) => l.split("\t")[1]!).filter((c) => f(c).english).length;
    expect(english / labels.length).toBeGreaterThanOrEqual(0.98);
    for (const c of ["Statue by Cipri Adolf Bermann (1915) at the University of Freiburg Freiburg im Breisgau", "Map of Aruba from the Encyclopaedie van Nederlandsch West-Indië 1914-1917.", "Koman Hydroelectric Power Station", "Miradouro da Lua, which can be translated as Watchpoint of the Moon, situated at the coast south of Luanda, Angola"]) {
      expect(f(c).english, c).toBe(true);
    }
  });
  it("rejects real German and Bulgarian text", () => {
    expect(foreign.length).toBeGreaterThanOrEqual(5);
    for (const [lang, text] of foreign) expect(f(text!).english, `${lang}: ${text}`).toBe(false);
  });
});
