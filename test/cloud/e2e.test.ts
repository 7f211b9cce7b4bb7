/**
 * Issue 3 acceptance, end to end through the emulators: the embedded sample, repacked as
 * multistream dumps and split into 6 shards, goes up with `paracap cloud upload`, runs through the
 * production function handlers (functions/index.ts, served in-process by the functions framework)
 * over Cloud Storage and Pub/Sub emulators, and must produce exactly what the local runner
 * produces on the same files. Then again with every message and event delivered twice.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulators } from "../../scripts/emulators/emulate.ts";
import type { LocalCloud } from "../../scripts/emulators/local-cloud.ts";
import { startCloudFixture, type CloudFixture } from "./cloud-fixture.ts";
import { RunManifest } from "../../shared/tasks/manifest.ts";
import { cloudCli, uploadRun } from "./in-process-cloud.ts";
import { Stats } from "../../shared/output/stats.ts";
import {
  comparable,
  localReference,
  multistreamSample,
  paracap,
  pubsubEmulatorMissing,
  readDir,
  readObjects,
  skipMessage,
  waitForRun,
  type SampleDumps,
} from "./helpers.ts";

/** where `cloud fetch` writes (not the shared sample's folder) */
const fetchRoot = mkdtempSync(join(tmpdir(), "paracap-e2e-fetch-"));

const missing = pubsubEmulatorMissing();
if (missing) skipMessage("cloud e2e", missing);

