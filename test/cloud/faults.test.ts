/**
 * Issue 3 fault tests through the emulators, with the production handlers and a work store that
 * fails when an extract task closes a partition file (fixtures/faulty-functions.ts):
 * - every extract shard crashes once mid-shard, after writing some partition files → Pub/Sub
 *   redelivers, the retry rewrites them, and the outputs equal the local runner's;
 * - one shard fails on every attempt → after 5 deliveries it ends in the dead-letter topic, the
 *   dead-letter function marks it failed, the rest of the run completes and says it is
 *   incomplete, and `paracap cloud status` reports it (uploads and most status reads in-process).
 */
import { PubSub, type Message } from "@google-cloud/pubsub";
import type { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulators } from "../../scripts/emulators/emulate.ts";
import type { LocalCloud } from "../../scripts/emulators/local-cloud.ts";
import { startCloudFixture, type CloudFixture } from "./cloud-fixture.ts";
import { pubsubClientOptions } from "../../scripts/emulators/pubsub-emulator.ts";
import { Stats } from "../../shared/output/stats.ts";
import { RunManifest } from "../../shared/tasks/manifest.ts";
import { faults } from "./fixtures/faulty-functions.ts";
import { runStatusOf, uploadRun } from "./in-process-cloud.ts";
import {
  comparable,
  localReference,
  multistreamSample,
  paracap,
  pubsubEmulatorMissing,
  readDir,
  readObjects,
  skipMessage,
  waitFor,
  waitForObject,
  waitForRun,
  type SampleDumps,
} from "./helpers.ts";

const FIXTURE = new URL("./fixtures/faulty-functions.ts", import.meta.url).pathname;
const missing = pubsubEmulatorMissing();
if (missing) skipMessage("cloud faults", missing);

