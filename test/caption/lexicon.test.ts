import { describe, expect, it } from "vitest";
import { lexicalAlternative } from "../../shared/caption/lexical-alternatives.ts";
import { createLexicon } from "../../shared/caption/lexicon.ts";
import { isThirdPersonSingular } from "../../shared/caption/verb-forms.ts";
import { englishLiteModel } from "../../shared/caption/wink-model.ts";

// the core model as wink-nlp loads it (englishLiteModel's core(), what the tagger hands createLexicon)
let core: object | undefined;
(englishLiteModel((c) => (core = c)).core as () => object)();
const lexicon = createLexicon(core);

describe("the wink-nlp lexicon read out of context", () => {
  it("gives a word's possible parts of speech, lemma and whether it is a base form", () => {
    expect(lexicon.entry("rides")).toEqual({ pos: new Set(["NOUN"]), lemma: "ride", baseForm: false });
    expect(lexicon.entry("ride")?.pos.has("VERB")).toBe(true);
    expect(lexicon.entry("children")).toMatchObject({ lemma: "child", baseForm: false });
    expect(lexicon.entry("children")!.pos.has("NOUN")).toBe(true);
  });
  it("knows no word outside the model's own lexicon, nor any word of a model of another shape", () => {
    expect(lexicon.entry("__proto__")).toBeUndefined();
    expect(lexicon.entry("zzqxv")).toBeUndefined();
    expect(createLexicon({}).entry("ride")).toBeUndefined();
  });
});

describe("lexical alternatives", () => {
  it("a plural noun that is a verb's regular -s form may be VBZ", () => {
    expect(lexicalAlternative("rides", "NNS", "ride", lexicon)).toBe("VBZ");
    expect(lexicalAlternative("fishes", "NNS", "fish", lexicon)).toBe("VBZ");
    expect(lexicalAlternative("cowboys", "NNS", "cowboy", lexicon)).toBeUndefined(); // no verb "cowboy"
    expect(lexicalAlternative("children", "NNS", "child", lexicon)).toBeUndefined();
  });
  it("a capitalised name-tagged word that is a plural common noun may be NNS", () => {
    expect(lexicalAlternative("Children", "NNP", "Children", lexicon)).toBe("NNS");
    expect(lexicalAlternative("Volunteers", "NNP", "Volunteers", lexicon)).toBe("NNS");
    expect(lexicalAlternative("Afghanistan", "NNP", "Afghanistan", lexicon)).toBeUndefined();
    expect(lexicalAlternative("Map", "NNP", "Map", lexicon)).toBeUndefined(); // singular: no agreement at stake
  });
  it("third-person singular forms", () => {
    expect(isThirdPersonSingular("carries", "carry")).toBe(true);
    expect(isThirdPersonSingular("plays", "play")).toBe(true);
    expect(isThirdPersonSingular("pays", "pay")).toBe(true);
    expect(isThirdPersonSingular("child", "children")).toBe(false);
  });
});
