import { describe, expect, it } from "vitest";
import { ConfigError, resolveConfig } from "../../shared/core/config.ts";

describe("resolveConfig", () => {
  it("has the paper's defaults", () => {
    const c = resolveConfig();
    expect(c.tiers).toEqual(["gold", "silver", "bronze"]);
    expect(c.captions.minWords).toBe(6);
    expect(c.images).toEqual({ skipAudio: true, minRefs: 2, maxRefs: 10, maxRefsHistory: 180, maxRefsHistoryUnit: "uses", setSizeZ: 0.05 });
  });

  it("applies later layers over earlier ones, deeply", () => {
    const c = resolveConfig({ captions: { minWords: 10, classifier: "paper" } }, { captions: { minWords: 8 } }, { tiers: ["gold"] });
    expect(c.captions.minWords).toBe(8);
    expect(c.captions.classifier).toBe("paper");
    expect(c.tiers).toEqual(["gold"]);
  });

  it("names the offending field", () => {
    expect(() => resolveConfig({ partitions: 0 })).toThrow(ConfigError);
    expect(() => resolveConfig({ captions: { classifier: "magic" } })).toThrow(/captions\.classifier/);
  });
  it("refuses unknown keys, naming the closest known one (a typo would otherwise run with the default)", () => {
    expect(() => resolveConfig({ captions: { minWord: 10 } })).toThrow(/captions\.minWord: unknown key \(did you mean "captions\.minWords"\?\)/);
    expect(() => resolveConfig({ partition: 4 })).toThrow(/partition: unknown key \(did you mean "partitions"\?\)/);
    expect(() => resolveConfig({ zzzzzz: 4 })).toThrow(/zzzzzz: unknown key \(known: .*tiers, partitions/);
    expect(resolveConfig({ captions: { minWords: 10 } }).captions.minWords).toBe(10);
  });
});
