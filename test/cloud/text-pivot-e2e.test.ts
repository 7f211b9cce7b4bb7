/**
 * A text pivot in both runners: the min-hash pivot over real Conceptual Captions lines, uploaded with
 * a config (`paracap cloud upload --config`) and run through the emulators and the production
 * function handlers, must give what `paracap run` gives with the same config: every dataset byte,
 * the funnel and the pivot's counters. The pairs join captions of different images, so they depend
 * on the caption groups meeting across shards and partitions exactly as they do locally.
 */
import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulators } from "../../scripts/emulators/emulate.ts";
import type { LocalCloud } from "../../scripts/emulators/local-cloud.ts";
import { startCloudFixture, type CloudFixture } from "./cloud-fixture.ts";
import type { ScoredPair } from "../../shared/core/records.ts";
import { Stats } from "../../shared/output/stats.ts";
import { comparable, paracap, PARTITIONS, pubsubEmulatorMissing, readDir, readObjects, ROOT, skipMessage, waitForRun } from "./helpers.ts";
import { runCli } from "../runner/helpers.ts";

const FIXTURE = join(ROOT, "test/fixtures/data/conceptual-captions/gcc-validation-lines00001-02000-shared-urls.tsv");
const NAME = "gcc-validation-lines00001-02000-shared-urls.tsv";
/** 330 KB in 100 KB shards: 4 shards in the cloud, one locally */
const SHARD_BYTES = 100_000;
const TIERS = ["gold", "silver"] as const;
const CONFIG = { pivot: "minhash", tiers: [...TIERS], partitions: PARTITIONS };

const missing = pubsubEmulatorMissing();
if (missing) skipMessage("cloud text pivot e2e", missing);

describe.skipIf(missing !== null)("min-hash pivot: cloud = paracap run", () => {
  let fx: CloudFixture;
  let emu: Emulators;
  let cloud: LocalCloud;
  let storage: Storage;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "paracap-pivot-cloud-"));
    copyFileSync(FIXTURE, join(dir, NAME));
    writeFileSync(join(dir, "config.json"), JSON.stringify(CONFIG));
    fx = await startCloudFixture({ shardBytes: SHARD_BYTES });
    ({ emu, cloud, storage } = fx);
  });

  afterAll(async () => {
    await fx?.stop();
  });

  it("the uploaded run's datasets, funnel and pivot counters equal the local run's", async () => {
    const up = await paracap(["cloud", "upload", join(dir, NAME), "--config", join(dir, "config.json")], cloud.env);
    expect(up.code, up.stderr).toBe(0);
    const runId = up.stdout.trim();
    await waitForRun(storage, cloud.buckets.output, runId, 180_000);
    const got = comparable(await readObjects(storage, cloud.buckets.output, `${runId}/`), true, TIERS);

    const cli = await runCli(["run", "--input", NAME, "--out", "cli", "--config", "config.json", "--quiet"], { cwd: dir });
    expect(cli.code, cli.stderr).toBe(0);
    const local = comparable(readDir(join(dir, "cli")), false, TIERS);
    for (const t of TIERS) expect(got[`${t}.jsonl`], t).toBe(local[`${t}.jsonl`]);
    expect(got["config.json"]).toBe(local["config.json"]);
    const cloudStats = Stats.parse(JSON.parse(got["stats.json"]!));
    const cliStats = Stats.parse(JSON.parse(local["stats.json"]!));
    expect(cloudStats.tiers).toEqual(cliStats.tiers);
    expect(cloudStats.pivot).toEqual(cliStats.pivot);
    expect(cloudStats.pivot?.name).toBe("minhash");
    const { ["extract.shards"]: cloudShards, ...cloudCounters } = cloudStats.counters;
    const { ["extract.shards"]: cliShards, ...cliCounters } = cliStats.counters;
    expect([cloudShards, cliShards]).toEqual([4, 1]);
    expect(cloudCounters).toEqual(cliCounters);

    // the pairs are the pivot's: captions of two different images, exact Jaccard ≥ t
    const silver = got["silver.jsonl"]!.split("\n").filter(Boolean).map((l) => JSON.parse(l) as ScoredPair);
    expect(silver.length).toBeGreaterThan(0);
    for (const p of silver) {
      expect(p.pivot?.name).toBe("minhash");
      expect(p.a.image).not.toBe(p.b.image);
      expect(p.pivot!.jaccard).toBeGreaterThanOrEqual(0.5);
    }
  }, 300_000);
});
