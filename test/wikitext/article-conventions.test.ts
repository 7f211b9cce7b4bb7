import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import { lazyRevision } from "../../shared/dump/revision-text.ts";
import { wikitextExtractor } from "../../shared/sources/mediawiki/wikitext-extractor.ts";
import { extractImageRefs, extractImageRefsFromBytes, type ExtractImagesOptions } from "../../shared/wikitext/extract-images.ts";

/**
 * Conventions of English Wikipedia articles found by the generalization hunt of 2026-11-27 (images or
 * captions the extractor missed). Each is read by default and not under preset paper (`paperRules`),
 * whose references stay as they were.
 */
const FIXTURES = join(import.meta.dirname, "../fixtures/wikitext");
const PAPER: ExtractImagesOptions = { paperRules: true, unknownTemplates: "delete", colonFileLinks: "reference" };
const pairs = (text: string, opts: ExtractImagesOptions = {}) => extractImageRefs(text, opts).map((r) => [r.image, r.caption, r.alt]);
/** the byte path (dumps, histories) gives what the string path gives */
const bothPaths = (text: string, opts: ExtractImagesOptions = {}) => {
  const refs = extractImageRefs(text, opts);
  expect(extractImageRefsFromBytes(Buffer.from(text, "utf8"), opts)).toEqual(refs);
  return refs.map((r) => [r.image, r.caption, r.alt]);
};

describe("{{Image frame}}: its caption is the caption of the one image its content shows", () => {
  it("United-Kingdom: a labelled map ({{Image label begin}} inside {{Image frame}})", () => {
    const uk = readFileSync(join(FIXTURES, "United-Kingdom.txt"), "utf8");
    const map = (opts: ExtractImagesOptions) => extractImageRefs(uk, opts).filter((r) => r.image === "File:United Kingdom countries.svg");
    expect(map({}).map((r) => r.caption)).toEqual(["The four countries of the United Kingdom"]);
    expect(map(PAPER).map((r) => r.caption)).toEqual([null]);
  });

  it("a file link as the content; content of two images or none gives the caption to none", () => {
    const one = "{{Image frame|width=220|content=[[File:Orbit.svg|220px]]|caption=The orbit of [[Mars]]}}";
    expect(bothPaths(one)).toEqual([["File:Orbit.svg", "The orbit of Mars", null]]);
    expect(pairs(one, PAPER)).toEqual([["File:Orbit.svg", null, null]]);
    expect(bothPaths("{{Image frame|content=[[File:A.jpg|100px]][[File:B.jpg|100px]]|caption=Two views}}")).toEqual([
      ["File:A.jpg", null, null],
      ["File:B.jpg", null, null],
    ]);
    expect(bothPaths("{{Image frame|content={{Graph:Chart|x=1}}|caption=A chart}}")).toEqual([]);
    // the image's own caption is kept
    expect(bothPaths("{{Image frame|content=[[File:C.jpg|thumb|Own caption]]|caption=Frame caption}}")).toEqual([["File:C.jpg", "Own caption", null]]);
  });
});

describe("{{Chembox}}: ImageFile, ImageFile1, ImageFileL1/R1 with their ImageCaption… and ImageAlt…", () => {
  const chembox = `{{Chembox
| Verifiedfields = changed
| ImageFile = Aspirin-skeletal.svg
| ImageSize = 180px
| ImageAlt = Skeletal formula of aspirin
| ImageFileL1 = Aspirin-B-3D-balls.png
| ImageAltL1 = Ball-and-stick model
| ImageFileR1 = Aspirin-B-3D-vdW.png
| ImageCaptionR1 = Space-filling model
| ImageFile2 = Aspirin crystals.jpg
| ImageCaption2 = Crystals of aspirin
| IUPACName = 2-Acetoxybenzoic acid
}}`;
  it("reads every image slot", () => {
    expect(bothPaths(chembox)).toEqual([
      ["File:Aspirin-skeletal.svg", null, "Skeletal formula of aspirin"],
      ["File:Aspirin-B-3D-balls.png", null, "Ball-and-stick model"],
      ["File:Aspirin-B-3D-vdW.png", "Space-filling model", null],
      ["File:Aspirin crystals.jpg", "Crystals of aspirin", null],
    ]);
    expect(pairs(chembox, PAPER)).toEqual([]);
  });
});

describe("caption templates of current articles", () => {
  it("{{langx}} (which replaced {{lang-xx}} in 2024) shows its text as {{lang-xx}} does", () => {
    const t = "[[File:Koeln.jpg|thumb|The cathedral ({{langx|de|Kölner Dom}}) and {{lang-de|Rhein}}]]";
    expect(bothPaths(t)).toEqual([["File:Koeln.jpg", "The cathedral (Kölner Dom) and Rhein", null]]);
    expect(pairs(t, PAPER)).toEqual([["File:Koeln.jpg", "The cathedral () and Rhein", null]]);
  });

  it("{{e}} (enwiki 2016, Alkali metal): ×10 and the exponent, as <sup> reads", () => {
    const t = "[[File:Pichblende.jpg|thumb|This sample of [[uraninite]] contains about 100,000 atoms (3.3{{e|-20}}&nbsp;g) of francium-223 at any given time.<ref name=\"nbb\" />|alt=A shiny gray 5-centimeter piece of matter with a rough surface.]]";
    expect(bothPaths(t)[0]![1]).toBe("This sample of uraninite contains about 100,000 atoms (3.3×10−20 g) of francium-223 at any given time.");
    expect(pairs(t, PAPER)[0]![1]).toBe("This sample of uraninite contains about 100,000 atoms (3.3 g) of francium-223 at any given time.");
  });
});

describe("a run's extractor", () => {
  it("reads these conventions by default and not under preset paper", () => {
    const text = "[[File:Koeln.jpg|thumb|The cathedral ({{langx|de|Kölner Dom}})]]";
    const caption = (config: unknown) => {
      const rev = lazyRevision("Cologne", 0, 1, 10, null, false, Buffer.from(text, "utf8"));
      return wikitextExtractor(resolveConfig(config), new Counters())(rev).refs!.map((r) => r.caption);
    };
    expect(caption({})).toEqual(["The cathedral (Kölner Dom)"]);
    expect(caption({ preset: "paper" })).toEqual(["The cathedral ()"]);
  });
});
