/**
 * Shard/partition tasks over a real LocalStore: the pair dedup is corpus-wide across group partitions,
 * tasks are idempotent (a done marker short-circuits), and the aggregate recounts the final funnel row.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { partitionOf } from "../../shared/core/hash.ts";
import { ScoredPair, type ShuffleRef } from "../../shared/core/records.ts";
import { JsonlWriter, readJsonl } from "../../shared/io/jsonl.ts";
import { LocalStore } from "../../shared/io/local-store.ts";
import { runOnceTask, runPartitionTask } from "../../shared/tasks/run-task.ts";
import { datasetObject } from "../../shared/tasks/datasets.ts";
import { BUILTIN_PIPELINE } from "../../shared/tasks/phases.ts";
import { createManifest } from "../../shared/tasks/manifest.ts";
import type { ShardSpec } from "../../shared/sources/shard-spec.ts";
import { marker, readMarker, writeMarker } from "../../shared/tasks/markers.ts";
import { CAPTIONS as C, collect, ref } from "../pipeline/stage-helpers.ts";
import { tempDir, removeTempDirs } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const P = 4;
const APOLLO = "File:Apollo 11 first step.jpg";
const ALDRIN = "File:Aldrin Apollo 11.jpg"; // another image (made-up name) whose two uses carry the same two captions
const pad = (p: number) => `p-${String(p).padStart(5, "0")}`;
const runGroupTask = (m: Parameters<typeof runPartitionTask>[1], p: number, work: LocalStore) => runPartitionTask("group", m, p, work);
const runDedupTask = (m: Parameters<typeof runPartitionTask>[1], p: number, work: LocalStore) => runPartitionTask("dedup", m, p, work);
const runAggregateTask = runOnceTask;

async function setup(refsByShard: ShuffleRef[][]) {
  const dir = tempDir("paracap-tasks-");
  const work = new LocalStore(join(dir, ".work"));
  const output = new LocalStore(dir);
  const shards: ShardSpec[] = refsByShard.map((_, i) => ({ id: `s${i}`, uri: `shard-${i}.xml`, source: "mediawiki", kind: "current", start: null, end: null, fragment: false }));
  const manifest = createManifest("test", resolveConfig({ tiers: ["gold", "silver"], partitions: P }), shards, BUILTIN_PIPELINE.phases);
  for (const [i, refs] of refsByShard.entries()) {
    const byPartition = new Map<number, ShuffleRef[]>();
    for (const r of refs) byPartition.set(partitionOf(r.image, P), [...(byPartition.get(partitionOf(r.image, P)) ?? []), r]);
    for (const [p, list] of byPartition) {
      const w = new JsonlWriter(work.writer(datasetObject("extract", "refs", p, `s${i}`)));
      for (const r of list) await w.write(r);
      await w.close();
    }
    await writeMarker(work, `extract/s${i}/_DONE.json`, marker(`extract:s${i}`, manifest.phaseFingerprints.extract!, { "extract.shards": 1 }));
  }
  return { dir, work, output, manifest };
}

describe("group → dedup → aggregate tasks", () => {
  it("dedups identical text pairs across group partitions, keeping the smallest id; tasks are idempotent", async () => {
    expect(partitionOf(APOLLO, P)).not.toBe(partitionOf(ALDRIN, P)); // the two images are grouped in different tasks
    const { dir, work, output, manifest } = await setup([
      [
        ref({ image: APOLLO, page: "Apollo 11", pageId: 662, revisionId: 716123666, ordinal: 0, source: "template", caption: C.apolloInfobox }),
        ref({ image: APOLLO, page: "Apollo 11", pageId: 662, revisionId: 716123666, ordinal: 12, caption: C.apolloLink }),
      ],
      [
        ref({ image: ALDRIN, page: "Buzz Aldrin", pageId: 1, revisionId: 7, caption: C.apolloInfobox }),
        ref({ image: ALDRIN, page: "Moon landing", pageId: 2, revisionId: 8, caption: C.apolloLink }),
      ],
    ]);
    const groupMarkers = [];
    for (let p = 0; p < P; p++) groupMarkers.push(await runGroupTask(manifest, p, work));
    expect(groupMarkers.map((m) => m.counters["group.gold.pairs"] ?? 0).reduce((a, b) => a + b)).toBe(2);
    // all candidates went to one dedup partition (pairs are partitioned by their texts)
    const built: { q: number; tier: string; id: string; image: string }[] = [];
    for (let p = 0; p < P; p++) {
      for (let q = 0; q < P; q++) {
        for (const c of await collect(readJsonl<{ tier: string; id: string; image: string }>(work, datasetObject("group", "pairs", q, pad(p))))) built.push({ q, tier: c.tier, id: c.id, image: c.image });
      }
    }
    expect(built).toHaveLength(4); // 2 images × gold/silver
    expect(new Set(built.map((b) => b.q)).size).toBe(1);
    const goldIds = built.filter((b) => b.tier === "gold").map((b) => b.id).sort();
    expect(goldIds).toHaveLength(2);
    expect(goldIds).toContain("187b02163fb002de"); // the Apollo pair, as in the golden run
    expect(goldIds[0]).not.toBe(goldIds[1]);

    const dedupMarkers = [];
    for (let q = 0; q < P; q++) dedupMarkers.push(await runDedupTask(manifest, q, work));
    expect(dedupMarkers.map((m) => m.counters["filter.gold.unique_v1.dropped.duplicate"] ?? 0).reduce((a, b) => a + b)).toBe(1);

    const stats = await runAggregateTask(manifest, work, output, { now: () => new Date(0) });
    const gold = readFileSync(join(dir, "gold.jsonl"), "utf8").trim().split("\n").map((l) => ScoredPair.parse(JSON.parse(l)));
    expect(gold).toHaveLength(1);
    // the survivor is the candidate with the smallest id, whichever image and partition it came from
    expect(gold[0]!.id).toBe(goldIds[0]);
    expect(gold[0]!.image).toBe(built.find((b) => b.id === goldIds[0])!.image);
    expect(stats.tiers.gold!.funnel.at(-1)).toMatchObject({ images: 1, images_ge2: 1, references: 2, captions: 2, candidates: 1 });

    // a second run of any task returns its marker without redoing the work
    const before = readFileSync(join(dir, ".work", datasetObject("dedup", "scored", 0, "p-00000", "gold")), "utf8");
    expect(await runGroupTask(manifest, 0, work)).toEqual(groupMarkers[0]);
    expect(await runDedupTask(manifest, 0, work)).toEqual(dedupMarkers[0]);
    expect(readFileSync(join(dir, ".work", datasetObject("dedup", "scored", 0, "p-00000", "gold")), "utf8")).toBe(before);
  });

  it("item-cache counters stay in the task markers, out of stats.json (a rerun that reads the cache publishes the same stats)", async () => {
    const { work, output, manifest } = await setup([[
      ref({ image: APOLLO, page: "Apollo 11", pageId: 662, revisionId: 716123666, ordinal: 0, source: "template", caption: C.apolloInfobox }),
      ref({ image: APOLLO, page: "Apollo 11", pageId: 662, revisionId: 716123666, ordinal: 12, caption: C.apolloLink }),
    ]]);
    for (let p = 0; p < P; p++) await runGroupTask(manifest, p, work);
    for (let q = 0; q < P; q++) await runDedupTask(manifest, q, work);
    const done = (await readMarker(work, "dedup/p-00000/_DONE.json"))!;
    await writeMarker(work, "dedup/p-00000/_DONE.json", { ...done, counters: { ...done.counters, "cache.toy_oracle_v1.hits": 3 } });
    // the run's time is taken as its report is written: the aggregate's own work counts
    const stats = await runAggregateTask(manifest, work, output, { now: () => new Date(90_000), startedAt: 7_500 });
    expect(readFileSync(join(output.root, "report.md"), "utf8")).toContain("Generated 1970-01-01T00:01:30.000Z in 82.5 s.");
    expect(stats.counters["filter.gold.unique_v1.in"]).toBe(1);
    expect(Object.keys(stats.counters).filter((k) => k.startsWith("cache."))).toEqual([]);
  });

  it("refuses to aggregate while a partition task is not done", async () => {
    const { work, output, manifest } = await setup([[ref({ image: APOLLO, page: "Apollo 11", caption: C.apolloLink })]]);
    for (let p = 0; p < P; p++) await runGroupTask(manifest, p, work);
    await expect(runAggregateTask(manifest, work, output)).rejects.toThrow(/task not done: dedup\/p-00000\/_DONE.json/);
  });
});
