import { describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { applyFilter, type Filter } from "../../shared/core/filter.ts";

const longEnough: Filter<string> = {
  id: "min_len_v1",
  description: "at least 10 characters",
  keep: (s) => (s.length >= 10 ? true : { drop: "too_short" }),
};

describe("applyFilter", () => {
  it("counts in, kept, dropped and the reason, weighted", () => {
    const c = new Counters();
    expect(applyFilter(longEnough, "A map of Angola.", c, "filter.gold")).toBe(true);
    expect(applyFilter(longEnough, "Angola", c, "filter.gold", 3)).toBe(false);
    expect(c.toJSON()).toEqual({
      "filter.gold.min_len_v1.in": 4,
      "filter.gold.min_len_v1.kept": 1,
      "filter.gold.min_len_v1.dropped": 3,
      "filter.gold.min_len_v1.dropped.too_short": 3,
    });
  });
});
