import { describe, expect, it } from "vitest";
import { ConfigError, resolveConfig } from "../../shared/core/config.ts";
import { createCaptionLsh } from "../../shared/minhash/caption-lsh.ts";
import { jaccardOfWords } from "../../shared/minhash/jaccard.ts";
import { wordSet } from "../../shared/minhash/words.ts";
import { createPivot } from "../../shared/plugins/pivots.ts";
import { isTextPivot } from "../../shared/plugins/pivot-contract.ts";

// real Conceptual Captions (../shared/data/conceptual-captions), from two different images each
const CRICKET = ["cricket player plays a shot during the cricket match .", "cricket player plays a shot during their match against cricket team ."];
const PREMIERE = ["actor attends a premiere during day of festival", "actor attends the premiere of film ."];

/** The first key two captions share (where a run's group stage would meet them), or null. */
function meeting(lsh: ReturnType<typeof createCaptionLsh>, a: string, b: string): string | null {
  const kb = new Set(lsh.keys(b));
  return lsh.keys(a).find((k) => kb.has(k)) ?? null;
}

describe("min-hash caption pivot (banded permutaries)", () => {
  it("gives one key per band, none for a caption without words, and the same keys for the same word set", () => {
    const lsh = createCaptionLsh({ perms: 64, bands: 16 });
    expect(lsh.keys(CRICKET[0]!)).toHaveLength(16);
    expect(new Set(lsh.keys(CRICKET[0]!)).size).toBe(16);
    expect(lsh.keys("The, a ... the")).toEqual([]);
    // determiners, punctuation, case and order do not change the word set
    expect(lsh.keys("Cricket player plays the shot during a cricket match")).toEqual(lsh.keys(CRICKET[0]!));
  });

  it("keeps a pair under the first band that agrees only: met under several keys, counted once", () => {
    const lsh = createCaptionLsh({ perms: 64, bands: 16 });
    const a = "Person performs on stage at festival", b = "person performs on the stage at the festival";
    const keys = lsh.keys(a);
    expect(lsh.keys(b)).toEqual(keys);
    expect(lsh.pair(a, b, keys[0]!)).toEqual({ estimate: 1, jaccard: 1 });
    for (const k of keys.slice(1)) expect(lsh.pair(a, b, k)).toEqual({ drop: "met_under_earlier_key" });
  });

  it("verify exact (default) keeps J ≥ t and only that; the paper's estimate decides on the estimate (hand-computed J)", () => {
    // {cricket, player, plays, shot, during, match} ⊂ {… their, against, team}: J = 6/9
    expect(jaccardOfWords(wordSet(CRICKET[0]!), wordSet(CRICKET[1]!))).toBeCloseTo(2 / 3, 12);
    // {actor, attends, premiere, during, day, of, festival} ∩ {actor, attends, premiere, of, film} = 4 of 8
    expect(jaccardOfWords(wordSet(PREMIERE[0]!), wordSet(PREMIERE[1]!))).toBe(0.5);
    const exact = createCaptionLsh({ threshold: 0.5 });
    const paper = createCaptionLsh({ threshold: 0.5, verify: "estimate" });
    const cricket = exact.pair(CRICKET[0]!, CRICKET[1]!, meeting(exact, CRICKET[0]!, CRICKET[1]!)!);
    expect(cricket).toMatchObject({ jaccard: 2 / 3 });
    const key = meeting(exact, PREMIERE[0]!, PREMIERE[1]!)!;
    const kept = exact.pair(PREMIERE[0]!, PREMIERE[1]!, key);
    if ("drop" in kept) throw new Error(`dropped: ${kept.drop}`);
    // the estimate (29/64) is under t, the exact Jaccard is t: exact verification keeps it, the paper's rule does not
    expect(kept.jaccard).toBe(0.5);
    expect(kept.estimate).toBeLessThan(0.5);
    expect(paper.pair(PREMIERE[0]!, PREMIERE[1]!, key)).toEqual({ drop: "below_threshold" });
    // a pair under t is dropped by exact verification, whatever its estimate
    const far = createCaptionLsh({ threshold: 0.7, slack: 0.5 });
    expect(far.pair(CRICKET[0]!, CRICKET[1]!, meeting(far, CRICKET[0]!, CRICKET[1]!)!)).toEqual({ drop: "below_threshold" });
  });

  it("the estimate converges to the exact Jaccard as m grows (fixed seed)", () => {
    const err = (m: number) => {
      const lsh = createCaptionLsh({ perms: m, bands: Math.min(m, 256), threshold: 0.01, slack: 0, verify: "estimate" });
      const v = lsh.pair(CRICKET[0]!, CRICKET[1]!, meeting(lsh, CRICKET[0]!, CRICKET[1]!)!);
      if ("drop" in v) throw new Error(v.drop);
      return Math.abs(v.estimate - 2 / 3);
    };
    expect(err(1024)).toBeLessThan(0.04);
    expect(err(1024)).toBeLessThan(err(16) + 0.04);
  });

  it("is configured by pivots.minhash in the one schema, bounded, with the paper's estimate under preset paper", () => {
    expect(resolveConfig().pivots.minhash).toMatchObject({ perms: 64, bands: 16, threshold: 0.5, verify: "exact" });
    expect(resolveConfig({ preset: "paper" }).pivots.minhash.verify).toBe("estimate");
    expect(() => resolveConfig({ pivots: { minhash: { bands: 7 } } })).toThrow(/bands must divide/);
    expect(() => resolveConfig({ pivots: { minhash: { perms: 4096, bands: 16 } } })).toThrow(ConfigError);
    expect(() => resolveConfig({ pivots: { bucketCap: 500 } })).toThrow(ConfigError);
    const p = createPivot("minhash", resolveConfig({ pivots: { bucketCap: 50, minhash: { perms: 32, bands: 8 } } }).pivots);
    expect(isTextPivot(p) && p.bucketCap).toBe(50);
    expect(isTextPivot(p) && p.keys(CRICKET[0]!).length).toBe(8);
  });
});

describe("canonical-form pivot (Déjà)", () => {
  it("keys the paper's two captions by their one canonical form and a trivial caption by none", () => {
    const p = createPivot("canonical");
    if (!isTextPivot(p)) throw new Error("a text pivot");
    expect(p.keys("The bird flies in blue sky")).toEqual(["canonical:bird fly IN blue sky"]);
    expect(p.keys("A bird flying into the blue sky")).toEqual(["canonical:bird fly IN blue sky"]);
    expect(p.keys("Paris")).toEqual([]);
    expect(p.pair("a", "b", "canonical:x")).toEqual({});
  });
});
