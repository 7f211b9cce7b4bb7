/** The pluggable seams: configured scorers and pivots reach the stages; bad names are config errors. */
import { describe, expect, it } from "vitest";
import { ConfigError, resolveConfig } from "../../shared/core/config.ts";
import { scorePair } from "../../shared/metrics/index.ts";
import { createPivot } from "../../shared/plugins/pivots.ts";
import { createScorers, ScorerCache } from "../../shared/plugins/scorers.ts";
import { SCORER_METRICS } from "../../shared/core/plugin-names.ts";

const A = "Neil Armstrong descends a ladder to become the first human to step onto the surface of the Moon";
const B = "A mounted slowscan TV camera shows Armstrong as he climbs down the ladder to surface";

describe("scorers", () => {
  it("the syntactic scorer reports exactly the paper's metrics, one result per pair in order", async () => {
    const score = await createScorers(resolveConfig({ scoring: { scorers: ["syntactic"] } }));
    expect(await score([[A, B], [B, A]])).toEqual([{ ...scorePair(A, B) }, { ...scorePair(B, A) }]);
    expect(await score([])).toEqual([]);
  });

  it("two scorers reporting the same metric name is an error, not a silent overwrite; the config names each scorer once", async () => {
    expect(() => resolveConfig({ scoring: { scorers: ["syntactic", "syntactic"] } })).toThrow(/scoring\.scorers: names a scorer twice/);
    const config = resolveConfig();
    config.scoring.scorers = ["syntactic", "syntactic"];
    const score = await createScorers(config);
    await expect(score([[A, B]])).rejects.toThrow(/already reported/);
  });

  it("the offline scorers report exactly the metrics the config checks know them by (SCORER_METRICS)", async () => {
    const score = await createScorers(resolveConfig());
    const [m] = await score([[A, B]]);
    expect(Object.keys(m!).sort()).toEqual([...SCORER_METRICS.syntactic, ...SCORER_METRICS.wordVectors].sort());
  });

  it("a scorer is loaded once per cache and config, and a failed load is retried", async () => {
    const cache = new ScorerCache();
    const config = resolveConfig();
    const first = await cache.get("syntactic", { config });
    expect(await cache.get("syntactic", { config })).toBe(first);
    expect(await cache.get("syntactic", { config: resolveConfig({ scoring: { scorers: ["syntactic"] } }) })).not.toBe(first);
  });

  it("config defaults to the syntactic and word-vector scorers and rejects unknown ones", () => {
    expect(resolveConfig().scoring.scorers).toEqual(["syntactic", "wordVectors"]);
    expect(() => resolveConfig({ scoring: { scorers: ["bertscore"] } })).toThrow(ConfigError);
    expect(() => resolveConfig({ scoring: { scorers: [] } })).toThrow(ConfigError);
  });
});

describe("pivots", () => {
  it("resource identity keys a reference by its normalised file", () => {
    const p = createPivot("resource");
    expect(p.key({ image: "File:Apollo 11 first step.jpg", page: "Apollo 11" })).toBe("File:Apollo 11 first step.jpg");
    expect(resolveConfig().pivot).toBe("resource");
    expect(() => resolveConfig({ pivot: "sha1" })).toThrow(ConfigError);
  });

  it("url identity is the web's URL rule; pixel pivots keep the source's key for the pixel pipeline to re-key", () => {
    const url = createPivot("url");
    expect(url.key({ image: "HTTPS://Example.org:443/a/../road.jpg?w=300#top", page: "p" })).toBe("https://example.org/road.jpg");
    expect(url.key({ image: "https://upload.wikimedia.org/wikipedia/commons/thumb/a/ab/Road.jpg/320px-Road.jpg", page: "p" })).toBe("File:Road.jpg");
    expect(url.key({ image: "File:Road.jpg", page: "p" })).toBe("File:Road.jpg");
    for (const mode of ["md5", "ahash", "dhash", "phash", "rahash", "rphash"] as const) {
      expect(createPivot(mode).key({ image: "https://example.org/road.jpg", page: "p" })).toBe("https://example.org/road.jpg");
      expect(resolveConfig({ pivot: mode }).pivot).toBe(mode);
    }
    expect(resolveConfig({ pivot: "phash", pixels: { threshold: 6 } }).pixels).toEqual({ threshold: 6, maxDiameter: null });
    expect(resolveConfig().pixels).toBeUndefined();
    expect(() => resolveConfig({ pixels: { threshold: 40 } })).toThrow(ConfigError);
  });
});
