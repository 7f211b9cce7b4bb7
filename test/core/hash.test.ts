import { describe, expect, it } from "vitest";
import { fnv1a32, partitionOf, stableId } from "../../shared/core/hash.ts";

describe("hash", () => {
  it("FNV-1a matches the published test vectors", () => {
    // FNV-1a 32-bit reference values (Fowler/Noll/Vo test suite)
    expect(fnv1a32("")).toBe(0x811c9dc5);
    expect(fnv1a32("a")).toBe(0xe40c292c);
    expect(fnv1a32("foobar")).toBe(0xbf9cf968);
  });

  it("partitions deterministically within range", () => {
    const p = partitionOf("File:Kropotkin.jpg", 16);
    expect(p).toBe(partitionOf("File:Kropotkin.jpg", 16));
    expect(p).toBeGreaterThanOrEqual(0);
    expect(p).toBeLessThan(16);
  });

  it("stable ids depend on part boundaries", () => {
    expect(stableId("ab", "c")).not.toBe(stableId("a", "bc"));
    expect(stableId("x")).toMatch(/^[0-9a-f]{16}$/);
  });
});
