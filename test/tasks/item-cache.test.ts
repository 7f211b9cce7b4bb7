/** Per-item cache in the work store: computed once, read back, corrupt entries recomputed and counted. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Counters } from "../../shared/core/counters.ts";
import { LocalStore } from "../../shared/io/local-store.ts";
import { ItemCache, taskStageContext } from "../../shared/tasks/item-cache.ts";

const Verdict = z.object({ sentence: z.boolean(), score: z.number() });
const CAPTION = "Neil Armstrong descends a ladder to become the first human to step onto the surface of the Moon";

function setup(namespace = "toy_oracle_v1") {
  const store = new LocalStore(mkdtempSync(join(tmpdir(), "pc-item-cache-")));
  const counters = new Counters();
  let calls = 0;
  // non-deterministic on purpose: every compute gives another score
  const compute = async () => ({ sentence: true, score: ++calls });
  const cache = new ItemCache({ store, namespace, schema: Verdict, counters });
  return { store, counters, cache, compute, calls: () => calls };
}

describe("ItemCache", () => {
  it("computes an item once and reads the stored value afterwards, also from another cache over the same store", async () => {
    const { store, counters, cache, compute, calls } = setup();
    const first = await cache.getOrCompute(CAPTION, compute);
    expect(await cache.getOrCompute(CAPTION, compute)).toEqual(first);
    const again = new ItemCache({ store, namespace: "toy_oracle_v1", schema: Verdict, counters });
    expect(await again.getOrCompute(CAPTION, compute)).toEqual(first);
    expect(calls()).toBe(1);
    expect([counters.get("cache.toy_oracle_v1.computed"), counters.get("cache.toy_oracle_v1.hits"), counters.get("cache.toy_oracle_v1.invalid")]).toEqual([1, 2, 0]);
    expect(cache.objectName(CAPTION)).toMatch(/^cache\/toy_oracle_v1\/[0-9a-f]{2}\/[0-9a-f]{16}\.json$/);
    expect(JSON.parse((await store.readText(cache.objectName(CAPTION)))!)).toEqual({ key: CAPTION, value: first });
  });

  it("a new rule version does not read the old version's entries", async () => {
    const { store, counters, cache, compute, calls } = setup();
    await cache.getOrCompute(CAPTION, compute);
    const v2 = new ItemCache({ store, namespace: "toy_oracle_v2", schema: Verdict, counters });
    expect((await v2.getOrCompute(CAPTION, compute)).score).toBe(2);
    expect(calls()).toBe(2);
  });

  it("concurrent callers of one key share one compute", async () => {
    const { cache, compute, calls } = setup();
    const values = await Promise.all(Array.from({ length: 5 }, () => cache.getOrCompute(CAPTION, compute)));
    expect(new Set(values.map((v) => v.score)).size).toBe(1);
    expect(calls()).toBe(1);
  });

  it("two caches (two processes) racing on one key end with the same stored value", async () => {
    const { store, counters, compute } = setup();
    const a = new ItemCache({ store, namespace: "toy_oracle_v1", schema: Verdict, counters });
    const b = new ItemCache({ store, namespace: "toy_oracle_v1", schema: Verdict, counters });
    const [x, y] = await Promise.all([a.getOrCompute(CAPTION, compute), b.getOrCompute(CAPTION, compute)]);
    expect(x).toEqual(y);
    expect(JSON.parse((await store.readText(a.objectName(CAPTION)))!).value).toEqual(x);
  });

  it.each([
    ["not JSON", "{\"key\": "],
    ["wrong schema", JSON.stringify({ key: CAPTION, value: { sentence: "yes", score: 1 } })],
    ["another key (a hash collision or a moved file)", JSON.stringify({ key: "Ethnic groups of Angola 1970", value: { sentence: true, score: 99 } })],
  ])("a stored entry that is %s is recomputed, counted and overwritten, never trusted", async (_what, bad) => {
    const { store, counters, cache, compute, calls } = setup();
    await store.writeText(cache.objectName(CAPTION), bad);
    const value = await cache.getOrCompute(CAPTION, compute);
    expect(value).toEqual({ sentence: true, score: 1 });
    expect(calls()).toBe(1);
    expect(counters.get("cache.toy_oracle_v1.invalid")).toBe(1);
    expect(await cache.getOrCompute(CAPTION, compute)).toEqual(value);
    expect(counters.get("cache.toy_oracle_v1.hits")).toBe(1);
  });

  it("a compute whose value fails the schema is an error, and nothing is stored", async () => {
    const { store, cache } = setup();
    await expect(cache.getOrCompute(CAPTION, async () => ({ sentence: 1 }) as never)).rejects.toThrow();
    expect(await store.readText(cache.objectName(CAPTION))).toBeNull();
  });

  it("rejects a namespace that is not <name>_v<version>", () => {
    const { store, counters } = setup();
    expect(() => new ItemCache({ store, namespace: "toy oracle", schema: Verdict, counters })).toThrow(/_v<version>/);
  });
});

describe("taskStageContext", () => {
  it("gives stages item caches in the task's work store, one per namespace, counting into the task's counters", async () => {
    const work = new LocalStore(mkdtempSync(join(tmpdir(), "pc-item-cache-work-")));
    const counters = new Counters();
    const ctx = taskStageContext(work, counters);
    const cache = ctx.itemCache!("toy_oracle_v1", Verdict);
    expect(ctx.itemCache!("toy_oracle_v1", Verdict)).toBe(cache);
    await cache.getOrCompute(CAPTION, () => ({ sentence: true, score: 0.5 }));
    expect((await work.list("cache/toy_oracle_v1/")).length).toBe(1);
    expect(counters.get("cache.toy_oracle_v1.computed")).toBe(1);
  });
});
