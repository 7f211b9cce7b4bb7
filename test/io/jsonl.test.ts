/**
 * Reading JSON Lines, for work files and published tiers alike: gzipped objects by their name, a
 * missing object skipped or refused, bad lines named by file and line.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { LocalStore } from "../../shared/io/local-store.ts";
import { readJsonl } from "../../shared/io/jsonl.ts";
import { readTier } from "../../shared/output/tier-dataset.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const Rec = z.object({ id: z.string(), n: z.number() });

async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

function store() {
  const dir = tempDir("paracap-jsonl-");
  mkdirSync(dir, { recursive: true });
  const put = (name: string, bytes: string | Buffer) => writeFileSync(join(dir, name), bytes);
  return { s: new LocalStore(dir), put };
}

describe("readJsonl", () => {
  it("reads plain and gzipped objects alike, skipping empty lines", async () => {
    const { s, put } = store();
    const text = '{"id":"a","n":1}\n\n{"id":"b","n":2}\n';
    put("x.jsonl", text);
    put("x.jsonl.gz", gzipSync(text));
    const want = [{ id: "a", n: 1 }, { id: "b", n: 2 }];
    expect(await all(readJsonl(s, "x.jsonl", Rec))).toEqual(want);
    expect(await all(readJsonl(s, "x.jsonl.gz", Rec))).toEqual(want);
  });

  it("a missing object yields nothing, or is an error when required", async () => {
    const { s } = store();
    expect(await all(readJsonl(s, "none.jsonl", Rec))).toEqual([]);
    await expect(all(readJsonl(s, "none.jsonl", Rec, { required: true }))).rejects.toThrow(/none\.jsonl: not found$/);
  });

  it("names the file and line of a bad line, and what a record should be", async () => {
    const { s, put } = store();
    put("bad.jsonl", '{"id":"a","n":1}\n{"id":"b",\n');
    put("wrong.jsonl", '{"id":"a","n":1}\n\n{"id":"b","n":"two"}\n');
    await expect(all(readJsonl(s, "bad.jsonl", Rec))).rejects.toThrow(/bad\.jsonl:2: not valid JSON$/);
    await expect(all(readJsonl(s, "wrong.jsonl", Rec, { what: "a record" }))).rejects.toThrow(/wrong\.jsonl:3: not a record: .*n/);
  });

  it("a tier's dataset is read the same way: gzipped, required, each line a pair", async () => {
    const { s, put } = store();
    put("gold.jsonl.gz", gzipSync('{"id":"x"}\n'));
    await expect(all(readTier(s, "gold.jsonl.gz"))).rejects.toThrow(/gold\.jsonl\.gz:1: not a pair: /);
    expect(await all(readTier(s, "gold.jsonl.gz", { trusted: true }))).toEqual([{ id: "x" }]);
    await expect(all(readTier(s, "silver.jsonl"))).rejects.toThrow(/silver\.jsonl: not found$/);
  });
});
