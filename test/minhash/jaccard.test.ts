import { describe, expect, it } from "vitest";
import { encodeCorpus } from "../../shared/minhash/corpus.ts";
import { exactPairs, exactPairsIndexed, jaccard, jaccardOfWords } from "../../shared/minhash/jaccard.ts";
import { wordSet } from "../../shared/minhash/words.ts";
import { MERCIER, verneParagraphs, WALTER } from "./verne.ts";

// The paper's Translation 1 / Translation 2 example (section 2).
const T1 = "... the frigate lay abreast of Cabo Blanco, thirty miles to leeward of the coast of Patagonia.";
const T2 = "... the frigate was abreast of Cape Blanc, thirty miles to leeward of the coast of Patagonia.";

describe("exact Jaccard", () => {
  it("matches hand-computed values", () => {
    // T1: frigate lay abreast of cabo blanco thirty miles to leeward coast patagonia (12)
    // T2: frigate was abreast of cape blanc thirty miles to leeward coast patagonia (12); shared 9, union 15
    expect(wordSet(T1)).toHaveLength(12);
    expect(wordSet(T2)).toHaveLength(12);
    expect(jaccardOfWords(wordSet(T1), wordSet(T2))).toBeCloseTo(9 / 15, 12);
    // "What are you saying?" / "You think so?": {what, are, you, saying} ∩ {you, think, so} = {you}; union 6
    expect(jaccardOfWords(wordSet("What are you saying?"), wordSet("You think so?"))).toBeCloseTo(1 / 6, 12);
    const c = encodeCorpus([T1, "What are you saying?"], [T2, "You think so?"]);
    expect(jaccard(c.a[0]!, c.b![0]!)).toBeCloseTo(0.6, 12);
    expect(jaccard(c.a[1]!, c.b![1]!)).toBeCloseTo(1 / 6, 12);
    expect(jaccard(c.a[0]!, c.b![1]!)).toBe(0);
    expect(jaccard(new Int32Array(), new Int32Array())).toBe(0);
  });

  it("the plain O(n²) baseline and the inverted index give the same pairs on the real translations", () => {
    const a = verneParagraphs(MERCIER).slice(0, 300), b = verneParagraphs(WALTER).slice(0, 500);
    const c = encodeCorpus(a, b);
    const plain: string[] = [], indexed: string[] = [];
    exactPairs(c, 0.2, (i, j, s) => plain.push(`${i},${j},${s}`));
    exactPairsIndexed(c, 0.2, (i, j, s) => indexed.push(`${i},${j},${s}`));
    expect(plain.length).toBeGreaterThan(50);
    expect(indexed).toEqual(plain);
    // within one set: only i < j
    const self = encodeCorpus(b);
    const p2: [number, number][] = [];
    exactPairs(self, 0.5, (i, j) => p2.push([i, j]));
    const i2: [number, number][] = [];
    exactPairsIndexed(self, 0.5, (i, j) => i2.push([i, j]));
    expect(p2.length).toBeGreaterThan(0);
    expect(i2).toEqual(p2);
    for (const [i, j] of p2) expect(i).toBeLessThan(j);
  });
});
