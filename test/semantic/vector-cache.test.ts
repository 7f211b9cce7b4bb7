import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
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
      expect(cached.packed).not.toBeNull();
      expect(cached.words()).toEqual(parsed.words());
      for (const w of ["dog", "cafe", "Café", "", "the "]) expect(cached.id(w)).toBe(-1);
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

  it("an old-format (version 1) copy under the same name is not read, and a new write replaces it", () => {
    const source = vectorFile("d.json", WORDS);
    const cacheDir = join(dir, "cache-d");
    const parsed = loadWordVectors({ file: source });
    writeCachedVectors(cacheDir, source, null, parsed);
    const [file] = readdirSync(cacheDir);
    const path = join(cacheDir, file!);
    // version 1: magic, header length, a JSON header with the word list, then the rows (4-byte aligned)
    const st = statSync(source);
    const header = Buffer.from(JSON.stringify({ source, sourceBytes: st.size, sourceMtimeMs: Math.floor(st.mtimeMs), maxWords: null, dims: parsed.dims, words: parsed.words() }));
    const magic = "paracap-vectors-1\n";
    const pre = Buffer.alloc((magic.length + 4 + header.length + 3) & ~3);
    pre.write(magic, 0, "latin1");
    pre.writeUInt32LE(header.length, magic.length);
    header.copy(pre, magic.length + 4);
    writeFileSync(path, Buffer.concat([pre, Buffer.from(parsed.unit.buffer, parsed.unit.byteOffset, parsed.unit.byteLength)]));
    expect(readCachedVectors(cacheDir, source, null, false)).toBeNull();
    expect(writeCachedVectors(cacheDir, source, null, parsed)).toBe(true);
    expect(readdirSync(cacheDir)).toEqual([file]);
    expect(rows(readCachedVectors(cacheDir, source, null, false)!)).toEqual(rows(parsed));
  });

  it("a copy whose word index is damaged (a changed word, a broken table) is no copy", () => {
    const source = vectorFile("e.json", WORDS);
    const cacheDir = join(dir, "cache-e");
    writeCachedVectors(cacheDir, source, null, loadWordVectors({ file: source }));
    const [file] = readdirSync(cacheDir);
    const path = join(cacheDir, file!);
    const good = readFileSync(path);
    const at = good.lastIndexOf(Buffer.from("caf", "utf16le"));
    expect(at).toBeGreaterThan(0);
    const renamed = Buffer.from(good);
    renamed[at] = "k".charCodeAt(0); // "kaf\u00e9": the index stays consistent, its checksum does not
    writeFileSync(path, renamed);
    expect(readCachedVectors(cacheDir, source, null, false)).toBeNull();
    const zeroed = Buffer.from(good);
    zeroed.fill(0, good.length - 200); // the end of the table, the word starts and the words
    writeFileSync(path, zeroed);
    expect(readCachedVectors(cacheDir, source, null, false)).toBeNull();
    writeFileSync(path, Buffer.concat([good, Buffer.alloc(8)])); // longer than its header says
    expect(readCachedVectors(cacheDir, source, null, false)).toBeNull();
    writeFileSync(path, good.subarray(0, 10)); // cut inside the magic
    expect(readCachedVectors(cacheDir, source, null, false)).toBeNull();
    writeFileSync(path, "");
    expect(readCachedVectors(cacheDir, source, null, false)).toBeNull();
    writeFileSync(path, good);
    expect(readCachedVectors(cacheDir, source, null, false)!.id("café")).toBe(WORDS.indexOf("café"));
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
