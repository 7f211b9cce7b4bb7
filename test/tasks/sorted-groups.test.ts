/** Sorted groups in bounded runs: the group task no longer holds a whole partition's references. */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import type { ShuffleRef } from "../../shared/core/records.ts";
import { silentContext } from "../../shared/core/stage.ts";
import { LocalStore } from "../../shared/io/local-store.ts";
import { groupKeyOf, groupStage } from "../../shared/pipeline/group-stage.ts";
import { sortedGroups } from "../../shared/tasks/sorted-groups.ts";
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
