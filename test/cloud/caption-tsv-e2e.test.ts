/**
 * Conceptual Captions, local = cloud: a caption list (`.tsv`) uploaded to the input bucket is a run
 * (shared/cloud/plan-run.ts), and through the emulators and the production function handlers it
 * must give what `paracap run --input <file>.tsv` gives. The fixture is real CC lines whose URLs
 * were regrouped so that images have several captions (test/fixtures/data/conceptual-captions/
 * PROVENANCE.md): pairs are built, the equivalence-set bound drops some, the pair filters act.
 *
 * A text pivot in both runners, on the same lines and the same emulators (one start for both): the
 * min-hash pivot, uploaded with a config (`paracap cloud upload --config`), must give what `paracap
 * run` gives with the same config: every dataset byte, the funnel and the pivot's counters. Its pairs
 * join captions of different images, so they depend on the caption groups meeting across shards and
 * partitions exactly as they do locally.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalCloud } from "../../scripts/emulators/local-cloud.ts";
import { startCloudFixture, type CloudFixture } from "./cloud-fixture.ts";
import { resolveConfig } from "../../shared/core/config.ts";
import type { ScoredPair } from "../../shared/core/records.ts";
import { Stats } from "../../shared/output/stats.ts";
import { runLocal } from "../../shared/runner/local-runner.ts";
import { RunManifest } from "../../shared/tasks/manifest.ts";
import { reconcile } from "../pipeline/reconcile.ts";
import { comparable, paracap, PARTITIONS, pubsubEmulatorMissing, readDir, readObjects, ROOT, skipMessage, waitForRun } from "./helpers.ts";
import { inProcessCli, type InProcessResult } from "../support/in-process-cli.ts";
import { cloudCli } from "./in-process-cloud.ts";

const FIXTURE = join(ROOT, "test/fixtures/data/conceptual-captions/gcc-validation-lines00001-02000-shared-urls.tsv");
const NAME = "gcc-validation-lines00001-02000-shared-urls.tsv";
/** 330 KB in 100 KB shards: 4 shards, each starting mid-line */
const SHARD_BYTES = 100_000;
/** a caption list feeds gold and silver (bronze needs a full-history dump) */
const TIERS = ["gold", "silver"] as const;
const PIVOT_CONFIG = { pivot: "minhash", tiers: [...TIERS], partitions: PARTITIONS };

const missing = pubsubEmulatorMissing();
if (missing) skipMessage("cloud caption-tsv e2e", missing);

/**
 * `paracap <args>` run from `cwd`, so its input name is the bare file name, as the object's is: by
 * the CLI's main() in this process (what is compared is its outputs; e2e and the CLI tests run the
 * real children).
 */
async function paracapIn(cwd: string, args: string[]): Promise<InProcessResult> {
  const back = process.cwd();
  process.chdir(cwd);
  try {
    return await inProcessCli(args);
  } finally {
    process.chdir(back);
  }
}

/**
 * The cloud run's outputs against `paracap run`'s in `dir`/cli: the datasets and config.json byte for
 * byte, the funnel, and every counter but the shard count (4 in the cloud, one locally).
 */
function expectSameAsCli(got: Record<string, string>, dir: string): { cloudStats: Stats; cliStats: Stats } {
  const local = comparable(readDir(join(dir, "cli")), false, TIERS);
  for (const t of TIERS) expect(got[`${t}.jsonl`], t).toBe(local[`${t}.jsonl`]);
  expect(got["config.json"]).toBe(local["config.json"]);
  const cloudStats = Stats.parse(JSON.parse(got["stats.json"]!));
  const cliStats = Stats.parse(JSON.parse(local["stats.json"]!));
  expect(cloudStats.tiers).toEqual(cliStats.tiers);
  const { ["extract.shards"]: cloudShards, ...cloudCounters } = cloudStats.counters;
  const { ["extract.shards"]: cliShards, ...cliCounters } = cliStats.counters;
  expect([cloudShards, cliShards]).toEqual([4, 1]);
  expect(cloudCounters).toEqual(cliCounters);
  return { cloudStats, cliStats };
}

let fx: CloudFixture;
let cloud: LocalCloud;
let storage: Storage;

beforeAll(async () => {
  if (missing !== null) return;
  fx = await startCloudFixture({ shardBytes: SHARD_BYTES });
  ({ cloud, storage } = fx);
});

afterAll(async () => {
  await fx?.stop();
});

