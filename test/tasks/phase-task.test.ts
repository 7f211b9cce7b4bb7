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
import { doneObject, failUnit, inputlessRunner, partitionOfUnit, partitionTask, runUnitTask, shardPhaseOf, unitsOf } from "../../shared/tasks/phase-task.ts";
import { BUILTIN_PIPELINE, definePipeline } from "../../shared/tasks/phases.ts";
import { datasetObject } from "../../shared/tasks/datasets.ts";
import { BUILTIN_SOURCES } from "../../shared/sources/registry.ts";
import { z } from "zod";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const SHARD: ShardSpec = { id: "s0", uri: "a.xml", source: "mediawiki", kind: "current", start: null, end: null, fragment: false };

const Line = z.object({ p: z.number() });

function setup(partitions = 3) {
  const work = new LocalStore(join(tempDir("paracap-phase-task-"), ".work"));
  const calls: number[] = [];
  let fail = false;
  const phase = partitionTask({
    name: "tally",
    next: null,
    reads: [],
    writes: ["work"],
    memory: "512Mi",
    consumes: [],
    produces: [{ name: "lines", schema: Line }],
    configKeys: ["partitions"],
    async run(ctx) {
      const p = partitionOfUnit("tally", ctx.unit);
      calls.push(p);
      const out = ctx.write<z.infer<typeof Line>>("lines");
      await out.write(p, { p });
      await out.close();
      if (fail) throw new Error("boom");
      ctx.counters.inc("tally.seen", p + 1);
    },
  });
  const manifest = createManifest("t", resolveConfig({ partitions }), [SHARD], [phase]);
  const wiring = BUILTIN_PIPELINE.wiring;
  const unit = (p: number) => ({ unit: "partition", key: String(p), partition: p }) as const;
  const run = (m: typeof manifest, p: number) => runUnitTask(phase, m, work, unit(p), inputlessRunner(BUILTIN_SOURCES), wiring);
  const done = (p: number) => doneObject(phase.name, unit(p));
  const line = (p: number) => datasetObject("tally", "lines", p, `p-${String(p).padStart(5, "0")}`);
  return { work, manifest, phase, calls, run, done, line, failNext: () => (fail = true) };
}

describe("runUnitTask", () => {
  it("runs a unit once, counts it, and returns the stored marker on a rerun without running again", async () => {
    const { work, manifest, calls, run } = setup();
    const first = await run(manifest, 2);
    expect(first).toMatchObject({ task: "tally:2", fingerprint: manifest.phaseFingerprints.tally, status: "ok", counters: { "tally.seen": 3, "tally.partitions": 1 } });
    expect(await readMarker(work, "tally/p-00002/_DONE.json")).toEqual(first);
    expect(await run(manifest, 2)).toEqual(first);
    expect(calls).toEqual([2]);
  });

  it("redoes a unit whose marker belongs to another run (its phase's fingerprint differs)", async () => {
    const { work, manifest, phase, calls, run } = setup();
    await run(manifest, 0);
    const other = createManifest("t", resolveConfig({ partitions: 4 }), [SHARD], [phase]);
    await run(other, 0);
    expect(calls).toEqual([0, 0]);
    // a key the phase does not declare leaves its fingerprint, so its work is kept
    const same = createManifest("t", resolveConfig({ partitions: 3, captions: { minWords: 9 } }), [SHARD], [phase]);
    expect(same.phaseFingerprints.tally).toBe(manifest.phaseFingerprints.tally);
    expect(work).toBeDefined();
  });

  it("a task that throws leaves no marker, so it is not taken for done", async () => {
    const { work, manifest, failNext, run, done } = setup();
    failNext();
    await expect(run(manifest, 1)).rejects.toThrow("boom");
    expect(await readMarker(work, done(1))).toBeNull();
  });
});

describe("failUnit", () => {
  it("removes a dead unit's partial outputs (derived from the datasets it produces) and marks it failed; a finished unit is left alone", async () => {
    const { work, manifest, phase, failNext, run, done, line } = setup();
    const [u0, u1] = unitsOf(phase, manifest);
    await run(manifest, 0);
    failNext();
    await expect(run(manifest, 1)).rejects.toThrow();
    expect(await work.readText(line(1))).toBe('{"p":1}\n');

    await failUnit(phase, manifest, work, u1!, "dead-lettered");
    expect(await work.readText(line(1))).toBeNull();
    expect(await readMarker(work, done(1))).toMatchObject({ status: "failed", error: "dead-lettered", fingerprint: manifest.phaseFingerprints.tally });

    const before = await readMarker(work, done(0));
    await failUnit(phase, manifest, work, u0!, "dead-lettered late");
    expect(await readMarker(work, done(0))).toEqual(before);
    expect(await work.readText(line(0))).toBe('{"p":0}\n');
  });
});

describe("shardPhaseOf", () => {
  it("finds the one phase over input shards by its unit, whatever its name, and refuses none or two", () => {
    const read = { ...extractPhase, name: "read" };
    expect(shardPhaseOf([read, groupPhase, dedupPhase, aggregatePhase]).name).toBe("read");
    expect(definePipeline([read, groupPhase, dedupPhase, aggregatePhase]).shardPhase).toBe(read);
    expect(() => shardPhaseOf([groupPhase, dedupPhase, aggregatePhase])).toThrow(/exactly one phase over input shards, found 0/);
    expect(() => definePipeline([{ ...read, next: "extract" }, extractPhase, groupPhase, dedupPhase, aggregatePhase])).toThrow(/found 2 \(read, extract\)/);
  });

  it("wires each consumed dataset to the latest earlier producer and refuses one nobody produces", () => {
    const kept = partitionTask({ ...groupPhase, name: "keep", next: "dedup", consumes: ["pairs"], produces: [{ name: "pairs", schema: z.unknown() }], summaries: [], afterPhase: undefined });
    const pipeline = definePipeline([extractPhase, { ...groupPhase, next: "keep" }, kept, dedupPhase, aggregatePhase]);
    expect(pipeline.wiring.producer("keep", "pairs").phase.name).toBe("group");
    expect(pipeline.wiring.producer("dedup", "pairs").phase.name).toBe("keep");
    expect(pipeline.wiring.summaryProducer("dedup", "set-size-bound").phase.name).toBe("group");
    expect(() => definePipeline([{ ...extractPhase, next: "dedup" }, dedupPhase, aggregatePhase])).toThrow(/phase "dedup" consumes dataset "pairs", which no earlier phase produces \(produced so far: refs\)/);
    expect(() => definePipeline([extractPhase, { ...groupPhase, next: "pixel-hash" }, { ...kept, name: "pixel-hash" }, dedupPhase, aggregatePhase])).not.toThrow();
    expect(() => definePipeline([extractPhase, { ...groupPhase, next: "pixel--x" }, { ...kept, name: "pixel--x" }, dedupPhase, aggregatePhase])).toThrow(/phase name "pixel--x"/);
  });
});
