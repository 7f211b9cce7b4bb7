/**
 * Image options of a dump's language are options (MediaWiki's language files, 35 Wikipedias): a
 * localized word after the caption no longer takes its place; another language's words are captions.
 */
import { describe, expect, it } from "vitest";
import { classifyImageOption, localizedOptions } from "../../shared/wikitext/image-options.ts";
import { extractImageRefs } from "../../shared/wikitext/extract-images.ts";

const none = new Set<string>();
const kind = (s: string, language: string) => classifyImageOption(s, none, localizedOptions(language)).kind;

describe("localized image options", () => {
  it("a language's words, sizes, keyed options and alts; never another language's", () => {
    for (const [o, l] of [["мини", "bg"], ["вдясно", "bg"], ["ляво", "bg"], ["200пкс", "bg"], ["mini", "de"], ["hochkant", "de"], ["hochkant=1.2", "de"], ["vignette", "fr"], ["gauche", "fr"], ["miniatura", "es"], ["derecha", "es"], ["サムネイル", "ja"], ["200ピクセル", "ja"], ["upright 1.5", "en"], ["page 3", "en"]] as const) expect(kind(o, l), `${o} (${l})`).toBe("option");
    expect(classifyImageOption("alternativtext=Ein Hund", none, localizedOptions("de"))).toEqual({ kind: "alt", value: "Ein Hund" });
    for (const t of ["Надпис на картинката", "Ein Hund am Strand", "Upright piano", "Page 3 of the manuscript"]) expect(kind(t, "bg"), t).toBe("text");
    // Catalan's "cap" (none) and German's "links" (left) are English captions
    expect(kind("cap", "en")).toBe("text");
    expect(kind("links", "en")).toBe("text");
    expect(kind("cap", "ca")).toBe("option");
    expect(localizedOptions("xx")).toBeNull();
  });

  it("the caption is the last segment that is no option, in any of those languages", () => {
    const bg = extractImageRefs("[[Файл:Bg2.jpg|Надпис на картинката|мини|ляво]] [[Файл:Bg1.jpg|мини|вдясно|200пкс]]", { fileAliases: ["Файл"], language: "bg" });
    expect(bg.map((r) => [r.image, r.caption])).toEqual([["File:Bg2.jpg", "Надпис на картинката"], ["File:Bg1.jpg", null]]);
    const de = extractImageRefs("[[Datei:De.jpg|mini|hochkant=1.2|alternativtext=Ein Hund|Ein Hund am Strand]]", { fileAliases: ["Datei"], language: "de" });
    expect(de).toEqual([{ image: "File:De.jpg", source: "link", caption: "Ein Hund am Strand", alt: "Ein Hund" }]);
    expect(extractImageRefs("[[File:Up.jpg|thumb|Caption here|upright 1.5]] [[File:Pg.pdf|thumb|A document|page 3]]").map((r) => r.caption)).toEqual(["Caption here", "A document"]);
  });
});
