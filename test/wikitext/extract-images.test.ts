import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { WikitextImageRef } from "../../shared/core/records.ts";
import { ExtractionLimitError, extractImageRefs } from "../../shared/wikitext/extract-images.ts";

const ref = (image: string, source: WikitextImageRef["source"], caption: string | null = null, alt: string | null = null): WikitextImageRef => ({ image, source, caption, alt });
const link = (image: string, caption: string | null = null, alt: string | null = null) => ref(image, "link", caption, alt);

describe("templates as a reader sees them (enwiki: Alaska, Toronto, Aristotle, Angola, Apollo 11)", () => {
  it("{{double image}}, {{wide image}} and {{triple image}} place images by position", () => {
    expect(extractImageRefs("{{double image|left|L.jpg|190|R.jpg|240|Left cap.|Right cap.|left alt=A left view}}")).toEqual([
      ref("File:L.jpg", "template", "Left cap.", "A left view"),
      ref("File:R.jpg", "template", "Right cap."),
    ]);
    expect(extractImageRefs("{{Wide image|Valbona_Haze_Panorama.jpg|1200px|Valbona Valley Panorama}}")).toEqual([ref("File:Valbona Haze Panorama.jpg", "template", "Valbona Valley Panorama")]);
    // one caption for the three: given to none
    expect(extractImageRefs("{{triple image|right|A.jpg|100|B.jpg|100|C.jpg|100|Three views}}").map((r) => [r.image, r.caption])).toEqual([["File:A.jpg", null], ["File:B.jpg", null], ["File:C.jpg", null]]);
  });

  it("a comment before or inside a parameter name leaves it named (MediaWiki strips comments first)", () => {
    expect(extractImageRefs("{{Infobox philosopher |\n <!-- Image and Caption -->\n image_name = Aristoteles Louvre.jpg |\n image_caption = Aristotle, marble copy |}}")).toEqual([
      ref("File:Aristoteles Louvre.jpg", "template", "Aristotle, marble copy"),
    ]);
    expect(extractImageRefs("{{Infobox x| caption <!-- c = d --> = The caption | image = B.jpg}}")).toEqual([ref("File:B.jpg", "template", "The caption")]);
  });

  it("{{CSS image crop}}'s Description is its caption; CoatOfArms names an image", () => {
    expect(extractImageRefs("{{CSS image crop|Image = Lincoln.jpg|bSize = 200|Description = Engraved portrait of Lincoln as President. }}")).toEqual([
      ref("File:Lincoln.jpg", "template", "Engraved portrait of Lincoln as President."),
    ]);
    expect(extractImageRefs("{{Infobox Canada province| CoatOfArms = Alberta coat of arms.svg}}")).toEqual([ref("File:Alberta coat of arms.svg", "template")]);
  });

  it("an infobox's generic caption is its main image's, not a logo's before it; image_map1 pairs with map_caption1", () => {
    expect(extractImageRefs("{{Infobox school| logo = L.svg| image = B.jpg| alt = Front of the main building| caption = The main building}}")).toEqual([
      ref("File:L.svg", "template"),
      ref("File:B.jpg", "template", "The main building", "Front of the main building"),
    ]);
    expect(extractImageRefs("{{Infobox settlement|image_map1 = M1.svg|map_caption1 = Location in the county|image_map2=M2.png|map_caption2=Location in the state}}").map((r) => [r.image, r.caption])).toEqual([
      ["File:M1.svg", "Location in the county"],
      ["File:M2.png", "Location in the state"],
    ]);
  });

  it("numbered arguments are the positional ones: {{nowrap|1=E = mc2}}", () => {
    expect(extractImageRefs("[[File:N.jpg|thumb|The {{nowrap|1=E = mc2}} equation and {{small|1=small words}} here]]")[0]!.caption).toBe("The E = mc2 equation and small words here");
    expect(extractImageRefs("[[File:F.jpg|thumb|The {{lang|fr|2=Le chat}} here]]")[0]!.caption).toBe("The Le chat here");
  });

  it("block templates are words apart; {{longitem}}'s text, not its style; {{'s}} beside italics keeps its apostrophe", () => {
    expect(extractImageRefs("[[File:Lg.png|thumb|{{legend|#ff0000|[[Cabinda Province]]}}{{legend|#00ff00|Republic of the Congo}}]]")[0]!.caption).toBe("Cabinda Province Republic of the Congo");
    expect(extractImageRefs("[[File:T.jpg|thumb|Towns{{center|A}}{{center|B}}{{smalldiv|C}}{{quote|D}}end]]")[0]!.caption).toBe("Towns A B C D end");
    expect(extractImageRefs("[[File:L1.jpg|thumb|{{longitem|line-height:1.25em|Roman copy<br/>bust}}]]")[0]!.caption).toBe("Roman copy bust");
    expect(extractImageRefs("[[File:E.jpg|thumb|''Eagle''{{'s}} ascent stage approaching ''Columbia'']]")[0]!.caption).toBe("Eagle's ascent stage approaching Columbia");
    expect(extractImageRefs("[[File:F.jpg|thumb|''Foo''{{'}} bar]]")[0]!.caption).toBe("Foo' bar");
  });
});

