/**
 * The one task wrapper every phase runs under: a finished marker of this run short-circuits the
 * task, a marker of another run does not, a task that throws leaves no marker, and a dead task is
 * marked failed with its partial outputs removed (unless it finished after all). The shard phase of
 * a pipeline is found by its unit.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { LocalStore } from "../../shared/io/local-store.ts";
import { createManifest } from "../../shared/tasks/manifest.ts";
import type { ShardSpec } from "../../shared/sources/shard-spec.ts";
import { readMarker } from "../../shared/tasks/markers.ts";
import { aggregatePhase } from "../../shared/tasks/aggregate-task.ts";
import { dedupPhase } from "../../shared/tasks/dedup-task.ts";
import { extractPhase } from "../../shared/tasks/extract-task.ts";
import { groupPhase } from "../../shared/tasks/group-task.ts";
import { failUnit, partitionTask, shardPhaseOf, unitsOf } from "../../shared/tasks/phase-task.ts";
import { definePipeline } from "../../shared/tasks/phases.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const SHARD: ShardSpec = { id: "s0", uri: "a.xml", source: "mediawiki", kind: "current", start: null, end: null, fragment: false };

function setup(partitions = 3) {
  const work = new LocalStore(join(tempDir("paracap-phase-task-"), ".work"));
  const manifest = createManifest("t", resolveConfig({ partitions }), [SHARD]);
  const calls: number[] = [];
  let fail = false;
  const phase = partitionTask({
    name: "tally",
    unit: "partition",
    next: null,
    reads: [],
    writes: ["work"],
    memory: "512Mi",
    outputs: (_m, p) => [`tally/p-${p}/out.txt`],
    async run(_m, p, store, counters) {
      calls.push(p);
      await store.writeText(`tally/p-${p}/out.txt`, `partition ${p}\n`);
      if (fail) throw new Error("boom");
      counters.inc("tally.seen", p + 1);
    },
  });
  return { work, manifest, phase, calls, failNext: () => (fail = true) };
}

describe("runUnitTask", () => {
  it("runs a unit once, counts it, and returns the stored marker on a rerun without running again", async () => {
    const { work, manifest, phase, calls } = setup();
    const first = await phase.runPartition(manifest, 2, work);
    expect(first).toMatchObject({ task: "tally:2", fingerprint: manifest.fingerprint, status: "ok", counters: { "tally.seen": 3, "tally.partitions": 1 } });
    expect(await readMarker(work, "tally/p-00002/_DONE.json")).toEqual(first);
    expect(await phase.runPartition(manifest, 2, work)).toEqual(first);
    expect(calls).toEqual([2]);
  });

  it("redoes a unit whose marker belongs to another run (other fingerprint)", async () => {
    const { work, manifest, phase, calls } = setup();
    await phase.runPartition(manifest, 0, work);
    const other = createManifest("t", resolveConfig({ partitions: 3, captions: { minWords: 9 } }), [SHARD]);
    await phase.runPartition(other, 0, work);
    expect(calls).toEqual([0, 0]);
  });

  it("a task that throws leaves no marker, so it is not taken for done", async () => {
    const { work, manifest, phase, failNext } = setup();
    failNext();
    await expect(phase.runPartition(manifest, 1, work)).rejects.toThrow("boom");
    expect(await readMarker(work, phase.done("1"))).toBeNull();
  });
});

describe("failUnit", () => {
  it("removes a dead unit's partial outputs and marks it failed; a finished unit is left alone", async () => {
    const { work, manifest, phase, failNext } = setup();
    const [u0, u1] = unitsOf(phase, manifest);
    await phase.runPartition(manifest, 0, work);
    failNext();
    await expect(phase.runPartition(manifest, 1, work)).rejects.toThrow();
    expect(await work.readText("tally/p-1/out.txt")).toBe("partition 1\n");

    await failUnit(phase, manifest, work, u1!, "dead-lettered");
    expect(await work.readText("tally/p-1/out.txt")).toBeNull();
    expect(await readMarker(work, phase.done("1"))).toMatchObject({ status: "failed", error: "dead-lettered", fingerprint: manifest.fingerprint });

    const done = await readMarker(work, phase.done("0"));
    await failUnit(phase, manifest, work, u0!, "dead-lettered late");
    expect(await readMarker(work, phase.done("0"))).toEqual(done);
    expect(await work.readText("tally/p-0/out.txt")).toBe("partition 0\n");
  });
});

describe("shardPhaseOf", () => {
  it("finds the one phase over input shards by its unit, whatever its name, and refuses none or two", () => {
    const read = { ...extractPhase, name: "read", done: (k: string) => `read/${k}/_DONE.json` };
    expect(shardPhaseOf([read, groupPhase, dedupPhase, aggregatePhase]).name).toBe("read");
    expect(definePipeline([read, groupPhase, dedupPhase, aggregatePhase]).shardPhase).toBe(read);
    expect(() => shardPhaseOf([groupPhase, dedupPhase, aggregatePhase])).toThrow(/exactly one phase over input shards, found 0/);
    expect(() => definePipeline([{ ...read, next: "extract" }, extractPhase, groupPhase, dedupPhase, aggregatePhase])).toThrow(/found 2 \(read, extract\)/);
  });
});
