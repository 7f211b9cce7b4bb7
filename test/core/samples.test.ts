import { describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { applyFilter, defineFilter, type Filter } from "../../shared/core/filter.ts";
import { Samples } from "../../shared/core/samples.ts";

// real captions (MSRP / Wikipedia sample) as the dropped texts
const TEXTS = [
  "He cannot, however, swim across the river.",
  "Emma Goldman 1869-1940",
  "Benjamin Tucker",
  "The Apollo 11 crew: Neil Armstrong, Michael Collins and Buzz Aldrin",
  "Aldrin poses for a photograph beside the U.S. flag",
  "A map of the Moon",
  "Shaxmednuradc1",
  "Thallium pieces in ampoule",
];

describe("dropped-record samples", () => {
  it("keep the same k examples whatever the order and the split into parts (bottom-k merge)", () => {
    const whole = new Samples(3);
    for (const t of TEXTS) whole.add("r", t);
    const left = new Samples(3);
    const right = new Samples(3);
    for (const [i, t] of [...TEXTS].reverse().entries()) (i % 2 ? left : right).add("r", t);
    const merged = new Samples(3).merge(right).merge(left.toJSON());
    expect(merged.toJSON()).toEqual(whole.toJSON());
    expect(whole.get("r")).toHaveLength(3);
    for (const t of whole.get("r")) expect(TEXTS).toContain(t);
    // a text seen twice is one example
    const dup = new Samples(3);
    dup.add("r", TEXTS[0]!);
    dup.add("r", TEXTS[0]!);
    expect(dup.get("r")).toEqual([TEXTS[0]]);
  });

  it("the filter wrapper samples what a filter drops, by filter and reason, and counters carry them through merges", () => {
    const shortCaption: Filter<{ text: string }> = defineFilter({ name: "min_words", version: 1, paperStep: 4, unit: "caption", description: "", keep: (f) => (f.text.split(" ").length >= 4 ? true : { drop: "too_few_words" }) });
    const a = new Counters();
    const b = new Counters();
    for (const [i, text] of TEXTS.entries()) applyFilter(shortCaption, { text }, i % 2 ? a : b, "gold");
    const all = new Counters().merge(a).merge(b);
    const dropped = all.samples.get("filter.gold.min_words_v1.dropped.too_few_words");
    expect(dropped.sort()).toEqual(["A map of the Moon", "Benjamin Tucker", "Emma Goldman 1869-1940", "Shaxmednuradc1", "Thallium pieces in ampoule"].filter((t) => t.split(" ").length < 4).sort());
    expect(all.get("filter.gold.min_words_v1.dropped")).toBe(dropped.length);
  });
});
