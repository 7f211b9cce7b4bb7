import { describe, expect, it } from "vitest";
import { sharedWinkNlp } from "../../shared/caption/wink-tagger.ts";
import { canonicalKey, canonicalVerdict, createCanonicalizer } from "../../shared/deja/canonical-form.ts";

const c = createCanonicalizer();

describe("Déjà canonical forms", () => {
  it("the paper's example: both captions are \"bird fly IN blue sky\"", () => {
    expect(c.canonical("The bird flies in blue sky")).toEqual({ form: "bird fly IN blue sky", tokens: 5, words: 6 });
    expect(c.canonical("A bird flying into the blue sky")).toEqual({ form: "bird fly IN blue sky", tokens: 5, words: 7 });
    expect(canonicalKey(c, "The bird flies in blue sky")).toBe(canonicalKey(c, "A bird flying into the blue sky"));
  });

  it("lemmatises, turns prepositions into IN, drops function words, numbers and punctuation (Conceptual Captions lines)", () => {
    // gcc-validation lines: "actor arrives at the premiere ." / "actor arrives for the premiere"
    expect(c.canonical("actor arrives at the premiere .")).toMatchObject({ form: "actor arrive IN premiere" });
    expect(c.canonical("actor arrives for the premiere")).toMatchObject({ form: "actor arrive IN premiere" });
    expect(c.canonical("3 dogs playing on 2nd street, 2015!")).toMatchObject({ form: "dog play IN street" });
    // an auxiliary counts as the caption's verb but is a function word in the form
    expect(c.canonical("Wine is the answer")).toMatchObject({ form: "wine answer" });
  });

  it("drops trivial captions: no verb, preposition or adjective", () => {
    expect(c.canonical("person")).toEqual({ drop: "no_verb_prep_adj" });
    expect(c.canonical("2015")).toEqual({ drop: "no_verb_prep_adj" });
    expect(c.canonical("")).toEqual({ drop: "no_verb_prep_adj" });
    expect(canonicalVerdict(c.canonical("Sun through the trees"))).toBe(true);
    expect(canonicalVerdict(c.canonical("person"))).toEqual({ drop: "no_verb_prep_adj" });
    expect(canonicalKey(c, "person")).toBeNull();
    // only prepositions and numbers left: no form
    expect(c.canonical("in 1999")).toEqual({ drop: "empty_form" });
  });

  it("reuses the process's one wink-nlp instance", () => {
    expect(sharedWinkNlp()).toBe(sharedWinkNlp());
  });
});
