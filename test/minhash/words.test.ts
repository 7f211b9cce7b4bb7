import { describe, expect, it } from "vitest";
import { DETERMINERS, wordSet } from "../../shared/minhash/words.ts";
import { MERCIER, verneParagraphs, WALTER } from "./verne.ts";

describe("wordSet (Chung & Knight's tokenisation)", () => {
  it("lower-cases, removes punctuation, determiners and the possessive 's, and keeps each word once", () => {
    // Mercier's first sentence
    expect(wordSet("The year 1866 was signalised by a remarkable incident, a mysterious and puzzling phenomenon, which doubtless no one has yet forgotten."))
      .toEqual(["year", "1866", "was", "signalised", "by", "remarkable", "incident", "mysterious", "and", "puzzling", "phenomenon", "which", "doubtless", "one", "has", "yet", "forgotten"]);
    expect(wordSet("The Captain's cabin; THE captain’s log -- Nemo's!")).toEqual(["captain", "cabin", "log", "nemo"]);
    expect(wordSet("I don't know. Those twenty-two sailors...")).toEqual(["i", "don't", "know", "twenty", "two", "sailors"]);
    expect(wordSet(" ,.;-- ")).toEqual([]);
    // Conceptual Captions' tokenised possessive (its validation split) and a quoted word
    expect(wordSet("beach volleyball player defends against person during the women 's main draw .")).toEqual(["beach", "volleyball", "player", "defends", "against", "person", "during", "women", "main", "draw"]);
    expect(wordSet("a sign saying 'welcome' on the door")).toEqual(["sign", "saying", "welcome", "on", "door"]);
    // its detached contractions are the words untokenised text has
    expect(wordSet("you 're looking at a dog that do n't bark")).toEqual(wordSet("you're looking at a dog that don't bark"));
    expect(wordSet("i 've got what ca n't be seen , we 'll see")).toEqual(["i've", "got", "what", "can't", "be", "seen", "we'll", "see"]);
    expect(wordSet("n't at the start; 're alone")).toEqual(["n't", "at", "start", "re", "alone"]);
  });

  it("gives every paragraph of both translations words, Gutenberg boilerplate gone", () => {
    const a = verneParagraphs(MERCIER), b = verneParagraphs(WALTER);
    expect(a.length).toBeGreaterThan(2000);
    expect(b.length).toBeGreaterThan(3500);
    for (const p of [...a, ...b]) expect(p).not.toMatch(/Project Gutenberg|SMALL PRINT/i);
    expect(a.find((p) => p.startsWith("The year 1866 was signalised"))).toBeDefined();
    expect(b.at(-1)).toBe("END OF THE SECOND PART");
    // a paragraph loses all its words only when they are all determiners ("No.", "That's all?") or it is a rule of underscores
    const empty = [...a, ...b].filter((x) => wordSet(x).length === 0);
    expect(empty.length).toBeLessThan(20);
    for (const p of empty) for (const w of p.toLowerCase().match(/[a-z]+/g) ?? []) expect(DETERMINERS.has(w) || w === "s").toBe(true);
  });
});