describe.skipIf(missing !== null)("cloud runner end to end on the emulators", () => {
  let fx: CloudFixture;
  let emu: Emulators;
  let cloud: LocalCloud;
  let storage: Storage;
  let sample: SampleDumps;
  let expected: Record<string, string>;
  let firstRun: { runId: string; outputs: Map<string, Buffer> };

  beforeAll(async () => {
    [fx, sample] = await Promise.all([startCloudFixture(), multistreamSample()]);
    ({ emu, cloud, storage } = fx);
    expected = comparable(readDir(await localReference(sample)), false);
  });

  afterAll(async () => {
    await fx?.stop();
    rmSync(fetchRoot, { recursive: true, force: true });
  });

  async function uploadAndWait(name: string): Promise<string> {
    const up = await paracap(["cloud", "upload", sample.current, sample.history, "--name", name], cloud.env);
    expect(up.stderr).toContain(`uploading run manifest → gs://${cloud.buckets.input}/${name}.manifest.json`);
    expect(up.code).toBe(0);
    const runId = up.stdout.trim();
    expect(runId).toMatch(new RegExp(`^${name}-[0-9a-f]{8}$`));
    await waitForRun(storage, cloud.buckets.output, runId);
    return runId;
  }

  it("sample in ≥ 4 shards → the local runner's gold/silver/bronze, stats funnel and report", async () => {
    const runId = await uploadAndWait("sample");
    const manifest = RunManifest.parse(JSON.parse((await storage.bucket(cloud.buckets.work).file(`runs/${runId}/manifest.json`).download())[0].toString()));
    expect(manifest.shards.length).toBeGreaterThanOrEqual(4);
    expect(manifest.shards.filter((s) => s.uri === sample.currentName).length).toBeGreaterThanOrEqual(4);
    expect(manifest.shards.some((s) => s.kind === "history")).toBe(true);

    const outputs = await readObjects(storage, cloud.buckets.output, `${runId}/`);
    expect([...outputs.keys()].sort()).toEqual(["README.md", "_SUCCESS", "bronze.jsonl.gz", "bronze.parquet", "config.json", "gold.jsonl.gz", "gold.parquet", "report.html", "report.md", "silver.jsonl.gz", "silver.parquet", "stats.json"]);
    const got = comparable(outputs, true);
    expect(got["stats.json"]).toBe(expected["stats.json"]);
    expect(got).toEqual(expected);
    const stats = Stats.parse(JSON.parse(got["stats.json"]!));
    expect(stats.complete).toBe(true);
    expect(stats.shards.total).toBe(manifest.shards.length);
    for (const t of ["gold", "silver"]) expect(stats.tiers[t]!.pairs).toBeGreaterThan(0);
    // bronze's one candidate on the sample is the Ideomap typo fix, dropped as a spelling fix
    expect(stats.tiers.bronze!.funnel.at(-1)!.filter!.reasons).toEqual({ spelling_fix: 1 });
    firstRun = { runId, outputs };

    // The CLI against the same emulator: status, then fetch, by its main() in this process (the upload
    // above is a real child; emulate-restart runs status and fetch as children too).
    const status = await cloudCli(["cloud", "status", runId]);
    expect(status.stderr).toBe("");
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`run ${runId}: finished, complete`);
    expect(status.stdout).toContain(`extract shards: ${manifest.shards.length}/${manifest.shards.length} done, 0 failed, 0 pending`);
    const dir = join(fetchRoot, runId);
    // an earlier fetch's (or local run's) tier file that this run does not have goes, said
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "gold.jsonl"), "{}\n");
    const fetched = await cloudCli(["cloud", "fetch", runId, dir]);
    expect(fetched.code).toBe(0);
    expect(fetched.stderr).toContain("gold.jsonl: an earlier fetch's");
    expect(comparable(readDir(dir), true)).toEqual(expected);
    // a run that was never planned is said as such, not as "not finished"
    const unknown = await cloudCli(["cloud", "fetch", "no-such-run-0000abcd", join(fetchRoot, "x")]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no run no-such-run-0000abcd in .*not planned yet/);
  });

  it("every message and event delivered twice (concurrently) → byte-identical outputs, no double counting", async () => {
    expect(firstRun).toBeDefined();
    cloud.setDeliveries(2);
    let runId: string;
    try {
      // uploaded in-process: the first case ran the CLI's upload
      runId = await uploadRun(storage, cloud, [sample.current, sample.history], "sample-twice");
      await waitForRun(storage, cloud.buckets.output, runId);
    } finally {
      cloud.setDeliveries(1);
    }
    const outputs = await readObjects(storage, cloud.buckets.output, `${runId}/`);
    expect(comparable(outputs, true)).toEqual(expected);
    // Not just equal after decompression: the same bytes as the run delivered once.
    for (const name of ["gold.jsonl.gz", "silver.jsonl.gz", "bronze.jsonl.gz", "stats.json", "config.json", "gold.parquet", "README.md"]) {
      expect(outputs.get(name)!.equals(firstRun.outputs.get(name)!), name).toBe(true);
    }
    // Each phase started its successor exactly once per winning message: one trigger per phase.
    const work = await readObjects(storage, cloud.buckets.work, `runs/${runId}/`);
    expect([...work.keys()].filter((n) => n.endsWith("_TRIGGERED")).sort()).toEqual(["dedup/_TRIGGERED", "extract/_TRIGGERED", "group/_TRIGGERED"]);
  });

  it("a late redelivery of finished tasks changes nothing", async () => {
    const { runId } = firstRun;
    const before = await storage.bucket(cloud.buckets.output).file(`${runId}/_SUCCESS`).getMetadata();
    const push = async (target: "extract" | "aggregate", topic: string, task: unknown) => {
      const res = await fetch(cloud.functions[target]!.rawPushEndpoint(topic, emu.projectId), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          message: { data: Buffer.from(JSON.stringify(task)).toString("base64"), messageId: `late-${target}`, publishTime: new Date().toISOString() },
          subscription: `projects/${emu.projectId}/subscriptions/${topic}-push`,
        }),
      });
      expect(res.status, await res.text()).toBeLessThan(300);
    };
    const manifest = RunManifest.parse(JSON.parse((await storage.bucket(cloud.buckets.work).file(`runs/${runId}/manifest.json`).download())[0].toString()));
    await push("extract", cloud.topics.extract!, { type: "extract", runId, shardId: manifest.shards[0]!.id });
    await push("aggregate", cloud.topics.aggregate!, { type: "aggregate", runId });
    const after = await storage.bucket(cloud.buckets.output).file(`${runId}/_SUCCESS`).getMetadata();
    expect(after[0].generation).toBe(before[0].generation);
    const outputs = await readObjects(storage, cloud.buckets.output, `${runId}/`);
    for (const [name, bytes] of firstRun.outputs) expect(outputs.get(name)!.equals(bytes), name).toBe(true);
  });
});