describe("file links", () => {
  it("accepts any case of the prefix, spaces, aliases and the leading-colon form", () => {
    // a colon link is a link to the file page, not a use of the image (reference implementation: a use)
    expect(extractImageRefs("[[file:a.jpg|x]] [[IMAGE:b.jpg|y]] [[ File : c d.jpg |z]] [[:File:E.jpg|the file page]]")).toEqual([
      link("File:A.jpg", "x"), link("File:B.jpg", "y"), link("File:C d.jpg", "z"),
    ]);
    expect(extractImageRefs("[[file:a.jpg|x]] [[:File:E.jpg|the file page]]", { colonFileLinks: "reference" })).toEqual([
      link("File:A.jpg", "x"), link("File:E.jpg", "the file page"),
    ]);
    expect(extractImageRefs("[[Datei:A.jpg|mini|Bild]] [[Файл:B.jpg]]", { fileAliases: ["Datei", "Файл"], extraOptionWords: ["mini"] })).toEqual([
      link("File:A.jpg", "Bild"), link("File:B.jpg"),
    ]);
    expect(extractImageRefs("[[Datei:A.jpg|Bild]] [[Category:X]] [[Media:C.ogg]] [[Foo|bar]]")).toEqual([]);
  });
  it("takes the last non-option segment as caption, alt= as alt, never an option", () => {
    const options = "thumb|thumbnail|thumb=B.jpg|frame|framed|frameless|border|upright|upright=1.3|220px|100x200px|x300px|200 px|left|right|center|centre|none|baseline|middle|sub|super|text-top|text-bottom|top|bottom|link=Foo|class=x|page=2|lang=fr|loop|muted|start=3|end=4|thumbtime=5";
    expect(extractImageRefs(`[[File:A.jpg|${options}]]`)).toEqual([link("File:A.jpg")]);
    expect(extractImageRefs(`[[File:A.jpg|Caption first|${options.toUpperCase().replace("B.JPG", "b.jpg")}]]`)).toEqual([link("File:A.jpg", "Caption first")]);
    expect(extractImageRefs("[[File:A.jpg|thumb|alt=An ''alt'' with [[Foo|bar]]|upright= 1.2 |The caption]]")).toEqual([link("File:A.jpg", "The caption", "An alt with bar")]);
    expect(extractImageRefs("[[File:A.jpg|अंगूठाकार|कैप्शन]]", { extraOptionWords: ["अंगूठाकार"] })).toEqual([link("File:A.jpg", "कैप्शन")]);
  });
  it("splits only on top-level pipes and keeps multi-line captions", () => {
    expect(extractImageRefs("[[File:A.jpg|thumb|A [[b|c]] {{lang|fr|d|italic=no}} a > b\ne]]")).toEqual([link("File:A.jpg", "A c d a > b e")]);
  });
  it("reports nested file links once each, without the ]]] truncation", () => {
    expect(extractImageRefs("[[File:A.jpg|thumb|[[File:B.jpg]]]]")).toEqual([link("File:A.jpg"), link("File:B.jpg")]);
    expect(extractImageRefs("[[File:A.jpg|thumb|Outer [[File:B.jpg|20px|inner]] text]]")).toEqual([link("File:A.jpg", "Outer text"), link("File:B.jpg", "inner")]);
    expect(extractImageRefs("[[File:A.jpg|thumb|Text [https://x.org/a_b Label here]]]")).toEqual([link("File:A.jpg", "Text Label here")]);
  });
  it("ignores commented-out and nowiki images and counts invalid names", () => {
    const counters = new Counters();
    expect(extractImageRefs("<!-- [[File:Hidden.jpg]] --><nowiki>[[File:N.jpg]]</nowiki>[[File:Bad<x>.jpg|c]]", { counters })).toEqual([]);
    expect(counters.get("wikitext.skipped.invalid_file_name")).toBe(1);
  });
  it("counts, with a sample, every invalid name in a file's place: links, gallery lines, template values (over 255 bytes, control characters)", () => {
    const long = `${"N".repeat(300)}.jpg`;
    const text = [
      `[[File:${long}|thumb|a]]`, "[[File:Ctl\u0001.jpg|thumb|b]]", "[[File:Smile 😀.jpg|thumb|c]]",
      `<gallery>\nFile:${long}|d\nFile:Bell\u0007.png|e\nFile:😀.png|f\n</gallery>`,
      `{{Infobox|image=${long}|caption=g}}`, "{{Infobox|image=Esc\u001b.jpg|caption=h}}", `{{Infobox|image=${"M".repeat(1100)}.jpg|caption=i}}`,
    ].join("\n");
    const counters = new Counters();
    const refs = extractImageRefs(text, { counters });
    expect(refs.map((r) => r.image)).toEqual(["File:Smile 😀.jpg", "File:😀.png"]);
    expect(counters.get("wikitext.skipped.invalid_file_name")).toBe(7);
    expect(counters.samples.get("wikitext.skipped.invalid_file_name").length).toBeGreaterThan(3);
  });
  it("reads the image of an <imagemap>", () => {
    expect(extractImageRefs("<imagemap>\nImage:Map.png|400px|alt=Clickable|A map\nrect 0 0 10 10 [[Foo]]\n</imagemap>")).toEqual([link("File:Map.png", "A map", "Clickable")]);
  });
});

