/**
 * The phase seam as a contributor meets it: a phase defined here, in the test only, that transforms
 * data between group and dedup. "blocklist" reads the candidate pairs the group phase wrote, drops
 * those whose image is on a list it receives as a service through the task context, counts each
 * drop as a funnel row of its own, and writes the rest under the same dataset name, which dedup then
 * reads without knowing the phase is there. It runs through the local runner and through the cloud
 * runner on the emulators (its own topic, function, fan-in and messages, all derived from the
 * pipeline value) with no other file knowing it; both give the same outputs.
 */
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulators, type Emulators } from "../../scripts/emulators/emulate.ts";
import { startLocalCloud, type LocalCloud } from "../../scripts/emulators/local-cloud.ts";
import { createCloudDeps } from "../../functions/deps.ts";
import { registerFunctions } from "../../functions/handlers.ts";
import { readCloudEnv } from "../../shared/cloud/env.ts";
import type { CloudDeps } from "../../shared/cloud/cloud-stages.ts";
import { defineFilter } from "../../shared/core/filter.ts";
import { CandidatePair, ScoredPair } from "../../shared/core/records.ts";
import { pairPasses } from "../../shared/pipeline/dedup-stage.ts";
import { Stats } from "../../shared/output/stats.ts";
import { aggregatePhase } from "../../shared/tasks/aggregate-task.ts";
import { withWriter } from "../../shared/tasks/datasets.ts";
import { dedupPhase } from "../../shared/tasks/dedup-task.ts";
import { extractPhase } from "../../shared/tasks/extract-task.ts";
import { groupPhase } from "../../shared/tasks/group-task.ts";
import { partitionOfUnit, partitionTask } from "../../shared/tasks/phase-task.ts";
import { definePipeline } from "../../shared/tasks/phases.ts";
import { resolveConfig } from "../../shared/core/config.ts";
import { runLocal } from "../../shared/runner/local-runner.ts";
import { DATA } from "../runner/helpers.ts";
import { cloudCli } from "./in-process-cloud.ts";
import { comparable, localReference, multistreamSample, PARTITIONS, pubsubEmulatorMissing, readDir, readObjects, SHARD_BYTES, skipMessage, waitForRun, type SampleDumps } from "./helpers.ts";

/** The service the phase receives: images whose pairs must go. */
interface Blocklist { has(image: string): boolean }

const blockFilter = (list: Blocklist) =>
  defineFilter<CandidatePair>({ name: "not_blocked", version: 1, paperStep: null, unit: "pair", description: "image not on the block list", keep: (p) => (list.has(p.image) ? { drop: "blocked_image" } : true) });

const blocklist = partitionTask({
  name: "block-list",
  next: "dedup",
  reads: [],
  writes: ["work"],
  memory: "512Mi",
  consumes: ["pairs"],
  produces: [{ name: "pairs", schema: CandidatePair }],
  configKeys: ["partitions"],
  funnelFilters: () => [blockFilter({ has: () => false })],
  async run(ctx) {
    const q = partitionOfUnit("block-list", ctx.unit);
    const filter = [blockFilter(ctx.service<Blocklist>("blocklist"))];
    await withWriter(ctx.write<CandidatePair>("pairs"), async (out) => {
      for await (const pair of ctx.read<CandidatePair>("pairs").read(q)) if (await pairPasses(filter, pair, ctx.counters)) await out.write(q, pair);
    });
  },
});
const toyPipeline = definePipeline([extractPhase, { ...groupPhase, next: "block-list" }, blocklist, dedupPhase, aggregatePhase]);

/** The cloud deployment's list: filled from the built-in pipeline's output before the first upload (its deps are made on the first event). */
const BLOCKED = new Set<string>();

const jsonl = (text: string | undefined) => (text ?? "").split("\n").filter(Boolean).map((l) => ScoredPair.parse(JSON.parse(l)));

/** The sample, the built-in pipeline's outputs on it and the toy pipeline's: made once for both runners. */
let sample: SampleDumps;
let builtin: string;
let blocked: string;
let toy: string;
beforeAll(async () => {
  sample = await multistreamSample();
  builtin = await localReference(sample);
  blocked = jsonl(readDir(builtin).get("gold.jsonl")?.toString())[0]!.image;
  BLOCKED.add(blocked);
  toy = await localReference(sample, toyPipeline, { blocklist: BLOCKED });
});

