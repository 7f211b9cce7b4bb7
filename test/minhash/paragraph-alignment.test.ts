import { describe, expect, it } from "vitest";
import { encodeCorpus } from "../../shared/minhash/corpus.ts";
import { jaccard } from "../../shared/minhash/jaccard.ts";
import { alignParagraphs } from "../../shared/minhash/paragraph-alignment.ts";
import { MERCIER, verneParagraphs, WALTER } from "./verne.ts";

describe("alignParagraphs (the automatic answer key)", () => {
  const a = verneParagraphs(MERCIER).slice(0, 120), b = verneParagraphs(WALTER).slice(0, 260);
  const c = encodeCorpus(a, b);
  const key = alignParagraphs(c, 0.1);

  it("is one-to-one and order-preserving, and aligns only pairs above the floor", () => {
    expect(key.length).toBeGreaterThan(60);
    for (let k = 1; k < key.length; k++) {
      expect(key[k]![0]).toBeGreaterThan(key[k - 1]![0]);
      expect(key[k]![1]).toBeGreaterThan(key[k - 1]![1]);
    }
    for (const [i, j] of key) expect(jaccard(c.a[i]!, c.b![j]!)).toBeGreaterThan(0.1);
  });

  it("aligns the opening paragraphs of the two translations", () => {
    const i = a.findIndex((p) => p.startsWith("The year 1866 was signalised"));
    const j = b.findIndex((p) => p.startsWith("THE YEAR 1866 was marked"));
    expect(key).toContainEqual([i, j]);
    // and the next one: "For some time past vessels had been met by "an enormous thing," …" / Walter's "… "an enormous thing," …"
    const next = key.find(([x]) => x === i + 1);
    expect(b[next![1]]).toMatch(/enormous thing/);
  });

  it("needs two sides", () => {
    expect(() => alignParagraphs(encodeCorpus(a))).toThrow(/two sides/);
  });
});
