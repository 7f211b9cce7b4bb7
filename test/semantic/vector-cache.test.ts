import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { defaultVectorCacheDir, readCachedVectors, writeCachedVectors } from "../../shared/semantic/vector-cache.ts";
import { loadWordVectors, type WordVectors } from "../../shared/semantic/word-vectors.ts";

const dir = mkdtempSync(join(tmpdir(), "paracap-vector-cache-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A small file in the package's layout: word → [v1…vD, l2norm, rank]. */
function vectorFile(name: string, words: string[], dims = 4): string {
  const vectors = Object.fromEntries(words.map((w, rank) => {
    const v = Array.from({ length: dims }, (_, i) => Math.sin(rank * 7 + i + 1));
    return [w, [...v, Math.hypot(...v), rank]];
  }));
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ precision: 8, dimensions: dims, words, vectors }));
  return file;
}

const WORDS = ["the", "cat", "sat", "on", "mat", "café", '"quoted"', "naïve", "über"];
const rows = (v: WordVectors) => Object.fromEntries(v.words().map((w) => [w, [...v.unit.subarray(v.id(w) * v.dims, (v.id(w) + 1) * v.dims)]]));

describe("binary word-vector cache", () => {
  it("gives back exactly the parsed vectors, in shared memory when asked", () => {
    const source = vectorFile("a.json", WORDS);
    const cacheDir = join(dir, "cache-a");
    for (const cap of [null, 5]) {
      const parsed = loadWordVectors({ file: source, maxWords: cap });
      expect(readCachedVectors(cacheDir, source, cap, false)).toBeNull();
      expect(writeCachedVectors(cacheDir, source, cap, parsed)).toBe(true);
      const cached = readCachedVectors(cacheDir, source, cap, true)!;
      expect(cached.unit.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(cached.size).toBe(cap ?? WORDS.length);
      expect(rows(cached)).toEqual(rows(parsed));
      expect(cached.id("über")).toBe(cap === null ? parsed.id("über") : -1);
      expect(readCachedVectors(cacheDir, source, cap, false)!.unit.buffer).toBeInstanceOf(ArrayBuffer);
    }
    // one file per cap; no temporary file left
    expect(readdirSync(cacheDir).sort()).toHaveLength(2);
    expect(readdirSync(cacheDir).some((f) => f.includes(".tmp-"))).toBe(false);
  });

  it("is ignored when the package file changed, or the copy is cut short or damaged", () => {
    const source = vectorFile("b.json", WORDS);
    const cacheDir = join(dir, "cache-b");
    writeCachedVectors(cacheDir, source, null, loadWordVectors({ file: source }));
    const [file] = readdirSync(cacheDir);
    const path = join(cacheDir, file!);
    const good = readFileSync(path);

    writeFileSync(path, good.subarray(0, good.length - 3)); // cut inside the last row
    expect(readCachedVectors(cacheDir, source, null, false)).toBeNull();
    writeFileSync(path, Buffer.concat([Buffer.from("garbage!"), good.subarray(8)])); // not our magic
    expect(readCachedVectors(cacheDir, source, null, false)).toBeNull();
    const badHeader = Buffer.from(good);
    badHeader.write("{", good.indexOf("{") + 1, "latin1"); // the header is no longer JSON
    writeFileSync(path, badHeader);
    expect(readCachedVectors(cacheDir, source, null, false)).toBeNull();

    writeFileSync(path, good);
    expect(readCachedVectors(cacheDir, source, null, false)).not.toBeNull();
    // a reinstalled package (new modification time) is another key: the old copy is not read
    utimesSync(source, new Date(), new Date(Date.now() + 5000));
    expect(readCachedVectors(cacheDir, source, null, false)).toBeNull();
  });

  it("a folder that cannot be written: false, and nothing is read from it", () => {
    const source = vectorFile("c.json", WORDS);
    const parent = join(dir, "unwritable");
    mkdirSync(parent);
    const notADir = join(parent, "file");
    writeFileSync(notADir, "");
    // a cache "folder" below a plain file can never be created, whoever runs the test (root included)
    expect(writeCachedVectors(join(notADir, "cache"), source, null, loadWordVectors({ file: source }))).toBe(false);
    expect(readCachedVectors(join(notADir, "cache"), source, null, false)).toBeNull();
  });

  it("lives in PARACAP_CACHE_DIR, else node_modules/.cache/paracap; on Cloud Run / Functions only where PARACAP_CACHE_DIR says", () => {
    expect(defaultVectorCacheDir({ PARACAP_CACHE_DIR: "/var/cache/pc" })).toBe("/var/cache/pc");
    expect(defaultVectorCacheDir({})).toMatch(/node_modules\/\.cache\/paracap$/);
    expect(defaultVectorCacheDir({ K_SERVICE: "paracap-dedup" })).toBeNull();
    expect(defaultVectorCacheDir({ K_SERVICE: "paracap-dedup", PARACAP_CACHE_DIR: "/mnt/cache" })).toBe("/mnt/cache");
  });
});
