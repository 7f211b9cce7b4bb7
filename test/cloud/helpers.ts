/**
 * Shared pieces of the cloud runner tests: the embedded sample repacked as multistream dumps, the
 * local runner's outputs on the same files (the reference), and the real CLI.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { Storage } from "@google-cloud/storage";
import { resolveConfig, type ParacapConfig } from "../../shared/core/config.ts";
import { writeMultistream } from "../../shared/dump/multistream.ts";
import { runLocal } from "../../shared/runner/local-runner.ts";
import type { Pipeline } from "../../shared/tasks/phases.ts";
import type { Services } from "../../shared/tasks/phase-task.ts";
import { runCli, type CliResult } from "../runner/helpers.ts";
import { findEmulatorJar } from "../../scripts/emulators/pubsub-emulator.ts";
import { once } from "../support/once.ts";

export const ROOT = new URL("../../", import.meta.url).pathname;
export const SAMPLE_DIR = join(ROOT, "shared/sample");
export const SAMPLE_CURRENT = join(SAMPLE_DIR, "enwiki-2016-pages-articles1-sample.xml.bz2");
export const SAMPLE_HISTORY = join(SAMPLE_DIR, "enwiki-Anarchism-history-sample.xml.bz2");

/** Shuffle partitions and shard size of the cloud tests: the 1.7 MB sample becomes 5 + 1 shards. */
export const PARTITIONS = 4;
export const SHARD_BYTES = 300_000;
export const TIERS = ["gold", "silver", "bronze"] as const;

/** Why the Pub/Sub emulator cannot run here, or null when it can. */
export function pubsubEmulatorMissing(): string | null {
  const java = spawnSync("java", ["-version"], { encoding: "utf8" });
  if (java.error || java.status !== 0) return "java is not installed";
  try {
    findEmulatorJar();
  } catch (e) {
    return (e as Error).message;
  }
  return null;
}

export function skipMessage(suite: string, why: string): void {
  console.warn(`[${suite}] SKIPPED: the Pub/Sub emulator cannot run (${why}). Install Java 17+ and google-cloud-cli-pubsub-emulator (see .ci/run).`);
}

export interface SampleDumps {
  dir: string;
  current: string;
  history: string;
  /** object names = file names */
  currentName: string;
  historyName: string;
}

/**
 * The embedded sample as two multistream dumps with indexes (20 pages per stream): made once per
 * test run and shared by the files that ask (test/support/once.ts); read it, never write into it.
 */
export async function multistreamSample(): Promise<SampleDumps> {
  const currentName = "enwiki-20160113-pages-articles-multistream.xml.bz2";
  const historyName = "enwiki-Anarchism-pages-meta-history-multistream.xml.bz2";
  const dir = await once("cloud-sample", async (to) => {
    mkdirSync(to);
    await writeMultistream(SAMPLE_CURRENT, join(to, currentName), { pagesPerStream: 20 });
    await writeMultistream(SAMPLE_HISTORY, join(to, historyName), { pagesPerStream: 20 });
  });
  return { dir, current: join(dir, currentName), history: join(dir, historyName), currentName, historyName };
}

export function cloudConfig(): ParacapConfig {
  return resolveConfig({ partitions: PARTITIONS });
}

/**
 * The local runner on the same files, run from their directory so its input names equal the
 * object names (stats.json then has to match byte for byte). The default pipeline's outputs on the
 * shared sample are made once per test run (read them, never write into them).
 */
export async function localReference(sample: SampleDumps, pipeline?: Pipeline, services?: Services): Promise<string> {
  const runIn = async (out: string) => {
    const cwd = process.cwd();
    process.chdir(sample.dir);
    try {
      await runLocal({
        inputs: [
          { path: sample.currentName, kind: "current" },
          { path: sample.historyName, kind: "history" },
        ],
        outDir: out,
        config: cloudConfig(),
        workers: 1,
        progress: null,
        shardBytes: SHARD_BYTES,
        pipeline,
        services,
      });
    } finally {
      process.chdir(cwd);
    }
  };
  if (pipeline === undefined && services === undefined && sample.dir === (await multistreamSample()).dir) return once("cloud-sample-reference", runIn);
  const out = mkdtempSync(join(tmpdir(), "paracap-local-ref-"));
  await runIn(out);
  return out;
}

