import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadWordVectors } from "../../shared/semantic/word-vectors.ts";

const dir = mkdtempSync(join(tmpdir(), "paracap-vectors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file in the package's layout: header, word list, then word → [v1…vD, l2norm, rank]. */
function vectorFile(entries: [string, number[]][], dims: number): string {
  const vectors = Object.fromEntries(entries.map(([w, v], rank) => [w, [...v, Math.hypot(...v), rank]]));
  const text = JSON.stringify({ precision: 8, l2NormIndex: dims, wordIndex: dims + 1, size: entries.length, dimensions: dims, words: entries.map(([w]) => w), vectors, unkVector: new Array(dims + 1).fill(0) });
  const file = join(dir, `v${entries.length}-${dims}.json`);
  // the package writes exponents for tiny values; JSON.stringify does too (1e-7)
  writeFileSync(file, text);
  return file;
}

const ENTRIES: [string, number[]][] = [
  ["the", [3, 4, 0]],
  ['"', [0, 0, 2]],
  ["café", [1e-7, -2, 0]],
  ["cat", [1, 0, 0]],
  ["kitten", [0.6, 0.8, 0]],
  ["zero", [0, 0, 0]],
];

describe("loadWordVectors", () => {
  it("reads every entry as a unit vector, escaped and non-ASCII keys included, across tiny read chunks", () => {
    const file = vectorFile(ENTRIES, 3);
    for (const chunkBytes of [7, 64, 1 << 20]) {
      const v = loadWordVectors({ file, chunkBytes });
      expect(v.dims).toBe(3);
      // the zero vector has no direction: left out
      expect(v.size).toBe(5);
      const row = (w: string) => [...v.unit.subarray(v.id(w) * 3, v.id(w) * 3 + 3)];
      expect(row("the")).toEqual([0.6, 0.800000011920929, 0].map(Math.fround));
      expect(row('"')).toEqual([0, 0, 1]);
      expect(row("café")[1]).toBeCloseTo(-1, 6);
      expect(v.id("zero")).toBe(-1);
      expect(v.id("dog")).toBe(-1);
    }
  });

  it("keeps only the most frequent words (maxWords) or a vocabulary", () => {
    const file = vectorFile(ENTRIES, 3);
    const top = loadWordVectors({ file, maxWords: 2 });
    expect(top.size).toBe(2);
    expect(top.id("the")).toBe(0);
    expect(top.id("cat")).toBe(-1);
    const vocab = loadWordVectors({ file, vocabulary: new Set(["kitten", "dog"]) });
    expect(vocab.size).toBe(1);
    expect(vocab.id("kitten")).toBe(0);
  });

  it("stops reading at the cap when the file lists words by rank (as the package does), not otherwise", () => {
    const text = readFileSync(vectorFile(ENTRIES, 3), "utf8");
    // damage everything after the third entry ("café")
    const cut = text.indexOf('"cat":');
    const damaged = join(dir, "damaged.json");
    writeFileSync(damaged, text.slice(0, cut) + "#".repeat(50));
    expect(loadWordVectors({ file: damaged, maxWords: 3 }).size).toBe(3);
    expect(() => loadWordVectors({ file: damaged, maxWords: 4 })).toThrow(/unexpected byte/);
    // ranks out of order: the whole file must be read
    const shuffled = join(dir, "shuffled.json");
    writeFileSync(shuffled, text.replace('"the":[3,4,0,5,0]', '"the":[3,4,0,5,9]').slice(0, cut) + "#".repeat(50));
    expect(() => loadWordVectors({ file: shuffled, maxWords: 3 })).toThrow(/unexpected byte/);
  });

  it("fails with a clear error on a file that is not a vector file or is cut short", () => {
    const notVectors = join(dir, "other.json");
    writeFileSync(notVectors, JSON.stringify({ dimensions: 3, words: [] }));
    expect(() => loadWordVectors({ file: notVectors })).toThrow(/no "vectors" object/);
    const full = JSON.stringify({ dimensions: 3, vectors: { cat: [1, 0, 0, 1, 0] } });
    const cut = join(dir, "cut.json");
    writeFileSync(cut, full.slice(0, full.length - 8));
    expect(() => loadWordVectors({ file: cut, chunkBytes: 8 })).toThrow(/ends inside/);
  });
});
