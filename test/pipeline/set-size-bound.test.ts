import { describe, expect, it } from "vitest";
import { setSizeBound } from "../../shared/pipeline/set-size-bound.ts";

describe("equivalence-set size bound (thesis §5.1.2)", () => {
  it("is ⌊μ + z·σ⌋ over the sets with at least two members", () => {
    // sets 2,2,2,2,12: μ = 4, σ = 4 (population); singletons do not count
    const b = setSizeBound([1, 1, 2, 2, 2, 2, 12, 1], 0.05);
    expect(b).toMatchObject({ mean: 4, sd: 4, sets: 5, max: 4 });
    expect(setSizeBound([2, 2, 2, 2, 12], 1).max).toBe(8);
  });
  it("keeps everything when there is nothing to measure", () => {
    expect(setSizeBound([1, 1, 1]).max).toBe(Infinity);
  });
});