describe("templates", () => {
  it("reads infobox image keys with their caption and alt partners", () => {
    const text = "{{Infobox settlement|name=X|image_skyline=Sky_line.jpg|image_caption=The '''skyline'''|image_alt=Towers|image_map=Map.svg|map_caption=Where|image_flag=<!-- c -->Flag.png{{!}}100px|pushpin_map=Canada|image_size=250px}}";
    expect(extractImageRefs(text)).toEqual([
      ref("File:Sky line.jpg", "template", "The skyline", "Towers"),
      ref("File:Map.svg", "template", "Where"),
      ref("File:Flag.png", "template"),
    ]);
  });
  it("keeps the template caption when the value is a full file link", () => {
    expect(extractImageRefs("{{Infobox person|image=[[File:P.jpg|200px|Link cap]]|caption=Infobox cap|alt=Alt}}")).toEqual([ref("File:P.jpg", "template", "Infobox cap", "Alt")]);
    expect(extractImageRefs("{{Infobox person|image=[[File:P.jpg|200px|Link cap]]}}")).toEqual([ref("File:P.jpg", "template", "Link cap")]);
  });
  it("normalises File: values, ignores values that are not file names", () => {
    expect(extractImageRefs("{{Infobox ship|Ship image=File:Foo.jpg|Ship caption=A ship|logo=none|photo=Some text}}")).toEqual([ref("File:Foo.jpg", "template", "A ship")]);
  });
  it("reads {{multiple image}} and {{Gallery}}", () => {
    expect(extractImageRefs("{{multiple image|align=left|image1=A.jpg|caption1=First|alt1=a1|image2=B.jpg|caption2=Second}}")).toEqual([
      ref("File:A.jpg", "template", "First", "a1"), ref("File:B.jpg", "template", "Second"),
    ]);
    expect(extractImageRefs("{{Gallery|title=T|File:GA.jpg|Cap A|File:GB.jpg|alt2=Alt B}}")).toEqual([
      ref("File:GA.jpg", "template", "Cap A"), ref("File:GB.jpg", "template", null, "Alt B"),
    ]);
  });
});

