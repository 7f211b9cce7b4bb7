import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import { decodeCharBytes, lazyRevision, rawText } from "../../shared/dump/revision-text.ts";
import { createWikitextExtractor } from "../../shared/sources/mediawiki/revision-reuse.ts";
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

describe("an infobox image shown through a template or named without an image word", () => {
  it("`image = {{CSS image crop|Image=…}}`: the crop is the infobox's image, with the infobox's caption and alt", () => {
    const t = `{{Infobox officeholder
| name = Abraham Lincoln
| image = {{CSS image crop|Image = Abraham Lincoln O-77 matte collodion print.jpg|bSize = 300|cWidth = 220|cHeight = 280|oTop = 10|oLeft = 40}}
| alt = Head and shoulders portrait
| caption = Lincoln in November 1863
| order = 16th
}}`;
    expect(bothPaths(t)).toEqual([["File:Abraham Lincoln O-77 matte collodion print.jpg", "Lincoln in November 1863", "Head and shoulders portrait"]]);
    expect(pairs(t, PAPER)).toEqual([["File:Abraham Lincoln O-77 matte collodion print.jpg", null, null]]);
    // a montage is several images: the one caption is given to none
    expect(bothPaths("{{Infobox settlement|image_skyline = {{Photomontage|photo1a = A.jpg|photo2a = B.jpg|size=250}}|image_caption = Clockwise from top: A, B}}")).toEqual([
      ["File:A.jpg", null, null],
      ["File:B.jpg", null, null],
    ]);
  });

  it("{{Infobox university}}'s image_name is its main image: the generic caption and alt are its, not a logo's before it", () => {
    const t = `{{Infobox university
| name = University of Example
| logo = University of Example logo.svg
| image_name = University of Example seal.svg
| image_size = 150px
| alt = A blue seal with a lamp
| caption = Seal of the University of Example
}}`;
    expect(bothPaths(t)).toEqual([
      ["File:University of Example logo.svg", null, null],
      ["File:University of Example seal.svg", "Seal of the University of Example", "A blue seal with a lamp"],
    ]);
    expect(pairs(t, PAPER)).toEqual([
      ["File:University of Example logo.svg", "Seal of the University of Example", "A blue seal with a lamp"],
      ["File:University of Example seal.svg", null, null],
    ]);
  });

  it("{{Infobox military unit}}: identification_symbol_N with its _label", () => {
    const t = `{{Infobox military unit
| unit_name = 1st Infantry Division
| image = 1st Infantry Division SSI.svg
| caption = Shoulder sleeve insignia
| identification_symbol = [[File:1st Infantry Division DUI.png|100px]]
| identification_symbol_label = [[Distinctive unit insignia]]
| identification_symbol_2 = 1st ID flag.svg
| identification_symbol_2_label = Flag
}}`;
    expect(bothPaths(t)).toEqual([
      ["File:1st Infantry Division SSI.svg", "Shoulder sleeve insignia", null],
      ["File:1st Infantry Division DUI.png", "Distinctive unit insignia", null],
      ["File:1st ID flag.svg", "Flag", null],
    ]);
    expect(pairs(t, PAPER)).toEqual([
      ["File:1st Infantry Division SSI.svg", "Shoulder sleeve insignia", null],
      ["File:1st Infantry Division DUI.png", null, null],
    ]);
    // a symbol slot alone (no image word in the infobox) is read too
    expect(bothPaths("{{Infobox military unit|identification_symbol = Patch.svg|identification_symbol_label = Patch}}")).toEqual([["File:Patch.svg", "Patch", null]]);
  });
});

