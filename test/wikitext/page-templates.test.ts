import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import { readDumpPages } from "../../shared/dump/page-reader.ts";
import { rawText } from "../../shared/dump/revision-text.ts";
import type { PageRevision } from "../../shared/core/records.ts";
import { wikitextExtractor } from "../../shared/sources/mediawiki/wikitext-extractor.ts";
import { extractImageRefs, extractImageRefsFromBytes, type ExtractImagesOptions } from "../../shared/wikitext/extract-images.ts";
import { UNRENDERED } from "../../shared/wikitext/inline-templates.ts";

/**
 * Templates that need the page's title: {{map caption}} (country infoboxes' map captions) and the page
 * magic words ({{PAGENAME}}, …). Rendered by default when the extractor is given the title; unknown as
 * before without it and under preset paper (`paperRules`).
 */
const ENWIKI = new URL("../../../shared/data/wikipedia/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2", import.meta.url).pathname;
const PAPER: ExtractImagesOptions = { paperRules: true, unknownTemplates: "delete", colonFileLinks: "reference" };
const COUNTRIES = ["Albania", "Algeria", "Andorra", "Angola", "Aruba"];

async function countryPages(): Promise<Map<string, PageRevision>> {
  const pages = new Map<string, PageRevision>();
  for await (const rev of readDumpPages(ENWIKI)) if (COUNTRIES.includes(rev.title)) pages.set(rev.title, rev);
  return pages;
}

const MAP_CAPTIONS: [string, string, string][] = [
  ["Albania", "File:Europe-Albania.svg", "Location of Albania (green) in Europe (dark grey)"],
  ["Algeria", "File:Algeria (orthographic projection).svg", "Location of Algeria (dark green)"],
  ["Andorra", "File:Location Andorra Europe.png", "Location of Andorra (center of green circle) in Europe (dark grey)"],
  ["Angola", "File:Location Angola AU Africa.svg", "Location of Angola (dark blue) in the African Union (light blue)"],
  ["Aruba", "File:Aruba in its region.svg", "Location of Aruba (circled in red) in the Caribbean (light yellow)"],
];

describe("{{map caption}}: the map captions of the enwiki sample's country infoboxes", async () => {
  const pages = await countryPages();

  it.each(MAP_CAPTIONS)("%s, through the run's extractor (byte path)", (title, image, caption) => {
    const rev = pages.get(title)!;
    expect(rawText(rev)).toBeDefined();
    const counters = new Counters();
    const out = wikitextExtractor(resolveConfig({}), counters)(rev);
    expect(out.refs!.filter((r) => r.image === image).map((r) => r.caption)).toEqual([caption]);
    expect(counters.get("wikitext.unrendered_template.map caption")).toBe(0);
  });

  it.each(MAP_CAPTIONS)("%s: the string path gives what the byte path gives, with the title", (title) => {
    const rev = pages.get(title)!;
    const opts: ExtractImagesOptions = { pageTitle: rev.title, pageNs: rev.ns, counters: new Counters() };
    const viaString = extractImageRefs(rev.text, opts);
    expect(extractImageRefsFromBytes(Buffer.from(rev.text, "utf8"), { ...opts, counters: new Counters() })).toEqual(viaString);
  });

  it.each(MAP_CAPTIONS)("%s: without the title, or under preset paper, the map caption stays unknown (as before)", (title, image) => {
    const rev = pages.get(title)!;
    const counters = new Counters();
    // (marked: the pipeline drops the caption as wikitext.unrendered_template)
    expect(extractImageRefs(rev.text, { counters }).filter((r) => r.image === image).map((r) => r.caption)).toEqual([UNRENDERED]);
    expect(counters.get("wikitext.unrendered_template.map caption")).toBe(1);
    const paper = extractImageRefs(rev.text, { ...PAPER, pageTitle: rev.title, pageNs: rev.ns }).filter((r) => r.image === image);
    expect(paper.map((r) => r.caption)).toEqual([null]);
    const paperOut = wikitextExtractor(resolveConfig({ preset: "paper" }), new Counters())(rev);
    expect(paperOut.refs!.filter((r) => r.image === image).map((r) => r.caption)).toEqual([null]);
  });
});

describe("{{map caption}} forms and page magic words", () => {
  const cap = (text: string, opts: ExtractImagesOptions = { pageTitle: "Netherlands", pageNs: 0 }) =>
    extractImageRefs(`[[File:Map.svg|thumb|${text}]]`, opts)[0]!.caption;

  it("location, subregion and legend", () => {
    expect(cap("{{map caption |location=the [[Netherlands]] |location_color=dark green |region=Europe |region_color=dark grey |subregion=the [[European Union]] |subregion_color=green}}")).toBe(
      "Location of the Netherlands (dark green) – in Europe (dark grey) – in the European Union (green)",
    );
    // the defaults; a legend is a link to a file, shown as "[Legend]": no caption words
    expect(cap("{{Map caption|region=Europe|legend=Location Netherlands Europe.png}}")).toBe("Location of Netherlands (green) in Europe (grey)");
  });

  it("United-Kingdom: countryprefix, a subregion (the fixture's infobox)", () => {
    const uk = readFileSync(new URL("../fixtures/wikitext/United-Kingdom.txt", import.meta.url), "utf8");
    const map = extractImageRefs(uk, { pageTitle: "United Kingdom", pageNs: 0 }).filter((r) => r.image === "File:EU-United Kingdom.svg");
    expect(map.map((r) => r.caption)).toEqual(["Location of the United Kingdom (dark green) – in Europe (dark grey) – in the European Union (green)"]);
  });

  it("{{PAGENAME}}, {{FULLPAGENAME}}, {{BASEPAGENAME}}, {{PAGENAMEE}}", () => {
    expect(cap("A map of {{PAGENAME}}", { pageTitle: "Cape Verde", pageNs: 0 })).toBe("A map of Cape Verde");
    expect(cap("{{FULLPAGENAME}} / {{BASEPAGENAME}} / {{PAGENAMEE}}", { pageTitle: "Help:Maps/Old", pageNs: 12 })).toBe("Help:Maps/Old / Maps / Maps/Old");
    expect(cap("{{PAGENAMEE}}", { pageTitle: "Côte d'Ivoire", pageNs: 0 })).toBe("C%C3%B4te_d%27Ivoire");
    expect(cap("{{NAMESPACE}}: {{ROOTPAGENAME}}, {{SUBPAGENAME}}", { pageTitle: "Help:Maps/Old/1", pageNs: 12 })).toBe("Help: Maps, 1");
    // in the main namespace a "/" is no subpage
    expect(cap("{{BASEPAGENAME}}", { pageTitle: "AC/DC", pageNs: 0 })).toBe("AC/DC");
    // a template named so ({{pagename}}) is not the magic word; without the title it stays unknown
    const counters = new Counters();
    expect(cap("{{pagename}} map", { pageTitle: "Cape Verde", pageNs: 0, counters })).toBe(`${UNRENDERED} map`);
    expect(counters.get("wikitext.unrendered_template.pagename")).toBe(1);
    expect(cap("A map of {{PAGENAME}}", {})).toBe(`A map of ${UNRENDERED}`);
    expect(cap("A map of {{PAGENAME}}", { ...PAPER, pageTitle: "Cape Verde", pageNs: 0 })).toBe("A map of");
  });
});