describe("<gallery>", () => {
  it("reads lines with and without prefix, options per line, and galleries inside templates", () => {
    const text = "{{Infobox x|gallery=<gallery mode=packed>\nFile:G1.jpg|Gallery one\nG2.jpg|alt=galt|link=Foo|Gallery ''two''\n<!-- File:Hidden.jpg|x -->\nImage:G3.jpg\n</gallery>}}";
    expect(extractImageRefs(text)).toEqual([
      ref("File:G1.jpg", "gallery", "Gallery one"), ref("File:G2.jpg", "gallery", "Gallery two", "galt"), ref("File:G3.jpg", "gallery"),
    ]);
  });
  it("reports a file link inside a gallery or imagemap caption as its own reference, as in a body link's caption", () => {
    const text = [
      "<gallery>",
      "File:Tower.jpg|The tower at dusk with the [[File:Flag of France.svg|20px|border]] flag and a [[Paris|city]] link",
      "File:Plain.jpg|A [[Foo]] and [[Category:Bar]] only",
      "File:Deep.jpg|a [[File:A.svg|x [[File:B.svg|y [[File:C.svg|z [[File:D.svg|w [[File:E.svg]] ]] ]] ]] ]]",
      "</gallery>",
      "<imagemap>\nFile:Map.png|400px|A map with [[File:Compass.svg|12px]] a compass\nrect 0 0 10 10 [[File:Not an image use.jpg]]\n</imagemap>",
    ].join("\n");
    expect(extractImageRefs(text)).toEqual([
      ref("File:Tower.jpg", "gallery", "The tower at dusk with the flag and a city link"), link("File:Flag of France.svg"),
      ref("File:Plain.jpg", "gallery", "A Foo and only"),
      // deeper than four links inside the line's caption: not looked at
      ref("File:Deep.jpg", "gallery", "a"), link("File:A.svg", "x"), link("File:B.svg", "y"), link("File:C.svg", "z"), link("File:D.svg", "w"),
      link("File:Map.png", "A map with a compass"), link("File:Compass.svg"),
    ]);
  });
});

// No wall-clock budgets (no test depends on speed): the sizes are such that work growing with the
// square of the input would not finish within the file's timeout, which is what catches a hang.
describe("limits and hostile input", () => {
  const fast = (fn: () => void) => fn();
  it("refuses pages over maxPageBytes with a typed error", () => {
    expect(() => extractImageRefs("é".repeat(600), { maxPageBytes: 1000 })).toThrow(ExtractionLimitError);
    try {
      extractImageRefs("x".repeat(2000), { maxPageBytes: 1000 });
    } catch (e) {
      expect((e as ExtractionLimitError).reason).toBe("page_too_large");
    }
    expect(extractImageRefs("é".repeat(400), { maxPageBytes: 1000 })).toEqual([]);
  });
  it("survives a million unbalanced openers", () => {
    fast(() => expect(extractImageRefs("[[".repeat(1_000_000) + "[[File:A.jpg|cap]]")).toEqual([link("File:A.jpg", "cap")]));
    fast(() => expect(extractImageRefs("{{".repeat(1_000_000) + "[[File:A.jpg|cap]]" + "]]".repeat(1_000_000))).toEqual([link("File:A.jpg", "cap")]));
  });
  it("survives 10k-deep nesting of file links and templates", () => {
    const depth = 10_000;
    fast(() => {
      const refs = extractImageRefs("[[File:a.jpg|".repeat(depth) + "innermost" + "]]".repeat(depth));
      expect(refs).toHaveLength(depth);
      expect(refs[depth - 1]).toEqual(link("File:A.jpg", "innermost"));
      expect(refs[0]).toEqual(link("File:A.jpg"));
    });
    fast(() => expect(extractImageRefs("{{a|".repeat(depth) + "[[File:B.jpg|x]]" + "}}".repeat(depth))).toEqual([link("File:B.jpg", "x")]));
    fast(() => expect(extractImageRefs("{{a|image=".repeat(depth) + "B.jpg" + "}}".repeat(depth))).toEqual([ref("File:B.jpg", "template")]));
  });
  it("handles a 100k-character caption and a 5 MB page of real text", () => {
    fast(() => expect(extractImageRefs(`[[File:A.jpg|thumb|${"long caption ".repeat(8000)}]]`)[0]!.caption!.length).toBe(8000 * 13 - 1));
    const page = readFileSync(join(FIXTURES, "toronto.txt"), "utf8");
    const big = page.repeat(Math.ceil(5e6 / page.length));
    fast(() => expect(extractImageRefs(big)).toHaveLength(36 * Math.ceil(5e6 / page.length)));
  });
});