describe.skipIf(missing !== null)("Conceptual Captions: cloud upload = paracap run", () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "paracap-cc-cloud-"));
    copyFileSync(FIXTURE, join(dir, NAME));
  });

  it("the uploaded .tsv runs in 4 shards and equals `paracap run --input` (datasets, funnel) and the local runner with the same shards (every output)", async () => {
    const up = await paracap(["cloud", "upload", join(dir, NAME)], cloud.env);
    expect(up.stderr).toContain(`→ gs://${cloud.buckets.input}/${NAME}`);
    expect(up.code).toBe(0);
    const runId = up.stdout.trim();
    await waitForRun(storage, cloud.buckets.output, runId);
    const manifest = RunManifest.parse(JSON.parse((await storage.bucket(cloud.buckets.work).file(`runs/${runId}/manifest.json`).download())[0].toString()));
    expect(manifest.shards.map((s) => [s.source, s.start])).toEqual([["caption-tsv", 0], ["caption-tsv", 100_000], ["caption-tsv", 200_000], ["caption-tsv", 300_000]]);
    const outputs = await readObjects(storage, cloud.buckets.output, `${runId}/`);
    expect([...outputs.keys()].sort()).toEqual(["README.md", "_SUCCESS", "config.json", "gold.jsonl.gz", "gold.parquet", "report.html", "report.md", "silver.jsonl.gz", "silver.parquet", "stats.json"]);
    const got = comparable(outputs, true, TIERS);

    // 1. The CLI as a user runs it (one shard: its default shard size is larger than the file).
    const cli = await paracapIn(dir, ["run", "--input", NAME, "--out", "cli", "--partitions", String(PARTITIONS), "--quiet"]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stderr).toContain("silver.jsonl: 25 pairs");
    const { cloudStats, cliStats } = expectSameAsCli(got, dir);
    expect({ ...cloudStats.extraction, "extract.shards": 1 }).toEqual(cliStats.extraction);

    // 2. The local runner with the cloud's shard size: every output byte for byte (report but its timing line).
    const sameShards = join(dir, "same-shards");
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      await runLocal({ inputs: [{ path: NAME, kind: "current" }], outDir: sameShards, config: resolveConfig({ partitions: PARTITIONS, tiers: [...TIERS] }), workers: 1, progress: null, shardBytes: SHARD_BYTES });
    } finally {
      process.chdir(cwd);
    }
    expect(got).toEqual(comparable(readDir(sameShards), false, TIERS));

    // The funnel says something: pairs, the set bound and the pair filters acted, and it reconciles.
    expect(reconcile(cloudStats, { gold: got["gold.jsonl"]!.split("\n").filter(Boolean).length, silver: got["silver.jsonl"]!.split("\n").filter(Boolean).length })).toEqual([]);
    const silver = cloudStats.tiers.silver!;
    expect(silver.pairs).toBe(25);
    expect(silver.funnel.find((r) => r.id === "set_size_bound_v1")!.filter!.reasons).toEqual({ set_too_large: 42 });
    expect(readFileSync(join(dir, "cli", "report.md"), "utf8")).toContain("2,000 caption lines read = 2,000 used.");
  });
});

describe.skipIf(missing !== null)("min-hash pivot: cloud = paracap run", () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "paracap-pivot-cloud-"));
    copyFileSync(FIXTURE, join(dir, NAME));
    writeFileSync(join(dir, "config.json"), JSON.stringify(PIVOT_CONFIG));
  });

  it("the uploaded run's datasets, funnel and pivot counters equal the local run's", async () => {
    const up = await cloudCli(["cloud", "upload", join(dir, NAME), "--config", join(dir, "config.json")]);
    expect(up.code, up.stderr).toBe(0);
    const runId = up.stdout.trim();
    await waitForRun(storage, cloud.buckets.output, runId);
    const got = comparable(await readObjects(storage, cloud.buckets.output, `${runId}/`), true, TIERS);

    const cli = await paracapIn(dir, ["run", "--input", NAME, "--out", "cli", "--config", "config.json", "--quiet"]);
    expect(cli.code, cli.stderr).toBe(0);
    const { cloudStats, cliStats } = expectSameAsCli(got, dir);
    expect(cloudStats.pivot).toEqual(cliStats.pivot);
    expect(cloudStats.pivot?.name).toBe("minhash");

    // the pairs are the pivot's: captions of two different images, exact Jaccard ≥ t
    const silver = got["silver.jsonl"]!.split("\n").filter(Boolean).map((l) => JSON.parse(l) as ScoredPair);
    expect(silver.length).toBeGreaterThan(0);
    for (const p of silver) {
      expect(p.pivot?.name).toBe("minhash");
      expect(p.a.image).not.toBe(p.b.image);
      expect(p.pivot!.jaccard).toBeGreaterThanOrEqual(0.5);
    }
  });
});
