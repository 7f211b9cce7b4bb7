/**
 * The phase seam as a contributor meets it: a phase defined here, in the test only (a "census" of
 * the deduplicated pairs per partition, between dedup and aggregate), runs through the local runner
 * and through the cloud runner on the emulators (its own topic, function, fan-in and messages, all
 * derived from the pipeline value) without any other file knowing it. Both runners give the same
 * outputs, the datasets equal the built-in pipeline's, and the census counts every published pair.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulators, type Emulators } from "../../scripts/emulators/emulate.ts";
import { startLocalCloud, type LocalCloud } from "../../scripts/emulators/local-cloud.ts";
import { createCloudDeps } from "../../functions/deps.ts";
import { registerFunctions } from "../../functions/handlers.ts";
import { readCloudEnv } from "../../shared/cloud/env.ts";
import type { CloudDeps } from "../../shared/cloud/cloud-stages.ts";
import { ScoredPair } from "../../shared/core/records.ts";
import { readJsonl } from "../../shared/io/jsonl.ts";
import { Stats } from "../../shared/output/stats.ts";
import { aggregatePhase } from "../../shared/tasks/aggregate-task.ts";
import { dedupPhase } from "../../shared/tasks/dedup-task.ts";
import { extractPhase } from "../../shared/tasks/extract-task.ts";
import { groupPhase } from "../../shared/tasks/group-task.ts";
import { layout } from "../../shared/tasks/layout.ts";
import { partitionTask } from "../../shared/tasks/phase-task.ts";
import { definePipeline } from "../../shared/tasks/phases.ts";
import { comparable, localReference, multistreamSample, paracap, PARTITIONS, pubsubEmulatorMissing, readDir, readObjects, SHARD_BYTES, skipMessage, waitForRun, type SampleDumps } from "./helpers.ts";

/** The toy phase: counts the pairs of one dedup partition per tier and files the count. */
const census = partitionTask({
  name: "census",
  unit: "partition",
  next: "aggregate",
  reads: [],
  writes: ["work"],
  memory: "512Mi",
  outputs: (_manifest, q) => [`census/p-${String(q).padStart(5, "0")}/counts.json`],
  async run(manifest, q, work, counters) {
    const counts: Record<string, number> = {};
    for (const tier of manifest.config.tiers) {
      let n = 0;
      for await (const _pair of readJsonl(work, layout.dedupPart(q, tier), ScoredPair)) n++;
      counts[tier] = n;
      counters.inc(`census.${tier}.pairs`, n);
    }
    await work.writeText(`census/p-${String(q).padStart(5, "0")}/counts.json`, JSON.stringify(counts) + "\n");
  },
});
const toyPipeline = definePipeline([extractPhase, groupPhase, { ...dedupPhase, next: "census" }, census, aggregatePhase]);

describe("a phase registered by the caller, local runner", () => {
  let sample: SampleDumps;
  beforeAll(async () => {
    sample = await multistreamSample();
  });

  it("runs between dedup and aggregate: markers per partition, the census counts every published pair, datasets unchanged", async () => {
    const [builtin, toy] = [await localReference(sample), await localReference(sample, toyPipeline)];
    const stats = Stats.parse(JSON.parse(readDir(toy).get("stats.json")!.toString()));
    for (const tier of ["gold", "silver", "bronze"]) expect(stats.counters[`census.${tier}.pairs`] ?? 0, tier).toBe(stats.tiers[tier]!.pairs);
    expect(stats.counters["census.partitions"]).toBe(PARTITIONS);
    expect(stats.tiers.gold!.pairs).toBeGreaterThan(0);
    expect(readdirSync(join(toy, ".work/census")).sort()).toEqual(Array.from({ length: PARTITIONS }, (_, q) => `p-${String(q).padStart(5, "0")}`));
    const [a, b] = [comparable(readDir(builtin), false), comparable(readDir(toy), false)];
    for (const name of ["gold.jsonl", "silver.jsonl", "bronze.jsonl", "config.json"]) expect(b[name], name).toBe(a[name]);
  }, 120_000);

  it("a pipeline that does not chain is refused, naming the phase", () => {
    expect(() => definePipeline([extractPhase, groupPhase, dedupPhase, census, aggregatePhase])).toThrow(/phase "dedup" is followed by "census" but names "aggregate"/);
    expect(() => definePipeline([extractPhase, groupPhase, { ...dedupPhase, next: "census" }, { ...census, next: "cencus" }, aggregatePhase])).toThrow(/unknown next phase "cencus"/);
    expect(() => definePipeline([extractPhase, { ...groupPhase, next: "aggregate" }, aggregatePhase, { ...dedupPhase, next: null }])).toThrow(/"aggregate" is followed by "dedup"/);
    expect(() => definePipeline([extractPhase, { ...groupPhase, name: "plan" }])).toThrow(/reserved/);
    expect(() => definePipeline([extractPhase, groupPhase, { ...dedupPhase, next: "census" }, { ...census, done: (k: string) => `tally/${k}.json` }, aggregatePhase])).toThrow(/markers must be named census\/…\/_DONE.json/);
  });
});

const missing = pubsubEmulatorMissing();
if (missing) skipMessage("toy phase on the cloud runner", missing);

describe.skipIf(missing !== null)("a phase registered by the caller, cloud runner on the emulators", () => {
  let emu: Emulators;
  let cloud: LocalCloud;
  let storage: Storage;
  let sample: SampleDumps;
  let deps: (CloudDeps & { close(): Promise<void> }) | null = null;

  beforeAll(async () => {
    [emu, sample] = await Promise.all([startEmulators(), multistreamSample()]);
    // The entry points of the toy pipeline, registered here; their environment (topics included) is
    // read from process.env, which startLocalCloud fills in before the first event.
    registerFunctions(() => (deps ??= createCloudDeps(readCloudEnv(process.env, toyPipeline.phases))), toyPipeline);
    cloud = await startLocalCloud({ emulators: emu, source: null, phases: toyPipeline.phases, partitions: PARTITIONS, shardBytes: SHARD_BYTES });
    storage = new Storage({ apiEndpoint: emu.gcsUrl, projectId: emu.projectId });
  });

  afterAll(async () => {
    await cloud?.stop();
    await deps?.close();
    await emu?.stop();
  });

  it("the census gets its topic and function and runs between dedup and aggregate; outputs equal the local runner's", async () => {
    expect(cloud.topics.census).toBe("paracap-census");
    expect(Object.keys(cloud.functions).sort()).toEqual(["aggregate", "census", "deadletter", "dedup", "extract", "group", "plan"]);
    const expected = comparable(readDir(await localReference(sample, toyPipeline)), false);
    const up = await paracap(["cloud", "upload", sample.current, sample.history, "--name", "toy"], cloud.env);
    expect(up.code, up.stderr).toBe(0);
    const runId = up.stdout.trim();
    await waitForRun(storage, cloud.buckets.output, runId, 120_000);
    const got = comparable(await readObjects(storage, cloud.buckets.output, `${runId}/`), true);
    expect(got["stats.json"]).toBe(expected["stats.json"]);
    expect(got).toEqual(expected);
    const work = [...(await readObjects(storage, cloud.buckets.work, `runs/${runId}/`)).keys()];
    expect(work.filter((n) => n.endsWith("_TRIGGERED")).sort()).toEqual(["census/_TRIGGERED", "dedup/_TRIGGERED", "extract/_TRIGGERED", "group/_TRIGGERED"]);
    expect(work.filter((n) => n.startsWith("census/") && n.endsWith("/counts.json"))).toHaveLength(PARTITIONS);
  }, 180_000);
});