export type { CliResult } from "../runner/helpers.ts";

/** bin/paracap.js in a child process. */
export function paracap(args: string[], env: Record<string, string>): Promise<CliResult> {
  return runCli(args, { env, cwd: ROOT });
}

/**
 * Polls until `probe` gives a value. The bound is generous (a busy 2-core machine can be many times
 * slower than an idle one): it only keeps a broken run from hanging the suite. The pause between
 * polls grows from 0.2 to 1 s: a poll of the emulated storage costs ~2 ms of this process's CPU
 * (client and server), and a run waited for at 5 polls a second cost ~1 CPU-s a minute.
 */
export async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 540_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 200; ; pause = Math.min(1000, pause * 1.5)) {
    const v = await probe();
    if (v !== null && v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not seen within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, pause));
  }
}

/** Waits for the run's `_SUCCESS` in the output bucket. */
export async function waitForRun(storage: Storage, bucket: string, runId: string, timeoutMs = 540_000): Promise<void> {
  const file = storage.bucket(bucket).file(`${runId}/_SUCCESS`);
  await waitFor(async () => (await file.exists())[0], `run ${runId} finished`, timeoutMs);
}

/** An object's text once it exists. */
export async function waitForObject(storage: Storage, bucket: string, name: string, timeoutMs = 540_000): Promise<string> {
  const file = storage.bucket(bucket).file(name);
  return waitFor(async () => (await file.exists())[0] && (await file.download())[0].toString(), `gs://${bucket}/${name}`, timeoutMs);
}

/** Object names and bytes under a prefix. */
export async function readObjects(storage: Storage, bucket: string, prefix: string): Promise<Map<string, Buffer>> {
  const [files] = await storage.bucket(bucket).getFiles({ prefix });
  const out = new Map<string, Buffer>();
  for (const f of files) out.set(f.name.slice(prefix.length), (await f.download())[0]);
  return out;
}

export function readDir(dir: string): Map<string, Buffer> {
  return new Map(readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => [e.name, readFileSync(join(dir, e.name))]));
}

/** The report without its one timing line ("Generated … in … s."). */
export function untimedReport(report: Buffer | string): string {
  return report.toString().replace(/^Generated .*$/m, "Generated <time>");
}

/**
 * What must equal the local runner's output: the datasets (decompressed), stats.json (funnel,
 * counters, shard health), config.json, and report.md but for its timing line.
 */
export function comparable(files: Map<string, Buffer>, gz: boolean, tiers: readonly string[] = TIERS): Record<string, string> {
  const get = (name: string) => {
    const b = files.get(name);
    if (!b) throw new Error(`missing output ${name} (have ${[...files.keys()].join(", ")})`);
    return b;
  };
  const out: Record<string, string> = {};
  for (const t of tiers) out[`${t}.jsonl`] = (gz ? gunzipSync(get(`${t}.jsonl.gz`)) : get(`${t}.jsonl`)).toString();
  out["stats.json"] = get("stats.json").toString();
  out["config.json"] = get("config.json").toString();
  out["report.md"] = untimedReport(get("report.md"));
  // the publishable outputs: Parquet and the card byte for byte; report.html up to its time and the
  // names of the dataset files it links (the cloud's are gzipped)
  for (const t of tiers) out[`${t}.parquet`] = get(`${t}.parquet`).toString("base64");
  out["README.md"] = get("README.md").toString();
  out["report.html"] = get("report.html").toString().replace(/Generated \S+( in [0-9.]+ s( \([^)]*\))?)?\./, "Generated <time>.").replaceAll(".jsonl.gz", ".jsonl");
  return out;
}
