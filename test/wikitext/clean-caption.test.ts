import { describe, expect, it } from "vitest";
import { cleanCaption } from "../../shared/wikitext/clean-caption.ts";

describe("cleanCaption: links", () => {
  it("renders internal links, piped links and the pipe trick", () => {
    expect(cleanCaption("The [[Taste of the Danforth]] weekend")).toBe("The Taste of the Danforth weekend");
    expect(cleanCaption("[[Toronto City Hall|City Hall]]")).toBe("City Hall");
    expect(cleanCaption("[[Mercury (planet)|]] and [[Paris, Texas|]]")).toBe("Mercury and Paris");
    expect(cleanCaption("[[Baz]]s")).toBe("Bazs");
  });
  it("a chemical formula is text (<chem>, <ce>); <math> is not", () => {
    expect(cleanCaption("Crystals of <chem>CuSO4.5H2O</chem> in water, and <ce>CO2 + H2O</ce>")).toBe("Crystals of CuSO4.5H2O in water, and CO2 + H2O");
    expect(cleanCaption("The area <math>\\pi r^2</math> of a disc")).toBe("The area of a disc");
  });

  it("case and number magic words render as MediaWiki renders them", () => {
    expect(cleanCaption("The {{uc:nasa}} logo, {{lc:LOUD}} and {{ucfirst:apollo}} {{lcfirst:Eagle}}, {{formatnum:1234567}} people")).toBe("The NASA logo, loud and Apollo eagle, 1,234,567 people");
  });

  it("an interlanguage link needs a language's code: [[Up: A film|Up]] and [[WP:NPOV|neutral]] are ordinary links", () => {
    expect(cleanCaption("A still from [[Up: A film|Up]] and a [[WP:NPOV|neutral]] view")).toBe("A still from Up and a neutral view");
    expect(cleanCaption("Paris at night[[fr:Paris]][[nds:Paris]][[zh-yue:巴黎]]")).toBe("Paris at night");
  });

  it("drops category and interlanguage links and nested images, keeps colon links", () => {
    expect(cleanCaption("A[[Category:Foo]] b [[fr:Bar]] c [[File:Icon.png|20px]]")).toBe("A b c");
    expect(cleanCaption("see [[:Category:Ships|ships]]")).toBe("see ships");
  });
  it("renders external links by label and drops bare ones", () => {
    expect(cleanCaption("Text [https://x.org/a_b Label here]")).toBe("Text Label here");
    expect(cleanCaption("Source [http://example.com] end")).toBe("Source end");
  });
});

describe("cleanCaption: markup and tags", () => {
  it("removes bold/italic quotes", () => {
    expect(cleanCaption("''Maebyeong'' vase with '''''sanggam'''''")).toBe("Maebyeong vase with sanggam");
    expect(cleanCaption("'''Foo''''s hat")).toBe("Foo's hat");
  });
  it("removes refs non-greedily across lines, self-closing refs and comments", () => {
    expect(cleanCaption("Before<ref>one\n[[x]]</ref> middle<ref name=a/> and<ref>two</ref> after<!-- hidden [[y]] -->")).toBe("Before middle and after");
  });
  it("keeps the text of other tags, <br> becomes a space, math/score/gallery content goes", () => {
    expect(cleanCaption("H<sub>2</sub>O<br/>line <span style=\"x\">two</span>")).toBe("H2O line two");
    expect(cleanCaption("Area <math>\\pi r^2</math> and <score>{c d}</score>notes <gallery>\nA.jpg|x\n</gallery>end")).toBe("Area and notes end");
  });
  it("decodes entities and turns &nbsp; into a space", () => {
    expect(cleanCaption("Tom&nbsp;&amp;&nbsp;Jerry &#124; &eacute;t&eacute;")).toBe("Tom & Jerry | été");
  });
  it("keeps <nowiki> content literally", () => {
    expect(cleanCaption("a <nowiki>[[not a link]]</nowiki> b")).toBe("a [[not a link]] b");
    // markup stays literal, an entity is still an entity (MediaWiki shows "&" and "<b>")
    expect(cleanCaption("Fish <nowiki>&amp;</nowiki> chips, <nowiki>''not italic'' &lt;b&gt;</nowiki>")).toBe("Fish & chips, ''not italic'' <b>");
  });
  it("normalises multi-line captions to one line and returns null for nothing left", () => {
    expect(cleanCaption("Allen Morris accepting Emmy Award 2003 \n(Photo by Marc)")).toBe("Allen Morris accepting Emmy Award 2003 (Photo by Marc)");
    expect(cleanCaption("  {{sfn|Smith|2001}}<ref>x</ref> ")).toBeNull();
    expect(cleanCaption("")).toBeNull();
  });
});

