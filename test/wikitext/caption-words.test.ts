/**
 * Issue 10 item 4, "captions must keep their words": a link to a file page is a link (its label stays,
 * it is not a use of the image), and a caption never goes out with a template's words silently missing:
 * known templates render, wordless ones go, unknown ones mark the caption, which is then dropped as a
 * counted reason. The reference implementation's behaviour stays under preset paper.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import { readDumpPages } from "../../shared/dump/page-reader.ts";
import { captionFilters, renderedFilter } from "../../shared/pipeline/filters.ts";
import { tierSpecs } from "../../shared/pipeline/tiers.ts";
import { cleanCaption } from "../../shared/wikitext/clean-caption.ts";
import { extractImageRefs } from "../../shared/wikitext/extract-images.ts";
import { UNRENDERED } from "../../shared/wikitext/inline-templates.ts";
import { features } from "../pipeline/stage-helpers.ts";

const UK = readFileSync(new URL("../fixtures/wikitext/United-Kingdom.txt", import.meta.url), "utf8");
const SAMPLE = new URL("../../shared/sample/enwiki-2016-pages-articles1-sample.xml.bz2", import.meta.url).pathname;
const SCOTLAND_ARMS = "File:Royal Coat of Arms of the United Kingdom (Scotland).svg";

describe("colon links to a file page", () => {
  it("are links: the label stays in the caption around them (the Shiller P/E figure caption of issue 10)", () => {
    const page = "[[File:Shiller PE.png|thumb|The horizontal axis shows the [[:Image:Shiller IE2 Fig 1-1.png|real price-earnings ratio of the S&P Composite Stock Price Index]] as computed in ''Irrational Exuberance''. See also [[:Image:Shiller IE2 Fig 1-1.png|the P/E ratio chart]].]]";
    expect(extractImageRefs(page)).toEqual([{
      image: "File:Shiller PE.png", source: "link", alt: null,
      caption: "The horizontal axis shows the real price-earnings ratio of the S&P Composite Stock Price Index as computed in Irrational Exuberance. See also the P/E ratio chart.",
    }]);
    // reference implementation: the links are uses of the image and their labels leave the caption
    const paper = extractImageRefs(page, { colonFileLinks: "reference" });
    expect(paper.map((r) => r.caption)).toEqual([
      "The horizontal axis shows the as computed in Irrational Exuberance. See also .",
      "real price-earnings ratio of the S&P Composite Stock Price Index",
      "the P/E ratio chart",
    ]);
  });

  it("are no uses of the image: United Kingdom's \"[click to view image]\" is no caption (real article)", () => {
    expect(extractImageRefs(UK).filter((r) => r.image === SCOTLAND_ARMS)).toEqual([]);
    expect(extractImageRefs(UK, { colonFileLinks: "reference" }).filter((r) => r.image === SCOTLAND_ARMS).map((r) => r.caption)).toEqual(["[click to view image]"]);
  });
});

describe("templates in captions", () => {
  it("render the common word-carrying ones (real uses from the sample dump and United Kingdom)", () => {
    expect(cleanCaption("{{as of|2010}}, the three largest denominational groups")).toBe("As of 2010, the three largest denominational groups");
    expect(cleanCaption("diagnosed with ASD {{as of|2014|lc=y}}, a 30% increase")).toBe("diagnosed with ASD as of 2014, a 30% increase");
    expect(cleanCaption("{{as of|2015|6|30}} when the last leap second was added")).toBe("As of June 30, 2015 when the last leap second was added");
    expect(cleanCaption("non-white {{as of|lc=y|2005|06|alt=in 2005}}")).toBe("non-white in 2005");
    expect(cleanCaption("A {{convert|5|km|mi}} walk, {{nowrap|St. Paul's}} and {{lang|fr|la Manche}}")).toBe("A 5 kilometres (3.1 mi) walk, St. Paul's and la Manche");
    expect(cleanCaption("Born {{start date|1990|5|1}}, crowned {{reign|1066|1087}}")).toBe("Born May 1, 1990, crowned r. 1066–1087");
  });

  it("drop footnotes and cleanup tags without a trace", () => {
    expect(cleanCaption("Riverside in 1900{{citation needed|date=May 2015}}{{efn|A note}}")).toBe("Riverside in 1900");
  });

  it("mark an unknown template instead of silently losing its words ({{NYCS|J}})", () => {
    const text = cleanCaption("The {{NYCS|J}} and {{NYCS|Z}} trains serve the entire BMT Jamaica Line");
    expect(text).toBe(`The ${UNRENDERED} and ${UNRENDERED} trains serve the entire BMT Jamaica Line`);
    // the reference implementation deletes it: "The and trains serve …"
    expect(cleanCaption("The {{NYCS|J}} and {{NYCS|Z}} trains serve the entire BMT Jamaica Line", undefined, "delete")).toBe("The and trains serve the entire BMT Jamaica Line");
  });

  it("are counted by name, and the caption is dropped as unrendered_template (real sample dump)", async () => {
    const counters = new Counters();
    const astronaut: (string | null)[] = [];
    const deleted: (string | null)[] = [];
    for await (const p of readDumpPages(SAMPLE, { counters: new Counters() })) {
      if (p.title !== "Astronaut") continue;
      astronaut.push(...extractImageRefs(p.text, { counters }).filter((r) => r.image === "File:Astronaut-EVA.jpg").map((r) => r.caption));
      deleted.push(...extractImageRefs(p.text, { unknownTemplates: "delete" }).filter((r) => r.image === "File:Astronaut-EVA.jpg").map((r) => r.caption));
    }
    // {{OV|…}} (a Space Shuttle orbiter's name) is unknown: the old output lost the shuttle's name
    expect(deleted).toEqual(["NASA Astronaut Bruce McCandless II using a Manned Maneuvering Unit outside on shuttle mission STS-41-B in 1984."]);
    expect(astronaut).toEqual([`NASA Astronaut Bruce McCandless II using a Manned Maneuvering Unit outside ${UNRENDERED} on shuttle mission STS-41-B in 1984.`]);
    expect(counters.withPrefix("wikitext.unrendered_template.")).toEqual({ ov: 1 });
    const f = features(astronaut[0]!);
    expect(renderedFilter.keep(f)).toEqual({ drop: "unrendered_template" });
    // the filter runs under the default preset only, after the empty-caption and readable filters
    const ids = (preset: string) => { const c = resolveConfig({ preset }); return captionFilters(c, tierSpecs(c)[0]!).map((x) => x.id).slice(0, 3); };
    expect(ids("improved")).toEqual(["non_empty_v1", "readable_v1", "rendered_v1"]);
    expect(ids("paper")).toEqual(["non_empty_v1", "readable_v1", "min_words_v1"]);
  });
});
