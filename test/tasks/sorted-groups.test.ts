/** Sorted groups in bounded runs: the group task no longer holds a whole partition's references. */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import { defineFilter } from "../../shared/core/filter.ts";
import type { CandidatePair, ShuffleRef } from "../../shared/core/records.ts";
import { silentContext } from "../../shared/core/stage.ts";
import { LocalStore } from "../../shared/io/local-store.ts";
import { dedupStage } from "../../shared/pipeline/dedup-stage.ts";
import { pairFilters } from "../../shared/pipeline/filters.ts";
import { groupKeyOf, groupStage } from "../../shared/pipeline/group-stage.ts";
import type { Sorter } from "../../shared/pipeline/sorter.ts";
import { sortedGroups, spillingSorter } from "../../shared/tasks/sorted-groups.ts";
import { collect, features, from } from "../pipeline/stage-helpers.ts";

const CC = new URL("../../../shared/data/conceptual-captions/gcc-validation-part1-lines00001-07900.tsv", import.meta.url);
const lines = readFileSync(CC, "utf8").split("\n").filter(Boolean).map((l) => l.split("\t") as [string, string]);

const dirs: string[] = [];
function store(): { store: LocalStore; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "sorted-groups-"));
  dirs.push(dir);
  return { store: new LocalStore(dir), dir };
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const files = (dir: string): string[] => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);

describe("sortedGroups", () => {
  // 2,000 real caption-list lines keyed by their URL's host: groups of 1 to hundreds, met in any order
  const records = lines.slice(0, 2000).map(([caption, url], i) => ({ i, host: new URL(url).host, caption }));
  const key = (r: (typeof records)[number]) => r.host;

  it("gives the groups of holding every record, in key order and arrival order, while holding at most runRecords", async () => {
    const held = await collect(sortedGroups(from(records), { key, store: null, run: () => "x", scratch: () => "x" }));
    const { store: s, dir } = store();
    const runs: number[] = [];
    // 40 runs of 50: more than the merge's fan-in (32), so the merge goes through a level of intermediate runs
    const bounded = await collect(sortedGroups(from(records), {
      key, store: s, runRecords: 50, onRun: (n) => runs.push(n),
      run: (i) => `spill/run-${i}.jsonl`, scratch: (level, i) => `spill/merge-${level}-${i}.jsonl`,
    }));
    expect(bounded).toEqual(held);
    expect(runs.length).toBe(40);
    expect(Math.max(...runs)).toBe(50);
    expect(held.map((g) => g[0]!.host)).toEqual([...new Set(records.map(key))].sort());
    for (const g of held) expect(g.map((r) => r.i)).toEqual([...g.map((r) => r.i)].sort((a, b) => a - b));
    expect(held.flat().length).toBe(records.length);
    // runs and intermediate merges are gone
    expect(files(dir)).toEqual([]);
  });
});

describe("the group stage over sorted runs", () => {
  // 240 real captions on 30 images (8 captions each), from a caption list (web set sizes counted)
  const refs: ShuffleRef[] = lines.slice(0, 240).map(([caption], i) => ({
    image: `https://example.org/img-${i % 30}.jpg`, kind: "current", page: `cc.tsv:${i}`, pageId: i, revisionId: i, ordinal: 0,
    source: "row", uses: 1, caption: features(caption), alt: null,
  }));
  const config = resolveConfig({}, { tiers: ["gold", "silver"] });

  it("pairs and counts exactly as with the partition held whole", async () => {
    const run = async (groups?: (r: AsyncIterable<ShuffleRef>) => AsyncIterable<ShuffleRef[]>) => {
      const counters = new Counters();
      const pairs = await collect(groupStage(config, { webSources: new Set(["row"]), groups }).run(from(refs), silentContext(counters)));
      return { pairs, counters: JSON.stringify(counters), samples: JSON.stringify(counters.samples) };
    };
    const whole = await run();
    const { store: s, dir } = store();
    let runs = 0;
    const bounded = await run((records) => sortedGroups(records, {
      key: groupKeyOf, store: s, runRecords: 25, onRun: () => runs++,
      run: (i) => `spill/group/run-${i}.jsonl`, scratch: (level, i) => `spill/group/merge-${level}-${i}.jsonl`,
    }));
    expect(runs).toBe(10);
    expect(whole.pairs.length).toBeGreaterThan(0);
    expect(bounded).toEqual(whole);
    expect(files(dir)).toEqual([]);
  });
});

describe("the dedup stage over sorted runs", () => {
  // 240 real captions on 30 images, and 10 more images with the captions of the first 10 (duplicate text pairs, other ids)
  const refs: ShuffleRef[] = [...lines.slice(0, 240), ...lines.slice(0, 80)].map(([caption], i) => ({
    image: `https://example.org/img-${Math.floor(i / 8)}.jpg`, kind: "current", page: `cc.tsv:${i}`, pageId: i, revisionId: i, ordinal: 0,
    source: "row", uses: 1, caption: features(caption), alt: null,
  }));
  const config = resolveConfig({}, { tiers: ["gold", "silver"] });
  // a filter that awaits (as a model or a cache read does): its verdicts settle while the sorts read and write runs
  const awaiting = defineFilter({
    name: "awaits", version: 1, paperStep: null, unit: "pair", description: "drops pairs whose first caption has a digit (test only)",
    keep: async (p: CandidatePair) => (await Promise.resolve(/\d/.test(p.a.text)) ? { drop: "digit" } : true),
  });

  it("keeps, drops, scores and counts exactly as with the partition held whole, and leaves no run behind", async () => {
    const candidates = await collect(groupStage(config, { webSources: new Set(["row"]) }).run(from(refs), silentContext(new Counters())));
    const run = async (sort?: Sorter) => {
      const counters = new Counters();
      const pairs = await collect(dedupStage(config, { setSizeMax: 8, sort, pairFilters: () => [...pairFilters(config), awaiting] }).run(from(candidates), silentContext(counters)));
      return { pairs, counters: JSON.stringify(counters), samples: JSON.stringify(counters.samples), c: counters };
    };
    const whole = await run();
    const { store: s, dir } = store();
    const runs: number[] = [];
    const bounded = await run(spillingSorter(s, "spill/dedup/q-0", { runRecords: 25, onRun: (n) => runs.push(n) }));
    expect(whole.c.get("filter.silver.unique_v1.dropped.duplicate")).toBeGreaterThan(0);
    expect(whole.c.get("filter.silver.awaits_v1.dropped.digit")).toBeGreaterThan(0);
    expect(whole.pairs.length).toBeGreaterThan(64); // more than one scoring batch
    // the candidates' runs, then the survivors'
    expect(runs.length).toBeGreaterThan(Math.ceil(candidates.length / 25));
    expect(Math.max(...runs)).toBe(25);
    expect(bounded.pairs).toEqual(whole.pairs);
    expect(JSON.stringify(bounded.pairs)).toBe(JSON.stringify(whole.pairs));
    expect(bounded.counters).toBe(whole.counters);
    expect(bounded.samples).toBe(whole.samples);
    expect(files(dir)).toEqual([]);
  });
});
