import { describe, expect, it } from "vitest";
import type { CandidatePair } from "../../shared/core/records.ts";
import { createCaptionAnalyzer } from "../../shared/caption/analyzer.ts";
import { resolveConfig } from "../../shared/core/config.ts";
import { captionFilters, divergentFilter, funnelSteps, nearEqualForm, notAudioFilter, significantDifferenceFilter, tierFilters } from "../../shared/pipeline/filters.ts";
import { tierSpecs } from "../../shared/pipeline/tiers.ts";

const pair = (a: string, b: string): CandidatePair => ({
  id: "0", tier: "silver", image: "File:X.jpg", type: "caption",
  a: { text: a, page: "P1", pageId: 1, revisionId: 1, ordinal: 0, uses: 1 },
  b: { text: b, page: "P2", pageId: 2, revisionId: 2, ordinal: 0, uses: 1 },
});

describe("pair filters", () => {
  it("divergent drops captions equal ignoring case", () => {
    expect(divergentFilter.keep(pair("Peter Kropotkin was a Russian anarchist.", "peter kropotkin was a russian anarchist."))).toEqual({ drop: "equal_ignoring_case" });
    expect(divergentFilter.keep(pair("Peter Kropotkin was a Russian anarchist.", "Peter Kropotkin, Russian anarchist."))).toBe(true);
  });

  it("significant difference drops pairs differing only in punctuation, whitespace and asides", () => {
    // real caption variants of File:Goldman-4.jpg across revisions of "Anarchism"
    expect(significantDifferenceFilter.keep(pair("Emma Goldman (1869-1940) was an anarchist.", "Emma Goldman was an anarchist"))).toEqual({ drop: "near_equal" });
    expect(significantDifferenceFilter.keep(pair("Emma Goldman, anarchist feminist", "Emma Goldman - anarchist  feminist!"))).toEqual({ drop: "near_equal" });
    expect(significantDifferenceFilter.keep(pair("Emma Goldman was an anarchist.", "Emma Goldman was a feminist."))).toBe(true);
  });

  it("keeps non-Latin captions apart (the reference deleted every non-ASCII letter)", () => {
    expect(nearEqualForm("Григориански календар (1582)")).toBe("григорианскикалендар");
    expect(significantDifferenceFilter.keep(pair("Юлиански календар", "Григориански календар"))).toBe(true);
  });

  it("removes nested parenthesised asides", () => {
    expect(nearEqualForm("A bridge (built (in 1890) of iron) over the river")).toBe("abridgeovertheriver");
  });
});

describe("caption filters", () => {
  const analyzer = createCaptionAnalyzer({ classifier: "improved" });
  const filter = (id: string) => captionFilters(resolveConfig(), tierSpecs(resolveConfig()).find((t) => t.name === "silver")!).find((f) => f.id === id)!;

  it("drops run-on 'captions' over the word limit, counted as too_many_words", () => {
    // an unclosed [[File:…| link swallows the article text after it: the "caption" is the page
    const runOn = "Peter Kropotkin was a Russian anarchist and geographer who wrote about mutual aid. ".repeat(20).trim();
    const f = analyzer.features(runOn);
    expect(f.words).toBe(260);
    expect(filter("max_words_v1").keep(f)).toEqual({ drop: "too_many_words" });
    expect(filter("max_words_v1").keep(analyzer.features("Peter Kropotkin was a Russian anarchist and geographer."))).toBe(true);
    expect(filter("max_words_v1").description).toBe("caption has ≤ 200 words");
  });
});

describe("image filters", () => {
  const group = (image: string) => ({ image, references: 2, uses: 2, captionedUses: 2 });

  it("drops sound files (same [[File:…]] syntax) but keeps images and videos", () => {
    // real file names used in the embedded sample
    expect(notAudioFilter.keep(group("File:Assyriansample.ogg"))).toEqual({ drop: "audio_file" });
    expect(notAudioFilter.keep(group("File:Tamazightchelha.OGG"))).toEqual({ drop: "audio_file" });
    expect(notAudioFilter.keep(group("File:Autism spectrum disorder video.webm"))).toBe(true);
    expect(notAudioFilter.keep(group("File:Charlie in Turkey Pat Sullivan Keen Cartoon Corporation 1916 685703 FLM11263.ogv"))).toBe(true);
    expect(notAudioFilter.keep(group("File:Apollo 11 first step.jpg"))).toBe(true);
  });
});

describe("filter metadata", () => {
  it("every filter of every tier and preset says its unit (matching its list), version and paper step", () => {
    for (const preset of ["improved", "paper"] as const) {
      const config = resolveConfig({ preset, captions: { englishOnly: true } });
      for (const tier of tierSpecs(config)) {
        const f = tierFilters(config, tier, { setSizeMax: 4 });
        const lists = { image: [...f.image, f.captioned], reference: f.reference, caption: f.caption, pair: [...f.pair, f.setSize!, f.unique] };
        for (const [unit, list] of Object.entries(lists)) {
          for (const x of list) {
            expect(x.unit, x.id).toBe(unit);
            expect(x.id).toBe(`${x.name}_v${x.version}`);
            expect(x.paperStep === null || (Number.isInteger(x.paperStep) && x.paperStep >= 1 && x.paperStep <= 9), x.id).toBe(true);
            expect(x.description.length, x.id).toBeGreaterThan(0);
          }
        }
        // ids are unique within a tier's funnel
        const ids = funnelSteps(f).map((x) => x.id);
        expect(new Set(ids).size).toBe(ids.length);
      }
    }
  });
});
