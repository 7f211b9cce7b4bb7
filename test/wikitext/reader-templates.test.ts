import { describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { extractImageRefs, extractImageRefsFromBytes, type ExtractImagesOptions } from "../../shared/wikitext/extract-images.ts";

/**
 * Caption templates of English Wikipedia rendered as the article's reader sees them (the caption-templates
 * round of 2026-11-27). Each is read by default and not under preset paper (`paperRules`): there the
 * caption is the counted drop (or, under paper's `unknownTemplates: "delete"`, the cut) it was.
 */
const PAPER: ExtractImagesOptions = { paperRules: true, unknownTemplates: "delete", colonFileLinks: "reference" };
/** the caption of the one reference, by the byte path (dumps, histories) and the string path alike */
const caption = (text: string, opts: ExtractImagesOptions = {}) => {
  const refs = extractImageRefs(text, opts);
  expect(extractImageRefsFromBytes(Buffer.from(text, "utf8"), opts)).toEqual(refs);
  expect(refs).toHaveLength(1);
  return refs[0]!.caption;
};
/** the templates a caption leaves unrendered (counted drops by default) */
const unrendered = (text: string, opts: ExtractImagesOptions = {}) => {
  const counters = new Counters();
  extractImageRefs(text, { ...opts, counters });
  return Object.keys(counters.toJSON()).filter((k) => k.startsWith("wikitext.unrendered_template."));
};

describe("templates found in captions of shared/data", () => {
  it("{{ArabDIN}} (enwiki 2016, Allah) shows its transliteration", () => {
    const t = "[[Image:Allah.jpg|thumb|right|200px|An example of ''{{ArabDIN|allāh}}'' written in simple [[Arabic calligraphy]].]]";
    expect(caption(t)).toBe("An example of allāh written in simple Arabic calligraphy.");
    // preset paper cuts the template: its italics' quotes run together, one apostrophe (as before)
    expect(caption(t, PAPER)).toBe("An example of ' written in simple Arabic calligraphy.");
  });

  it("{{3d glasses}} (enwiki 2016, Glass) is an icon: no words", () => {
    const t = "[[Image:Egyptian Glass.jpg|thumb|200px|Egypt was first to create glass objects. {{3d_glasses}}]]";
    expect(unrendered(t)).toEqual([]);
    expect(caption(t)).toBe("Egypt was first to create glass objects.");
    expect(unrendered(t, { paperRules: true })).toEqual(["wikitext.unrendered_template.3d glasses"]);
  });

  it("{{sic}} shows [sic] after the text it marks (wtf_wikipedia al_Haytham); preset paper keeps the text alone", () => {
    const real = "[[File:Houghton Typ 620.47.452 - Selenographia, title.jpg|alt=Frontispiece of book.|thumb|right|[[Hevelius]]'s ''[[Selenographia]]'', showing Alhasen {{sic}} representing reason, and [[Galileo Galilei|Galileo]] representing the senses.]]";
    expect(caption(real)).toBe("Hevelius's Selenographia, showing Alhasen [sic] representing reason, and Galileo representing the senses.");
    expect(caption(real, PAPER)).toBe("Hevelius's Selenographia, showing Alhasen representing reason, and Galileo representing the senses.");
    const t = "[[File:Q.jpg|thumb|a {{sic|teh}} typo, {{sic|hide=y|recieve}} and {{sic|?=y|Pharoah}}]]";
    expect(caption(t)).toBe("a teh [sic] typo, recieve and Pharoah [sic?]");
    expect(caption(t, PAPER)).toBe("a teh typo, recieve and Pharoah");
  });
});

describe("caption templates of current articles that paracap dropped", () => {
  it("{{val}}: the number (commas in its integer part), its uncertainty, exponent and unit", () => {
    const t = "[[File:Hubble.jpg|thumb|The galaxy lies {{val|13.2|u=billion [[light-year]]s}} away; its mass is {{val|1.5|0.2|e=12|ul=solar mass}}, {{val|12345.678}} stars, {{val|-3.2|+0.4|-0.5}} and {{val|45|u=%}}]]";
    expect(caption(t)).toBe("The galaxy lies 13.2 billion light-years away; its mass is 1.5 ± 0.2×1012 solar mass, 12,345.678 stars, −3.2 +0.4 −0.5 and 45%");
    expect(caption(t, PAPER)).toBe("The galaxy lies away; its mass is , stars, and");
  });

  it("{{date}} gives day month year (mdy when asked); a date it cannot read, as written", () => {
    const t = "[[File:Launch.jpg|thumb|Launch on {{date|1969-07-16}}, landing on {{date|20 July 1969|mdy}}, splashdown {{date|July 24, 1969|iso}} and {{date|summer 1969}}]]";
    expect(caption(t)).toBe("Launch on 16 July 1969, landing on July 20, 1969, splashdown 1969-07-24 and summer 1969");
  });

  it("{{death date and age}} gives the date and the age at death; {{birth date and age}} (an age that grows with the reading day) stays a drop", () => {
    expect(caption("[[File:Portrait.jpg|thumb|Died {{death date and age|1993|2|24|1921|5|3}}; {{death date and age|2001|7|1|1950|7|2|df=y}}]]")).toBe(
      "Died February 24, 1993 (aged 71); 1 July 2001 (aged 50)",
    );
    expect(unrendered("[[File:Portrait.jpg|thumb|Born {{birth date and age|1950|5|17}}]]")).toEqual(["wikitext.unrendered_template.birth date and age"]);
  });

  it("{{plainlist}}, {{flatlist}} and {{bulleted list}}: their items, comma-separated as {{ubl}}'s", () => {
    const t = "{{Infobox person|image=Band.jpg|caption={{plainlist|\n* John Lennon\n* [[Paul McCartney]]\n}} with {{flatlist|\n*George\n*Ringo}} and {{bulleted list|Brian|George Martin}}}}";
    expect(caption(t)).toBe("John Lennon, Paul McCartney with George, Ringo and Brian, George Martin");
    // the start-and-end form ({{plainlist}} … {{endplainlist}}): see the round of 2026-11-28 below
  });

  it("{{US$}} and the currency templates: the sign before the amount", () => {
    const t = "[[File:Bill.jpg|thumb|Sold for {{US$|5 million}}, {{GBP|120}}, {{€|3,000}}, {{INR|500}} and {{JPY|1000}}]]";
    expect(caption(t)).toBe("Sold for US$5 million, £120, €3,000, ₹500 and ¥1000");
  });

  it("{{Korean}} and {{zh}}: each form with its label, as the template shows them", () => {
    expect(caption("[[File:Gyeongbokgung.jpg|thumb|Gyeongbokgung ({{Korean|hangul=경복궁|hanja=景福宮}}) in Seoul]]")).toBe(
      "Gyeongbokgung (Korean: 경복궁; Hanja: 景福宮) in Seoul",
    );
    expect(caption("[[File:Gate.jpg|thumb|The Forbidden City ({{zh|s=紫禁城|p=Zǐjìnchéng|l=Purple Forbidden City}})]]")).toBe(
      "The Forbidden City (simplified Chinese: 紫禁城; pinyin: Zǐjìnchéng; lit. 'Purple Forbidden City')",
    );
  });

  it("{{IPAc-en}} shows the pronunciation between slashes, as {{IPA}} does", () => {
    expect(caption("[[File:Bodmin.jpg|thumb|Bodmin ({{IPAc-en|ˈ|b|ɒ|d|m|ɪ|n}}) from the moor, {{IPAc-en|US|ˈ|t|ɒ|m|,|ˈ|t|oʊ|m}}]]")).toBe(
      "Bodmin (/ˈbɒdmɪn/) from the moor, US: /ˈtɒm/, /ˈtoʊm/",
    );
  });

  it("{{cquote}} shows its quotation; {{gaps}} its digit groups apart; the dash names are dashes", () => {
    expect(caption("[[File:Speech.jpg|thumb|{{cquote|Ask not what your country can do for you|John F. Kennedy}}]]")).toBe("Ask not what your country can do for you");
    expect(caption("[[File:Pi.jpg|thumb|π to ten places: 3.{{gaps|14159|26535}}; 1914{{en dash}}1918{{spaced en dash}}the war{{em dash}}and after]]")).toBe(
      "π to ten places: 3.14159 26535; 1914–1918 – the war—and after",
    );
  });
});

describe("the caption-templates round of 2026-11-28", () => {
  it("{{dts}} shows the date as Module:Date table sorting does (real calls of enwiki and wtf_wikipedia list.txt)", () => {
    // enwiki 2016 (List of … table rows) and wtf_wikipedia list.txt: year|month|day, and a month and day without a year
    const t = "[[File:Map.jpg|thumb|Signed {{dts|1781|02|02}}; fair from {{dts||10|17}}]]";
    expect(caption(t)).toBe("Signed February 2, 1781; fair from October 17");
    // one date as text keeps its order; an abbreviated month stays abbreviated; format= and abbr= as the module reads them
    const u = "[[File:Map.jpg|thumb|{{dts|4 July 1776}}, {{dts|1776-07-04}}, {{dts|Jul 4, 1776}}, {{dts|1776|7|4|format=dmy}}, {{dts|1776|July|4|abbr=on}}, {{dts|1776|7|format=my}}, {{dts|490|||BC}}, {{dts|-43}} and {{dts|1776|7|4|format=hide}}]]";
    expect(caption(u)).toBe("4 July 1776, July 4, 1776, Jul 4, 1776, 4 July 1776, Jul 4, 1776, July 1776, 490 BC, 43 BC and");
    // what the module answers with an error message stays a counted drop
    expect(unrendered("[[File:Map.jpg|thumb|Opened {{dts|1776|13|4}} and {{dts|summer 1776}}]]")).toEqual(["wikitext.unrendered_template.dts"]);
    expect(unrendered(t, { paperRules: true })).toEqual(["wikitext.unrendered_template.dts"]);
  });

  it("{{OldStyleDate}} (enwiki, Ayn Rand): the New Style date, [O.S. the Old Style date], the year", () => {
    const t = "[[File:Ayn Rand.jpg|thumb|Ayn Rand, born {{OldStyleDate|February 2|1905|January 20}} in Saint Petersburg]]";
    expect(caption(t)).toBe("Ayn Rand, born February 2 [O.S. January 20] 1905 in Saint Petersburg");
    expect(unrendered(t, { paperRules: true })).toEqual(["wikitext.unrendered_template.oldstyledate"]);
  });

  it("{{death date and age}} with a birth (or death) date of year or year and month: the age range Module:Age gives", () => {
    // enwiki (Ayn Rand's infobox) and the template's documented examples
    const t = "[[File:Portrait.jpg|thumb|Died {{death date and age|mf=yes|1982|03|06|1905|02|02}}; {{death date and age|1993|2|24|1921|4|df=yes}}; {{death date and age|1993|2|24|1921|mf=yes}}]]";
    expect(caption(t)).toBe("Died March 6, 1982 (aged 77); 24 February 1993 (aged 71); February 24, 1993 (aged 71–72)");
    // a death date of a year, or a year and month (the module's partial dates): shown as given
    const u = "[[File:Portrait.jpg|thumb|{{death date and age|1993|||1921}}, {{death date and age|1993|2||1921|2}}, {{death date and age|1993|6||1921|2|10}}]]";
    expect(caption(u)).toBe("1993 (aged 71–72), February 1993 (aged 71–72), June 1993 (aged 72)");
    // a day without its month, a death before the birth, a 31 February: the module's errors, counted drops
    expect(unrendered("[[File:P.jpg|thumb|{{death date and age|1993||24|1921}} {{death date and age|1921|||1993}} {{death date and age|1993|2|31|1921}}]]")).toEqual([
      "wikitext.unrendered_template.death date and age",
    ]);
  });

  it("{{currency}}: the documented amounts (GBP, and US dollars when no code); a currency template's inflation year stays a drop", () => {
    expect(caption("[[File:Coin.jpg|thumb|Sold for {{currency|1000|GBP}} in 1900 and {{Currency|amount=2500000}} in 2000, {{currency|1,250.50|fmt=none}}]]")).toBe(
      "Sold for £1,000 in 1900 and US$2,500,000 in 2000, US$1250.50",
    );
    // other codes (their signs are Module:Currency's data), quantifiers and the long form were not established: drops
    expect(unrendered("[[File:Coin.jpg|thumb|{{currency|1000|SEK}} {{currency|5 million|GBP}} {{currency|1000|GBP|first=yes}}]]")).toEqual([
      "wikitext.unrendered_template.currency",
    ]);
    // {{US$|100|1966}} → "US$100 (equivalent to $… in <the data's latest year>)": the inflation data change, not the wikitext
    expect(unrendered("[[File:Bill.jpg|thumb|Cost {{US$|100|1966}} and {{GBP|10|1990}}]]")).toEqual([
      "wikitext.unrendered_template.gbp",
      "wikitext.unrendered_template.us$",
    ]);
  });

  it("{{plainlist}} … {{endplainlist}} (and {{flatlist}} … {{endflatlist}}): the items between them, comma-separated", () => {
    const t = "{{Infobox settlement|image_skyline=Montage.jpg|image_caption=Clockwise from top: {{plainlist}}\n* [[Old Town]]\n* the harbour\n* the cathedral\n{{endplainlist}} at dusk}}";
    expect(caption(t)).toBe("Clockwise from top: Old Town, the harbour, the cathedral at dusk");
    expect(caption("[[File:Band.jpg|thumb|{{flatlist|class=nowrap}}\n* John\n* Paul\n{{endflatlist}}]]")).toBe("John, Paul");
    // an opening without its end runs to the caption's end; an end alone shows nothing
    expect(caption("[[File:Band.jpg|thumb|Members: {{plainlist}}\n* John\n* Paul]]")).toBe("Members: John, Paul");
    expect(caption("[[File:Band.jpg|thumb|John and Paul{{endplainlist}}]]")).toBe("John and Paul");
    expect(unrendered(t, { paperRules: true })).toEqual(["wikitext.unrendered_template.endplainlist", "wikitext.unrendered_template.plainlist"]);
  });

  it("a navbox in a caption (enwiki, Alphabet) is not a caption: the reference has none, and no template is counted unrendered", () => {
    const real = String.raw`[[File:Writing systems worldwide.png|460px|thumb
 | {{Navbox with columns |child |style=font-size:90%;
    | abovestyle=background:transparent;font-size:110%;padding:0;font-weight:bold;
    | above = Predominant national and selected regional or minority scripts
    | colheaderstyle=padding:0.15em 0.15em 0.25em;font-weight:normal; |colstyle=white-space:nowrap;
    | col1header = Alphabetic
    | col1 = {{legend|#aaa|[[Latin script|Latin]]}} {{legend|#008080|[[Cyrillic script|Cyrillic]]}} {{legend|blue|[[Greek alphabet|Greek]]}} {{legend|#1E90FF|[[Armenian alphabet|Armenian]]}} {{legend|#00FFFF|[[Georgian scripts|Georgian]]}} {{legend|#FF00FF|[[Hangul]]&thinsp;{{sup|a}}}}
    | col2header = {{longitem|[[Logogram|[L]ogographic]]<br/>and [[Syllabary|[S]yllabic]]}}
    | col2 = {{legend|#8B0000|[[Hanzi]] {{smaller|[L]}}}} {{legend|#FF0000|[[Kana]] {{smaller|[S]}}{{\}}[[Kanji]] {{smaller|[L]}}{{nbsp|2}}}} {{legend|#FF00FF|[[Hanja]]{{sup|b}} {{smaller|[L]}}}}
    | col3header = [[Abjad]]
    | col3 = {{legend|green|[[Arabic script|Arabic]]}} {{legend|#00ff7f|[[Hebrew alphabet|Hebrew]]}}
    | col4header = [[Abugida]]
    | col4 = {{legend| #FFA500|[[Brahmic scripts|North Indic]]}} {{legend|#D2691E|[[Brahmic scripts|South Indic]]}} {{legend|#8B4513
|[[Ge'ez script|Ethiopic]]}} {{legend|#808000|[[Thaana]]}} {{legend|#FFFF80|[[Canadian Aboriginal syllabics|Canadian syllabic]]}}
    | below = {{nowrap|{{sup|a}} [[Featural alphabet|Featural-alphabetic]].{{nbsp|3}}{{sup|b}} Limited.}}
   }}
]]
{{alphabet}}`;
    expect(caption(real)).toBeNull();
    expect(unrendered(real)).toEqual([]);
    expect(caption("[[File:Map.png|thumb|World map {{Navbox|title=Scripts|list1=Latin}}]]")).toBeNull();
    expect(unrendered(real, { paperRules: true })).toEqual(["wikitext.unrendered_template.navbox with columns"]);
  });

  it("{{OV|099}} (enwiki, Astronaut) stays a counted drop: whether it shows the orbiter's name alone was not established", () => {
    const real = "[[File:Astronaut-EVA.jpg|thumb|250px|[[NASA]] Astronaut [[Bruce McCandless II]] using a [[Manned Maneuvering Unit]] outside {{OV|099}} on shuttle mission [[STS-41-B]] in 1984.]]";
    expect(unrendered(real)).toEqual(["wikitext.unrendered_template.ov"]);
  });

  it("a ship prefix is read only as MediaWiki names it: {{hs}} is the hidden sort key (no words), {{Ss}} is not {{SS}}", () => {
    expect(caption("[[File:Ship.jpg|thumb|{{SS|Great Britain}} and {{hMS|Victory}} in dock, {{Template:USS|Maine|ACR-1}}]]")).toBe(
      "SS Great Britain and HMS Victory in dock, USS Maine (ACR-1)",
    );
    expect(caption("[[File:Ship.jpg|thumb|Launched {{hs|1843-07-19}}19 July 1843]]")).toBe("Launched 19 July 1843");
    expect(unrendered("[[File:Ship.jpg|thumb|The {{Ss|Great Britain}} at Bristol]]")).toEqual(["wikitext.unrendered_template.ss"]);
  });
});
