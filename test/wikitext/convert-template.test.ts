import { describe, expect, it } from "vitest";
import { cleanCaption } from "../../shared/wikitext/clean-caption.ts";

// Expected texts are Template:Convert/doc's own examples (English Wikipedia), where it gives one.
describe("{{convert}} as a reader sees it", () => {
  it.each([
    ["{{convert|2|km|mi}}", "2 kilometres (1.2 mi)"],
    ["{{convert|7|mi|km}}", "7 miles (11 km)"],
    ["{{convert|7.1|mi|km}}", "7.1 miles (11.4 km)"],
    ["{{convert|7.0|mi|km}}", "7.0 miles (11.3 km)"],
    ["{{convert|1|lb|kg}}", "1 pound (0.45 kg)"],
    ["{{convert|1|lb|kg|abbr=on}}", "1 lb (0.45 kg)"],
    ["{{convert|1|lb|kg|abbr=off}}", "1 pound (0.45 kilograms)"],
    ["{{convert|1|lb|kg|abbr=in}}", "1 lb (0.45 kilograms)"],
    ["A {{convert|10|mi|km|adj=on}} distance", "A 10-mile (16 km) distance"],
    ["{{convert|10|mi|km}} to go", "10 miles (16 km) to go"],
  ])("names and symbols: %s", (wikitext, shown) => expect(cleanCaption(wikitext)).toBe(shown));

  it.each([
    ["{{convert|123|ft|m|-1}}", "123 feet (40 m)"],
    ["{{convert|123|ft|m}}", "123 feet (37 m)"],
    ["{{convert|123|ft|m|1}}", "123 feet (37.5 m)"],
    ["{{convert|550|ft|m|0}}", "550 feet (168 m)"],
    ["{{convert|550|ft|m}}", "550 feet (170 m)"],
    ["{{convert|500|ft|m}}", "500 feet (150 m)"],
    ["{{convert|1200|ft|m}}", "1,200 feet (370 m)"],
    ["{{convert|1200|ft|m|sigfig=4}}", "1,200 feet (365.8 m)"],
    ["{{convert|1200|ft|m|sigfig=3}}", "1,200 feet (366 m)"],
    ["{{convert|2|km|mi|2|abbr=on}}", "2 km (1.24 mi)"],
    ["{{convert|7|mi|km|2|abbr=on}}", "7 mi (11.27 km)"],
  ])("default and given rounding: %s", (wikitext, shown) => expect(cleanCaption(wikitext)).toBe(shown));

  it.each([
    ["{{convert|2|to|5|km|mi}}", "2 to 5 kilometres (1.2 to 3.1 mi)"],
    ["{{convert|2|-|5|km|mi}}", "2–5 kilometres (1.2–3.1 mi)"],
    ["{{convert|2|-|5|km|mi|2|abbr=on}}", "2–5 km (1.24–3.11 mi)"],
    ["{{convert|2|and|5|km|mi|sigfig=3|abbr=off}}", "2 and 5 kilometres (1.24 and 3.11 miles)"],
  ])("ranges: %s", (wikitext, shown) => expect(cleanCaption(wikitext)).toBe(shown));

  it("reads real captions' calls: the unit's default output, flipped order, cvt, temperatures, areas, feet and inches", () => {
    // enwiki-latest-pages-articles1 (../shared/data/wikipedia): the Susitna River bridge caption
    expect(cleanCaption("The [[Susitna River]] bridge on the [[Denali Highway]] is {{convert|1036|ft}} long."))
      .toBe("The Susitna River bridge on the Denali Highway is 1,036 feet (316 m) long.");
    expect(cleanCaption("situated at the coast {{convert|40|km|mi|abbr=off}} south of Luanda")).toBe("situated at the coast 40 kilometres (25 miles) south of Luanda");
    expect(cleanCaption("{{convert|35|km|mi|0|order=flip}}")).toBe("22 miles (35 km)");
    expect(cleanCaption("{{convert|1680|mi|0|abbr=off|order=flip}}")).toBe("2,704 kilometres (1,680 miles)");
    expect(cleanCaption("{{cvt|114|lb|kg}}")).toBe("114 lb (52 kg)");
    expect(cleanCaption("{{convert|-11|C|lk=on}}")).toBe("−11 °C (12 °F)");
    expect(cleanCaption("{{convert|242500|km2|sqmi}}")).toBe("242,500 square kilometres (93,600 sq mi)");
    expect(cleanCaption("{{convert|3,000|ft|m|abbr=off}}")).toBe("3,000 feet (910 metres)");
    expect(cleanCaption("{{convert|1.8|m|ftin}}")).toBe("1.8 metres (5 ft 11 in)");
    expect(cleanCaption("{{convert|1|m|ft|sp=us}}")).toBe("1 meter (3.3 ft)");
    // ../shared/data/wikitext (wtf_wikipedia's cached articles)
    expect(cleanCaption("{{convert|553.33|m|ftin}}")).toBe("553.33 metres (1,815 ft 5 in)");
    expect(cleanCaption("a {{convert|2.5|km2|acre|adj=on}} park")).toBe("a 2.5-square-kilometre (620 acres) park");
    expect(cleanCaption("{{convert|23|to|31|C|F|0|abbr=on}}")).toBe("23 to 31 °C (73 to 88 °F)");
  });

  it("shows a form it cannot convert as written, never a wrong number", () => {
    expect(cleanCaption("{{convert|6|ft|2|in|m}}")).toBe("6 ft 2 in");
    expect(cleanCaption("{{convert|5|furlong}}")).toBe("5 furlong");
    expect(cleanCaption("{{convert|4|acre||adj=pre|planted}}")).toBe("4 acre");
    expect(cleanCaption("{{convert|12|km|lb}}")).toBe("12 km");
    expect(cleanCaption("{{convert|about 5|km|mi}}")).toBe("about 5 km");
  });
});
