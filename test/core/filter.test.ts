import { describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { applyFilter, countFilterVerdict, defineFilter, defineFilterInfo, type Filter } from "../../shared/core/filter.ts";

const longEnough: Filter<string> = defineFilter({
  name: "min_len",
  version: 1,
  paperStep: null,
  unit: "caption",
  description: "at least 10 characters",
  keep: (s) => (s.length >= 10 ? true : { drop: "too_short" }),
});

describe("defineFilter", () => {
  it("carries its metadata and builds the versioned id from name and version", () => {
    expect(longEnough).toMatchObject({ id: "min_len_v1", name: "min_len", version: 1, paperStep: null, unit: "caption", description: "at least 10 characters" });
    expect(defineFilterInfo({ name: "unique", version: 2, paperStep: 7, unit: "pair", description: "d" }).id).toBe("unique_v2");
  });

  it("rejects ids that could not be counter names", () => {
    const spec = { paperStep: 1, unit: "image" as const, description: "", keep: () => true as const };
    expect(() => defineFilter({ ...spec, name: "min.refs", version: 1 })).toThrow(/invalid filter name/);
    expect(() => defineFilter({ ...spec, name: "min_refs", version: 0 })).toThrow(/invalid filter name/);
  });
});

describe("applyFilter", () => {
  it("counts in, kept, dropped and the reason, weighted, under the tier", () => {
    const c = new Counters();
    expect(applyFilter(longEnough, "A map of Angola.", c, "gold")).toBe(true);
    expect(applyFilter(longEnough, "Angola", c, "gold", 3)).toBe(false);
    expect(c.toJSON()).toEqual({
      "filter.gold.min_len_v1.in": 4,
      "filter.gold.min_len_v1.kept": 1,
      "filter.gold.min_len_v1.dropped": 3,
      "filter.gold.min_len_v1.dropped.too_short": 3,
    });
  });

  it("an async filter's verdict is counted and sampled when it settles, the same as the verdict given at once; a sync one returns a plain boolean", async () => {
    const spec = { name: "min_len", version: 1, paperStep: null, unit: "caption", description: "at least 10 characters" } as const;
    const rule = (c: { text: string }) => (c.text.length >= 10 ? true : { drop: "too_short" }) as true | { drop: string };
    const atOnce = defineFilter({ ...spec, keep: rule });
    const later: Filter<{ text: string }> = defineFilter({ ...spec, keep: async (c: { text: string }) => rule(c) });
    const now = new Counters();
    const awaited = new Counters();
    for (const [text, weight] of [["A map of Angola.", 1], ["Angola", 3]] as const) {
      expect(typeof applyFilter(atOnce, { text }, now, "gold", weight)).toBe("boolean");
      const pending = applyFilter(later, { text }, awaited, "gold", weight);
      expect(pending).toBeInstanceOf(Promise);
      expect(await pending).toBe(text.length >= 10);
    }
    expect(awaited.toJSON()).toEqual(now.toJSON());
    expect(awaited.get("filter.gold.min_len_v1.dropped.too_short")).toBe(3);
    expect(awaited.samples.get("filter.gold.min_len_v1.dropped.too_short")).toEqual(["Angola"]);
  });

  it("a rejected verdict rejects and counts nothing (the task fails instead of losing the record silently)", async () => {
    const broken: Filter<string> = defineFilter({ ...longEnough, name: "model", keep: async () => Promise.reject(new Error("model not loaded")) });
    const c = new Counters();
    await expect(applyFilter(broken, "A map of Angola.", c, "gold")).rejects.toThrow(/model not loaded/);
    expect(c.toJSON()).toEqual({});
  });

  it("a stateful step counts its verdicts the same way", () => {
    const c = new Counters();
    const unique = defineFilterInfo({ name: "unique", version: 1, paperStep: 7, unit: "pair", description: "" });
    countFilterVerdict(unique, c, "silver", true);
    countFilterVerdict(unique, c, "silver", "duplicate");
    expect(c.toJSON()).toEqual({
      "filter.silver.unique_v1.in": 2,
      "filter.silver.unique_v1.kept": 1,
      "filter.silver.unique_v1.dropped": 1,
      "filter.silver.unique_v1.dropped.duplicate": 1,
    });
  });
});
