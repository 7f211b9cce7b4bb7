import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { LocalStore } from "../../shared/io/local-store.ts";
import { JsonlWriter, readJsonl } from "../../shared/io/jsonl.ts";

describe("LocalStore", () => {
  it("publishes writes atomically and lists them", async () => {
    const store = new LocalStore(await mkdtemp(join(tmpdir(), "paracap-store-")));
    const w = store.writer("a/b/part.jsonl");
    await w.write("one\n");
    expect(await store.exists("a/b/part.jsonl")).toBe(false);
    await w.close();
    expect(await store.readText("a/b/part.jsonl")).toBe("one\n");
    await store.writeText("a/c.json", "{}");
    expect(await store.list("a/")).toEqual(["a/b/part.jsonl", "a/c.json"]);
  });

  it("createIfAbsent lets exactly one caller win", async () => {
    const store = new LocalStore(await mkdtemp(join(tmpdir(), "paracap-store-")));
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.createIfAbsent("x/_TRIGGER", `caller ${i}`)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it("createIfAbsent is never seen half-written, and leaves no temp file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "paracap-store-"));
    const store = new LocalStore(dir);
    const text = JSON.stringify({ key: "k", value: "x".repeat(8 << 20) });
    for (let round = 0; round < 5; round++) {
      const name = `cache/item-${round}.json`;
      const seen: number[] = [];
      let done = false;
      const reader = (async () => {
        while (!done) {
          const got = await store.readText(name);
          if (got !== null) seen.push(got.length);
          await new Promise((r) => setImmediate(r));
        }
      })();
      expect(await store.createIfAbsent(name, text)).toBe(true);
      done = true;
      await reader;
      expect(seen.every((n) => n === text.length), `lengths read: ${[...new Set(seen)].join(", ")}`).toBe(true);
    }
    expect(await store.list("cache/")).toHaveLength(5);
    expect((await readdir(join(dir, "cache"))).filter((f) => f.includes(".tmp-"))).toEqual([]);
  });

  it("abort leaves no object and no temp file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "paracap-store-"));
    const store = new LocalStore(dir);
    const w = store.writer("p.jsonl");
    await w.write("x");
    await w.abort();
    expect(await readdir(dir)).toEqual([]);
  });

  it("JSONL round-trips with validation and names the bad line", async () => {
    const store = new LocalStore(await mkdtemp(join(tmpdir(), "paracap-store-")));
    const w = new JsonlWriter(store.writer("r.jsonl"), 10);
    for (const n of [1, 2, 3]) await w.write({ n });
    await w.close();
    const got: number[] = [];
    for await (const r of readJsonl(store, "r.jsonl", z.object({ n: z.number() }))) got.push(r.n);
    expect(got).toEqual([1, 2, 3]);
    await store.writeText("bad.jsonl", '{"n":1}\n{"n":"two"}\n');
    await expect(async () => {
      for await (const _ of readJsonl(store, "bad.jsonl", z.object({ n: z.number() }))) void _;
    }).rejects.toThrow(/bad\.jsonl:2/);
  });

  it("writes again into a folder removed behind its back", async () => {
    const dir = await mkdtemp(join(tmpdir(), "paracap-store-"));
    const store = new LocalStore(dir);
    await store.writeText("p/a.json", "1");
    await rm(join(dir, "p"), { recursive: true });
    await store.writeText("p/b.json", "2");
    const w = store.writer("p/c.jsonl");
    await rm(join(dir, "p"), { recursive: true });
    await w.write("x\n");
    await w.close();
    await rm(join(dir, "p"), { recursive: true });
    expect(await store.createIfAbsent("p/d.json", "4")).toBe(true);
    expect(await store.list("p/")).toEqual(["p/d.json"]);
    expect(await readdir(join(dir, "p"))).toEqual(["d.json"]);
  });

  it("a file in a folder's place is a storage error, not an existing object", async () => {
    const dir = await mkdtemp(join(tmpdir(), "paracap-store-"));
    const store = new LocalStore(dir);
    await writeFile(join(dir, "f"), "a file");
    await expect(store.createIfAbsent("f/x.json", "{}")).rejects.toThrow(/cannot write/);
    await expect(store.writeText("f/x.json", "{}")).rejects.toThrow(/cannot write/);
    await expect(store.readText("f/x.json")).rejects.toThrow(/cannot read/);
  });

  it("streams small and large objects alike", async () => {
    const store = new LocalStore(await mkdtemp(join(tmpdir(), "paracap-store-")));
    const big = Array.from({ length: 40_000 }, (_, n) => JSON.stringify({ n, pad: "y".repeat(30) })).join("\n") + "\n";
    await store.writeText("big.jsonl", big);
    await store.writeText("small.jsonl", '{"n":7}\n');
    await store.writeText("empty.jsonl", "");
    const count = async (name: string) => {
      let n = 0;
      for await (const _ of readJsonl(store, name, z.object({ n: z.number() }).loose())) n++;
      return n;
    };
    expect(big.length).toBeGreaterThan(1 << 20);
    expect(await count("big.jsonl")).toBe(40_000);
    expect(await count("small.jsonl")).toBe(1);
    expect(await count("empty.jsonl")).toBe(0);
    expect(await store.readStream("missing.jsonl")).toBeNull();
  });
});