describe("caption templates of current articles", () => {
  it("{{langx}} (which replaced {{lang-xx}} in 2024) shows its text as {{lang-xx}} does", () => {
    const t = "[[File:Koeln.jpg|thumb|The cathedral ({{langx|de|Kölner Dom}}) and {{lang-de|Rhein}}]]";
    expect(bothPaths(t)).toEqual([["File:Koeln.jpg", "The cathedral (Kölner Dom) and Rhein", null]]);
    expect(pairs(t, PAPER)).toEqual([["File:Koeln.jpg", "The cathedral () and Rhein", null]]);
  });

  it("{{audio|file|text}} shows its text; {{lit}} shows lit. 'text'; {{×}} is ×", () => {
    const t = "[[File:Cologne.jpg|thumb|Köln ({{audio|De-Köln.ogg|pronounced}}), {{lit|the colony}}, 2{{×}}3 km]]";
    expect(bothPaths(t)[0]![1]).toBe("Köln (pronounced), lit. 'the colony', 2×3 km");
    expect(pairs(t, PAPER)[0]![1]).toBe("Köln (), , 23 km");
    // no text: nothing, as before (what the template shows then is not checked); italics around {{lit}} keep its quotes
    expect(bothPaths("[[File:A.jpg|thumb|''Aachen'' {{audio|A.ogg}} ''{{literally|water}}'']]")[0]![1]).toBe("Aachen lit. 'water'");
  });

  it("the space templates ({{hair space}}, {{thin space|J.|R.|R.}}) are spaces between their words", () => {
    const t = "[[File:T.jpg|thumb|{{thin space|J.|R.|R.}} Tolkien at 10{{hair space}}Downing Street{{narrow no-break space}}]]";
    expect(bothPaths(t)[0]![1]).toBe("J. R. R. Tolkien at 10 Downing Street");
    expect(pairs(t, PAPER)[0]![1]).toBe("Tolkien at 10Downing Street");
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

describe("hostile nesting: each template looks at a bounded number of the references made inside it (MAX_REFS_LOOKED_AT)", () => {
  const depth = 20_000;
  it("image frames nested in each other's caption", () => {
    const t = "{{Image frame|content=[[File:A.jpg|100px]]|caption=".repeat(depth) + "Inner" + "}}".repeat(depth);
    const refs = extractImageRefs(t);
    expect(refs).toHaveLength(depth);
    // the innermost frame's image has the innermost caption; the others, a caption of frames: none
    expect(refs[depth - 1]!.caption).toBe("Inner");
  });
  it("infoboxes nested in each other's image, each with a logo", () => {
    const t = "{{Infobox x|logo=[[File:L.svg|40px]]|caption=C|image=".repeat(depth) + "B.jpg" + "}}".repeat(depth);
    const refs = extractImageRefs(t);
    expect(refs).toHaveLength(depth + 1);
    expect(refs.filter((r) => r.image === "File:B.jpg")).toHaveLength(1);
  });
});

describe("a history's revisions (reused scans) give what a scan from scratch gives", () => {
  it("edits inside and around a frame, a nested crop and a symbol slot", () => {
    const uk = readFileSync(join(FIXTURES, "United-Kingdom.txt"), "utf8");
    const crop = "{{Infobox officeholder|image = {{CSS image crop|Image = L.jpg|bSize = 300}}|caption = Lincoln in 1863}}\n";
    const texts = [
      crop + uk,
      crop + uk.replace("The four [[countries of the United Kingdom]]", "The four [[countries of the United Kingdom|countries]]"),
      crop + uk.replace("|caption= The four", "|caption = The four").replace("Image label begin|image=United Kingdom countries.svg", "Image label begin|image=UK countries.svg"),
      crop.replace("Lincoln in 1863", "Lincoln, 1863") + uk,
      crop.replace("{{CSS image crop|Image = L.jpg|bSize = 300}}", "{{CSS image crop|Image = L.jpg|bSize = 300}} {{CSS image crop|Image = M.jpg}}") + uk,
      "{{Infobox military unit|identification_symbol = P.svg|identification_symbol_label = Patch}}\n" + uk,
      "{{Infobox military unit|identification_symbol = P.svg|identification_symbol_label = Shoulder patch}}\n" + uk,
    ];
    const x = createWikitextExtractor({});
    texts.forEach((t, i) => {
      const raw = Buffer.from(t.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"), "utf8");
      const rev = lazyRevision("Page", 0, 1, i + 1, null, false, raw);
      const expected = extractImageRefs(decodeCharBytes(rawText(rev)!), { pageTitle: rev.title, pageNs: rev.ns });
      expect(x.extract(rev).refs, `revision ${i + 1}`).toEqual(expected);
    });
    expect(x.stats.reused + x.stats.incremental).toBeGreaterThan(0);
  });
});