describe("a transforming phase registered by the caller, local runner", () => {
  it("drops the listed image's pairs before dedup, counts them in the funnel, and leaves every other pair as it was", async () => {
    const [a, b] = [readDir(builtin), readDir(toy)];
    const stats = Stats.parse(JSON.parse(b.get("stats.json")!.toString()));
    for (const tier of ["gold", "silver", "bronze"]) {
      const before = jsonl(a.get(`${tier}.jsonl`)?.toString());
      const after = jsonl(b.get(`${tier}.jsonl`)?.toString());
      expect(after, tier).toEqual(before.filter((p) => p.image !== blocked));
      const row = stats.tiers[tier]!.funnel.find((r) => r.id === "not_blocked_v1")!;
      expect(row, tier).toBeDefined();
      // its row sits between the group rows and unique-candidate dedup, and accounts for every candidate it saw
      const ids = stats.tiers[tier]!.funnel.map((r) => r.id);
      expect(ids.indexOf("not_blocked_v1")).toBe(ids.indexOf("unique_v1") - 1);
      expect(row.filter!.in).toBe(stats.counters[`group.${tier}.pairs`] ?? 0);
      expect(row.filter!.kept + row.filter!.dropped).toBe(row.filter!.in);
      expect(row.candidates).toBe(row.filter!.kept);
    }
    expect(stats.tiers.gold!.funnel.find((r) => r.id === "not_blocked_v1")!.filter!.reasons).toMatchObject({ blocked_image: expect.any(Number) });
    expect(stats.counters["block-list.partitions"]).toBe(PARTITIONS);
    expect(readdirSync(join(toy, ".work/data/block-list/pairs")).length).toBeGreaterThan(0);
  });

  it("a pipeline whose phase reads data nobody wrote, or asks for a service it was not given, says so", async () => {
    expect(() => definePipeline([{ ...extractPhase, next: "block-list" }, { ...blocklist, next: "group" }, groupPhase, dedupPhase, aggregatePhase])).toThrow(/phase "block-list" consumes dataset "pairs", which no earlier phase produces \(produced so far: refs\)/);
    // the service is asked for when the phase runs, whatever the input: a small real dump (25 KB) gets
    // there without extracting and grouping the whole sample again
    const small = { path: join(DATA, "wikipedia/wikipedia2vec-enwiki-pages-articles-sample.xml.bz2"), kind: "current" as const };
    const out = join(mkdtempSync(join(tmpdir(), "paracap-toy-no-service-")), "out");
    await expect(runLocal({ inputs: [small], outDir: out, config: resolveConfig({ partitions: PARTITIONS }), workers: 1, progress: null, pipeline: toyPipeline })).rejects.toThrow(
      /phase "block-list" needs the service "blocklist", which the runner was not given/,
    );
  });
});

const missing = pubsubEmulatorMissing();
if (missing) skipMessage("toy phase on the cloud runner", missing);

describe.skipIf(missing !== null)("a transforming phase registered by the caller, cloud runner on the emulators", () => {
  let emu: Emulators;
  let cloud: LocalCloud;
  let storage: Storage;
  let deps: (CloudDeps & { close(): Promise<void> }) | null = null;

  beforeAll(async () => {
    emu = await startEmulators();
    // The entry points of the toy pipeline, registered here; their environment (topics included) is
    // read from process.env, which startLocalCloud fills in before the first event.
    registerFunctions(() => (deps ??= { ...createCloudDeps(readCloudEnv(process.env, toyPipeline.phases)), services: { blocklist: BLOCKED } }), toyPipeline);
    cloud = await startLocalCloud({ emulators: emu, source: null, phases: toyPipeline.phases, partitions: PARTITIONS, shardBytes: SHARD_BYTES });
    storage = new Storage({ apiEndpoint: emu.gcsUrl, projectId: emu.projectId });
  });

  afterAll(async () => {
    await cloud?.stop();
    await deps?.close();
    await emu?.stop();
  });

  it("the block list gets its topic and function and runs between group and dedup, with its service; outputs equal the local runner's", async () => {
    expect(cloud.topics["block-list"]).toBe("paracap-block-list");
    expect(Object.keys(cloud.functions).sort()).toEqual(["aggregate", "block-list", "deadletter", "dedup", "extract", "group", "plan"]);
    const expected = comparable(readDir(toy), false);
    const up = await cloudCli(["cloud", "upload", sample.current, sample.history, "--name", "toy"]);
    expect(up.code, up.stderr).toBe(0);
    const runId = up.stdout.trim();
    await waitForRun(storage, cloud.buckets.output, runId);
    const got = comparable(await readObjects(storage, cloud.buckets.output, `${runId}/`), true);
    expect(got["stats.json"]).toBe(expected["stats.json"]);
    expect(got).toEqual(expected);
    const work = [...(await readObjects(storage, cloud.buckets.work, `runs/${runId}/`)).keys()];
    expect(work.filter((n) => n.endsWith("_TRIGGERED")).sort()).toEqual(["block-list/_TRIGGERED", "dedup/_TRIGGERED", "extract/_TRIGGERED", "group/_TRIGGERED"]);
    expect(work.filter((n) => n.startsWith("block-list/") && n.endsWith("/_DONE.json"))).toHaveLength(PARTITIONS);
    expect(JSON.parse(got["stats.json"]!).counters["filter.gold.not_blocked_v1.dropped"]).toBeGreaterThan(0);
  });
});