describe.skipIf(missing !== null)("cloud runner under faults", () => {
  let fx: CloudFixture;
  let emu: Emulators;
  let cloud: LocalCloud;
  let storage: Storage;
  let sample: SampleDumps;
  let expected: Record<string, string>;
  let reference: Stats;

  beforeAll(async () => {
    [fx, sample] = await Promise.all([startCloudFixture({ source: FIXTURE, maxDeliveryAttempts: 5, minimumBackoff: 0, maximumBackoff: 1 }), multistreamSample()]);
    ({ emu, cloud, storage } = fx);
    const local = readDir(await localReference(sample));
    expected = comparable(local, false);
    reference = Stats.parse(JSON.parse(local.get("stats.json")!.toString()));
  });

  afterAll(async () => {
    await fx?.stop();
  });

  // Uploads and most status reads are in-process (the CLI is not under test here; e2e runs it): one
  // real `cloud status --json` child below checks the CLI's exit code and JSON for an incomplete run.
  async function upload(name: string): Promise<{ runId: string; manifest: RunManifest }> {
    const runId = await uploadRun(storage, cloud, [sample.current, sample.history], name);
    // waited for without a time bound of its own (the plan function writes it; a busy machine is slow)
    const text = await waitForObject(storage, cloud.buckets.work, `runs/${runId}/manifest.json`);
    return { runId, manifest: RunManifest.parse(JSON.parse(text)) };
  }

  it("extract crashes once mid-shard (after writing partition files) → retried, identical outputs", async () => {
    faults.crashOnceAfterParts = 2;
    let runId: string;
    let manifest: RunManifest;
    try {
      ({ runId, manifest } = await upload("sample-crash"));
      await waitForRun(storage, cloud.buckets.output, runId);
    } finally {
      faults.crashOnceAfterParts = null;
    }
    const crashed = faults.crashes.filter((k) => k.startsWith(`${runId}/`));
    // Every shard with ≥ 2 non-empty partitions crashed once (the history page's shard has one).
    expect(crashed.length).toBeGreaterThanOrEqual(4);
    expect(new Set(crashed).size).toBe(crashed.length);
    expect(crashed.every((k) => manifest.shards.some((s) => k === `${runId}/${s.id}`))).toBe(true);

    expect(comparable(await readObjects(storage, cloud.buckets.output, `${runId}/`), true)).toEqual(expected);
    const status = await runStatusOf(storage, cloud, runId);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("finished, complete");
    expect(status.stdout).not.toContain("dead-lettered");
  });

  // The two dead-letter cases mostly wait for redeliveries: they run at once, each fault limited to
  // its own run (faults.*Run), so neither touches the other's run.
  it.concurrent("a permanently failing shard → dead-letter topic, run completes INCOMPLETE, cloud status reports it", async ({ expect }) => {
    const pubsub = new PubSub(pubsubClientOptions(emu.pubsubHost, emu.projectId));
    const held: Message[] = [];
    const hold = pubsub.subscription(`${cloud.topics.extract}-dlq-hold`);
    hold.on("message", (m: Message) => {
      held.push(m);
      m.ack();
    });
    faults.failShard = "s00002-";
    faults.failShardRun = "sample-poison-shard";
    let runId: string;
    let manifest: RunManifest;
    try {
      ({ runId, manifest } = await upload("sample-poison-shard"));
      await waitForRun(storage, cloud.buckets.output, runId);
    } finally {
      faults.failShard = null;
      faults.failShardRun = null;
    }
    const failed = manifest.shards.find((s) => s.id.startsWith("s00002-"))!;
    expect(failed).toBeDefined();
    // Five deliveries, each failing after writing a partition file.
    expect(faults.crashes.filter((k) => k === `${runId}/${failed.id}`)).toHaveLength(5);

    // The message is in the dead-letter topic (its hold subscription keeps it listable).
    await waitFor(async () => held.length > 0, "the dead-lettered message in its hold subscription");
    await hold.close();
    await pubsub.close();
    const dead = held.map((m) => JSON.parse(m.data.toString()) as { runId: string; shardId: string });
    expect(dead).toContainEqual({ type: "extract", runId, shardId: failed.id });
    expect(held.find((m) => m.data.toString().includes(runId))!.attributes.CloudPubSubDeadLetterSourceDeliveryCount).toBe("5");

    // The partial partition files of the failed attempts were removed: nothing of that shard reaches the datasets.
    const work = await readObjects(storage, cloud.buckets.work, `runs/${runId}/extract/${failed.id}/`);
    expect([...work.keys()]).toEqual(["_DONE.json"]);
    expect(JSON.parse(work.get("_DONE.json")!.toString())).toMatchObject({ status: "failed", error: "dead-lettered after 5 delivery attempts" });
    const refs = await readObjects(storage, cloud.buckets.work, `runs/${runId}/data/extract/refs/`);
    expect([...refs.keys()].filter((n) => n.endsWith(`/${failed.id}.jsonl`))).toEqual([]);
    expect(refs.size).toBeGreaterThan(0);

    // The rest of the run completed and says it is incomplete.
    const outputs = await readObjects(storage, cloud.buckets.output, `${runId}/`);
    expect([...outputs.keys()].sort()).toEqual(["README.md", "_SUCCESS", "bronze.jsonl.gz", "bronze.parquet", "config.json", "gold.jsonl.gz", "gold.parquet", "report.html", "report.md", "silver.jsonl.gz", "silver.parquet", "stats.json"]);
    expect(JSON.parse(outputs.get("_SUCCESS")!.toString())).toMatchObject({ complete: false });
    // the report and the dataset card say so too, naming the missing shard
    expect(outputs.get("report.html")!.toString()).toMatch(/✘ Incomplete: \d+ of \d+ shards read completely; 0 damaged, 1 missing/);
    expect(outputs.get("report.html")!.toString()).toContain(`<code>${failed.id}</code>`);
    expect(outputs.get("README.md")!.toString()).toContain("**The run was incomplete**");
    const stats = Stats.parse(JSON.parse(outputs.get("stats.json")!.toString()));
    expect(stats.complete).toBe(false);
    expect(stats.shards).toMatchObject({ total: manifest.shards.length, ok: manifest.shards.length - 1, missing: [failed.id] });
    expect(stats.counters["extract.shards"]).toBe(manifest.shards.length - 1);
    expect(stats.counters["dump.pages"]!).toBeGreaterThan(0);
    expect(stats.counters["dump.pages"]!).toBeLessThan(reference.counters["dump.pages"]!);

    const status = await runStatusOf(storage, cloud, runId);
    expect(status.code).toBe(3);
    expect(status.stdout).toContain(`run ${runId}: finished, INCOMPLETE`);
    expect(status.stdout).toContain(`extract shards: ${manifest.shards.length - 1}/${manifest.shards.length} done, 1 failed, 0 pending`);
    expect(status.stdout).toContain(`failed shard ${failed.id}`);
    expect(status.stdout).toMatch(new RegExp(`dead-lettered: .*"shardId":"${failed.id.replace(/[.@]/g, "\\$&")}".*after 5 delivery attempts`));
    const json = await paracap(["cloud", "status", runId, "--json"], cloud.env);
    expect(json.code, json.stderr).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({ finished: true, complete: false, shards: { failed: [failed.id] } });
  });

  it.concurrent("a permanently failing group partition → dead-letter topic, run completes INCOMPLETE without its images", async ({ expect }) => {
    const P = 3;
    faults.failGroupPartition = P;
    faults.failGroupRun = "sample-poison-group";
    let runId: string;
    let manifest: RunManifest;
    try {
      ({ runId, manifest } = await upload("sample-poison-group"));
      await waitForRun(storage, cloud.buckets.output, runId);
    } finally {
      faults.failGroupPartition = null;
      faults.failGroupRun = null;
    }
    expect(faults.crashes.filter((k) => k === `${runId}/group-${P}`)).toHaveLength(5);

    // Its partial outputs are gone and its marker says failed; the other partitions finished.
    const work = await readObjects(storage, cloud.buckets.work, `runs/${runId}/group/p-${String(P).padStart(5, "0")}/`);
    expect([...work.keys()]).toEqual(["_DONE.json"]);
    expect(JSON.parse(work.get("_DONE.json")!.toString())).toMatchObject({ status: "failed", error: "dead-lettered after 5 delivery attempts" });

    const outputs = await readObjects(storage, cloud.buckets.output, `${runId}/`);
    expect(JSON.parse(outputs.get("_SUCCESS")!.toString())).toMatchObject({ complete: false });
    const stats = Stats.parse(JSON.parse(outputs.get("stats.json")!.toString()));
    expect(stats).toMatchObject({ complete: false, failedTasks: [`group-${P}`], shards: { total: manifest.shards.length, ok: manifest.shards.length, corrupt: [], missing: [] } });
    // Every shard was read, so extraction matches the complete run; the funnel lacks that partition's images.
    expect(stats.extraction).toEqual(reference.extraction);
    const all = (s: Stats) => s.tiers.gold!.funnel[0]!.images!;
    expect(all(stats)).toBeGreaterThan(0);
    expect(all(stats)).toBeLessThan(all(reference));
    expect(outputs.get("report.md")!.toString()).toContain(`**Failed partitions**`);

    const status = await runStatusOf(storage, cloud, runId);
    expect(status.code).toBe(3);
    expect(status.stdout).toContain(`run ${runId}: finished, INCOMPLETE`);
    expect(status.stdout).toContain(`failed partition group-${P}`);
    expect(status.stdout).toMatch(/dead-lettered: .*"type":"group".*after 5 delivery attempts/);
  });
});