const FIXTURES = join(import.meta.dirname, "../fixtures/wikitext");
const fixture = (name: string) => readFileSync(join(FIXTURES, name), "utf8");

describe("golden: real articles (verified by reading the wikitext)", () => {
  it("HMS-Irresistible (German ship list): no images", () => {
    expect(extractImageRefs(fixture("HMS-Irresistible.txt"))).toEqual([]);
  });
  it("royal_cinema: infobox image with underscores, empty logo_image", () => {
    expect(extractImageRefs(fixture("royal_cinema.txt"))).toEqual([ref("File:Royal Cinema.JPG", "template", "The Royal Cinema in 2009")]);
  });
  it("BBDO (German): Logo = [[Datei:…]] with the Datei alias", () => {
    expect(extractImageRefs(fixture("BBDO.txt"))).toEqual([]);
    expect(extractImageRefs(fixture("BBDO.txt"), { fileAliases: ["Datei"] })).toEqual([ref("File:BBDO Logo.png", "template")]);
  });
  it("Goryeo-ware: infobox image and a <gallery>", () => {
    expect(extractImageRefs(fixture("Goryeo-ware.txt"))).toEqual([
      ref("File:Korea - Seoul - National Museum - Incense Burner 0252-06a.jpg", "template", "Censer with kingfisher glaze, Goryeo dynasty (National Treasure No. 95)"),
      ref("File:청자 어룡 모양 주전자.jpg", "gallery", "Dragon kettle, 12th century (National Treasure No. 61)"),
      ref("File:Goryeo Celadon.jpg", "gallery", "Maebyeong vase with sanggam engraved cranes (National Treasure No. 68)"),
      ref("File:청자 거북이 모양 주자.jpg", "gallery", "Pitcher in the shape of a Dragon Turtle (National Treasure No. 96)"),
      ref("File:청자 상감 모란 넝쿨 무늬 조롱박 모양 주전자.jpg", "gallery", "Pitcher (National Treasure No. 116)"),
      ref("File:Korea-Goryeo Dynasty-Wine ewer in the shape of a seated immortal-01.jpg", "gallery", "Wine ewer in the shape of a seated immortal (National Treasure No. 167)"),
    ]);
  });
  it("Bodmin: static_image_name infobox image and a caption placed before thumb", () => {
    expect(extractImageRefs(fixture("Bodmin.txt"))).toEqual([
      ref("File:Bodmin Public Rooms - geograph.org.uk - 1064189.jpg", "template", "Bodmin Public Rooms"),
      link("File:Ancient Stone Cross on Old Callywith Road - geograph.org.uk - 757140.jpg", "A Cornish cross on Old Callywith Road"),
      link("File:St Petroc's Church, Bodmin - geograph.org.uk - 51028.jpg", "St Petroc's Church"),
      link("File:Shire Hall, Bodmin - geograph.org.uk - 50323.jpg", "The Shire Hall"),
      link("File:Berry Tower - geograph.org.uk - 754952.jpg", "Berry Tower, all that remains of the Chapel of the Holy Rood"),
      link("File:Bodmin Library - geograph.org.uk - 754652.jpg", "Bodmin Library"),
    ]);
  });
  it("Allen-R.-Morris: infobox image, & in captions, a two-line caption", () => {
    expect(extractImageRefs(fixture("Allen-R.-Morris.txt"))).toEqual([
      ref("File:AllenMorrisHeadShot.jpg", "template", "Allen R. Morris in his office 2015"),
      link("File:Roger Gray, Allen Morris and Eddie Bracken - PAWS FOR THE NIGHT 001.jpg", "Roger Gray, Allen Morris & Eddie Bracken on the set of PAWS FOR THE NIGHT"),
      link("File:Charlie Cudd and Allen Morris in THEY'D HANG YOU IN NASHVILLE 001.jpg", "Charlie Cudd & Allen Morris in THEY'D HANG YOU IN NASHVILLE 1977"),
      link("File:Directing young actors for Children's Assessment Center.jpg", "Directing young actors for the Children's Assessment Center"),
      link("File:AllenMorrisNationalEmmyCCBYSA4.jpg", "Allen Morris accepting Emmy Award 2003 (Photo by Marc Bryan-Brown, used with permission CC-BY-SA-4.0)"),
    ]);
  });
  it("toronto: Infobox settlement images and body captions with links and refs", () => {
    const refs = extractImageRefs(fixture("toronto.txt"));
    expect(refs.slice(0, 8)).toEqual([
      ref("File:Montage of Toronto 7.jpg", "template", "From top left: Downtown Toronto featuring the CN Tower and Financial District from the Toronto Islands, City Hall, the Ontario Legislative Building, Casa Loma, Prince Edward Viaduct, and the Scarborough Bluffs"),
      ref("File:Toronto Flag.svg", "template"),
      ref("File:Toronto Coat of Arms.jpg", "template"),
      ref("File:City of Toronto Logo.png", "template"),
      ref("File:Toronto Location in Ontario.png", "template", "Location of Toronto and its census metropolitan area in the province of Ontario"),
      link("File:Toronto 1894large.jpg", "Map of Toronto, 1894"),
      link("File:Old Union Station Toronto.jpg", "Old Union Station Toronto, 1907"),
      link("File:Yonge Street crowd celebrating the end of the Boer War.jpg", "Yonge Street in 1900"),
    ]);
    expect(refs).toHaveLength(36);
    const byImage = new Map(refs.map((r) => [r.image, r]));
    // its two {{wide image}} panoramas, caption and alt as the template places them
    expect(byImage.get("File:Nathan Phillips square - Toronto.jpg")).toEqual({ image: "File:Nathan Phillips square - Toronto.jpg", source: "template", caption: "Nathan Phillips Square", alt: "Nathan Phillips Square" });
    expect(byImage.get("File:Toronto panorama.jpg")?.caption).toMatch(/^360-degree panorama of Toronto as seen from the CN Tower\. The Toronto Islands and the Billy Bishop Toronto City Airport on Lake Ontario are vis/);
    expect(byImage.get("File:Annex houses.JPG")).toEqual(link("File:Annex houses.JPG", 'A group of "The Annex" style houses, a style of house that was popular in Toronto in the late nineteenth century.'));
    expect(byImage.get("File:Toronto Yellow Circles 2010.jpg")?.caption).toBe("High Park in Toronto, with Menashe Kadishman's Yellow Circles (1967)");
    expect(byImage.get("File:Crystal.view.from.west.JPG")?.caption).toBe("Royal Ontario Museum is one of Canada's leading museums");
    expect(byImage.get("File:TTC CLRV College St @ Montrose Ave.jpg")?.caption).toBe("Developed in the early 1900s, Little Italy is one of the city's oldest extant ethnic neighbourhoods.");
  });
  it("United-Kingdom: {{multiple image}} entries with their captions", () => {
    const refs = extractImageRefs(fixture("United-Kingdom.txt"));
    expect(refs).toContainEqual(ref("File:Keswick Panorama - Oct 2009.jpg", "template", "The Skiddaw massif, town of Keswick and Derwent Water in Lakeland"));
    expect(refs).toContainEqual(ref("File:Quiraing Isle of Skye Pano.jpg", "template", "Skye is one of the major islands in the Inner Hebrides and part of the Scottish Highlands"));
  });
});

describe("stress: every cached wtf_wikipedia article", () => {
  const dir = new URL("../fixtures/data/wikitext/wtf_wikipedia/", import.meta.url).pathname;
  const files = readdirSync(dir).filter((f) => f.endsWith(".txt"));
  it("covers all 36 files", () => expect(files).toHaveLength(36));
  it.each(files)("%s: valid refs, clean captions", (file) => {
    const refs = extractImageRefs(readFileSync(join(dir, file), "utf8"), { fileAliases: ["Datei"] });
    for (const r of refs) {
      expect(WikitextImageRef.parse(r)).toEqual(r);
      expect(r.image.startsWith("File:")).toBe(true);
      for (const text of [r.caption, r.alt]) {
        if (text === null) continue;
        expect(text.trim()).toBe(text);
        expect(text).not.toBe("");
        for (const bad of ["[[", "{{", "]]", "}}", "<ref", "thumb|"]) expect(text, `${r.image}: ${text}`).not.toContain(bad);
      }
    }
  });
});
