import { MessageChannel } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { packedIndexChecksum, packedIsSound, packVectors, PackedWords, type PackedVectors, wordHash } from "../../shared/semantic/packed-vectors.ts";
import { WordVectors } from "../../shared/semantic/word-vectors.ts";

/** Deterministic pseudo-random words, ASCII and not (accents, CJK, an astral character's surrogate pair). */
function someWords(n: number): string[] {
  const alphabet = ["a", "b", "e", "q", "z", "-", "'", ".", "é", "ü", "ß", "ñ", "中", "文", "😀", "ﬁ"];
  let seed = 12345;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8;
  const out = new Set<string>(["", "the", "café", "naïve", "über", "😀", '"quoted"']);
  while (out.size < n) {
    let w = "";
    for (let len = 1 + (next() % 9); len > 0; len--) w += alphabet[next() % (next() % 4 === 0 ? alphabet.length : 5)]!;
    out.add(w);
  }
  return [...out];
}

const DIMS = 3;
function rowsOf(words: readonly string[]): Float32Array {
  return Float32Array.from({ length: words.length * DIMS }, (_, i) => Math.sin(i + 1));
}

describe("packed word vectors", () => {
  const words = someWords(3000);
  const unit = rowsOf(words);
  const byMap = WordVectors.fromRows(DIMS, words, unit);
  const packed = WordVectors.fromPacked(packVectors(DIMS, words, unit, false));

  it("look every word up to the same row as a Map, with the same rows, and give the words back in row order", () => {
    expect(packed.size).toBe(words.length);
    for (const w of words) {
      const id = packed.id(w);
      expect(id).toBe(byMap.id(w));
      expect([...packed.unit.subarray(id * DIMS, (id + 1) * DIMS)]).toEqual([...byMap.unit.subarray(id * DIMS, (id + 1) * DIMS)]);
    }
    expect(packed.words()).toEqual(words);
    // a second time from the memo of looked-up words, and without it
    const index = new PackedWords(packed.packed!);
    for (const w of [...words, "zzzzzzzzzz", "The"]) {
      expect(packed.id(w)).toBe(byMap.id(w));
      expect(index.find(w)).toBe(byMap.id(w));
    }
  });

  it("answer -1 for unknown words, including prefixes, extensions and other case or normalisation", () => {
    for (const w of ["zzzzzzzzzz", "th", "thee", "The", "CAFÉ", "cafe\u0301", "😀😀", "\ud83d", " ", "über "]) {
      expect(packed.id(w)).toBe(byMap.id(w));
      expect(packed.id(w)).toBe(-1);
    }
  });

  it("hash by UTF-16 code units, so a lone surrogate and a pair differ", () => {
    expect(wordHash("😀")).not.toBe(wordHash("\ud83d"));
    expect(wordHash("ab")).not.toBe(wordHash("ba"));
  });

  it("refuse a list with a word twice", () => {
    expect(() => packVectors(DIMS, ["a", "b", "a"], rowsOf(["a", "b", "a"]), false)).toThrow(/twice/);
  });

  it("pack an empty vocabulary", () => {
    const empty = WordVectors.fromPacked(packVectors(DIMS, [], new Float32Array(0), false));
    expect(empty.size).toBe(0);
    expect(empty.id("a")).toBe(-1);
    expect(empty.words()).toEqual([]);
  });

  it("a damaged buffer: its checksum changes, sizes that do not fit are unsound, and lookups in it neither throw nor loop", () => {
    const p = packVectors(DIMS, words, unit, false);
    expect(packedIsSound(p)).toBe(true);
    const sum = packedIndexChecksum(p);
    const copy = (): PackedVectors => ({ ...p, buffer: p.buffer.slice(0) });
    const tableAt = words.length * DIMS * 4;
    const startsAt = tableAt + p.slots * 4;
    const rowTooBig = copy();
    const t = new Uint32Array(rowTooBig.buffer, tableAt, p.slots);
    t.forEach((e, s) => e !== 0 && (t[s] = 0xffffffff));
    expect(packedIndexChecksum(rowTooBig)).not.toBe(sum);
    for (const w of ["the", "café", "zzz"]) expect(new PackedWords(rowTooBig).id(w)).toBe(-1);
    const full = copy();
    new Uint32Array(full.buffer, tableAt, p.slots).fill(1); // no empty slot: every probe runs the whole table
    expect(packedIndexChecksum(full)).not.toBe(sum);
    expect(new PackedWords(full).id("not there")).toBe(-1);
    const starts = copy();
    const startsOf = new Uint32Array(starts.buffer, startsAt, words.length + 1);
    startsOf.fill(0xffffff, 1);
    expect(packedIsSound(starts)).toBe(false);
    for (const w of ["the", "zzz"]) expect(new PackedWords(starts).id(w)).toBe(-1);
    expect(packedIsSound({ ...p, slots: p.slots * 2 })).toBe(false); // the sizes no longer match the buffer
    expect(packedIsSound({ ...p, slots: p.slots - 1 })).toBe(false); // not a power of two
    expect(packedIsSound({ ...p, chars: -2 })).toBe(false);
    // a changed word keeps the sizes, but not the checksum
    const renamed = copy();
    const codes = new Uint16Array(renamed.buffer, startsAt + (words.length + 1) * 4, p.chars);
    codes[3] = codes[3]! ^ 1;
    expect(packedIsSound(renamed)).toBe(true);
    expect(packedIndexChecksum(renamed)).not.toBe(sum);
  });

  it("pack parsed vectors once; a pack in shared memory reaches another thread's port as the same memory", async () => {
    const shared = WordVectors.pack(byMap, true);
    expect(shared.packed!.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(WordVectors.pack(shared, true)).toBe(shared);
    const { port1, port2 } = new MessageChannel();
    const got = new Promise<PackedVectors>((resolve) => port2.once("message", resolve));
    port1.postMessage(shared.packed);
    const there = await got;
    port1.close();
    port2.close();
    const other = WordVectors.fromPacked(there);
    expect(other.id("café")).toBe(byMap.id("café"));
    new Float32Array(there.buffer, 0, 1)[0] = 42; // one buffer, not a copy
    expect(shared.unit[0]).toBe(42);
    expect(new PackedWords(there).words()).toEqual(words);
  });
});