describe("cleanCaption: templates", () => {
  const cases: [string, string | null][] = [
    ["{{nowrap|New York}} City", "New York City"],
    ["{{nobr|a b}}", "a b"],
    ["{{lang|fr|Le Monde|italic=no}}", "Le Monde"],
    ["{{lang-de|Berliner Mauer}}", "Berliner Mauer"],
    ["{{convert|5|km|mi}} long", "5 kilometres (3.1 mi) long"],
    ["{{cvt|5|to|10|km}}", "5 to 10 km (3.1 to 6.2 mi)"],
    ["{{circa|1900}}", "c. 1900"],
    // real captions (../shared/data/wikipedia: enwik8, wikipedia2vec sample, enwiki articles1)
    ["Acetic acid, {{chem|CH|3|COOH}}, in water", "Acetic acid, CH3COOH, in water"],
    ["{{chem|C|''n''|H|2''n''+2}} alkanes", "CnH2n+2 alkanes"],
    ["{{legend-line|black solid 2px|Borders in 1914}}{{legend-line|red solid 2px|Borders in 1920}}", "Borders in 1914 Borders in 1920"],
    ["Paris{{snds}}the capital", "Paris – the capital"],
    ["{{c.|1850}}", "c. 1850"],
    ["probably {{USS|Sangamon|1862}}, photographed", "probably USS Sangamon (1862), photographed"],
    ["{{HMS|Raglan}}", "HMS Raglan"],
    ["{{ship|CSS|Tennessee|1863|6}}", "CSS Tennessee"],
    ["{{ship|HMS|Dreadnought|1906}}", "HMS Dreadnought (1906)"],
    ["{{USS|Monitor||1}}", "Monitor"],
    ["{{sclass|Casco|monitor}} at anchor", "Casco-class monitor at anchor"],
    ["{{small|(left)}} A", "(left) A"],
    ["{{nihongo|Tokyo Tower|東京タワー|Tōkyō tawā}}", "Tokyo Tower"],
    ["{{transl|ar|al-Qahira}}", "al-Qahira"],
    ["{{ill|Hans Müller|de}}", "Hans Müller"],
    ["a{{!}}b {{=}} c{{'}}s {{'s}}", "a|b = c's 's"],
    ["1914{{snd}}1918 and 1939{{ndash}}45 {{mdash}} war", "1914 – 1918 and 1939–45 — war"],
    ["a{{spaces|2}}b{{nbsp}}c", "a b c"],
    ["{{abbr|UK|United Kingdom}}", "UK"],
    ["{{frac|1|2}} mile", "1/2 mile"],
    ["Claim{{sfn|Smith|2001|p=4}}{{efn|note}}{{refn|x}}{{citation needed|date=May 2020}}{{cn}}{{dubious}}{{cite web|url=x|title=y}} done", "Claim done"],
    // unknown templates are marked (U+FFFC): the caption would miss words; the pipeline drops it
    ["Start {{nowrap|{{unknown}}}} tail", "Start \ufffc tail"],
    ["{{a}} {{nycs|J}} rest of caption", "\ufffc \ufffc rest of caption"],
    // templates that show no words go without a mark
    ["Map{{efn|drawn 1970}} of {{cn}}Angola{{clear}}", "Map of Angola"],
    ["{{legend|#fff|White area}} shows}}", "White area shows"],
    ["A {{lang|en|{{nowrap|x}} y}} B", "A x y B"],
  ];
  it.each(cases)("%s", (input, expected) => expect(cleanCaption(input)).toBe(expected));
  it("deletes unknown templates under unknownTemplates: delete (reference implementation)", () => {
    expect(cleanCaption("{{a}} {{nycs|J}} rest of caption", undefined, "delete")).toBe("rest of caption");
    expect(cleanCaption("Start {{nowrap|{{unknown}}}} tail", undefined, "delete")).toBe("Start tail");
  });
  it("drops an unclosed template but keeps the text of an unclosed link", () => {
    expect(cleanCaption("caption {{broken|x")).toBe("caption");
    expect(cleanCaption("see [[Foo bar")).toBe("see Foo bar");
  });
});

describe("cleanCaption: hostile input", () => {
  // no wall-clock budgets (no test depends on speed): at these sizes, work growing with the square of
  // the input would not finish within the file's timeout, and recursion would overflow the stack
  it("handles a million-character caption", () => {
    const long = "word [[link|label]] {{nowrap|x}} ''it'' ".repeat(26_000);
    const out = cleanCaption(long)!;
    expect(out.startsWith("word label x it word label x it")).toBe(true);
    expect(out.endsWith("word label x it")).toBe(true);
  });
  it("handles 100k-deep template and link nesting without recursion", () => {
    const depth = 100_000;
    expect(cleanCaption("x " + "{{a|".repeat(depth) + "y" + "}}".repeat(depth) + " z")).toBe("x \ufffc z");
    expect(cleanCaption("x " + "{{a|".repeat(depth) + "y" + "}}".repeat(depth) + " z", undefined, "delete")).toBe("x z");
    expect(cleanCaption("x " + "{{nowrap|".repeat(depth) + "y" + "}}".repeat(depth) + " z")).toBe("x y z");
    expect(cleanCaption("[[a|".repeat(depth) + "deep" + "]]".repeat(depth))).toBe("deep");
    expect(cleanCaption("{{".repeat(depth) + "text" + "]]".repeat(depth))).toBeNull();
  });
});
