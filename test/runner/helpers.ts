/** Shared helpers for the tests that run the whole local pipeline on real dumps. */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SAMPLE_INPUTS } from "../../shared/cli/run-command.ts";
import { resolveConfig, type ParacapConfigInput } from "../../shared/core/config.ts";
import { ScoredPair } from "../../shared/core/records.ts";
import { Stats } from "../../shared/output/stats.ts";
import { runLocal, type LocalRunOptions, type LocalRunResult } from "../../shared/runner/local-runner.ts";
import type { LocalInput } from "../../shared/runner/local-shards.ts";

export const REPO = new URL("../../", import.meta.url).pathname;
export const BIN = join(REPO, "bin/paracap.js");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The paracap command (bin/paracap.js) in a child process, as a user runs it. */
export function runCli(args: string[], opts: { cwd?: string; env?: Record<string, string>; stdin?: string | Buffer } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd ?? REPO, env: opts.env ? { ...process.env, ...opts.env } : process.env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.on("error", () => {}); // the command may stop reading early
    child.stdin.end(opts.stdin ?? "");
  });
}
export const DATA = new URL("../fixtures/data/", import.meta.url).pathname;
export const SAMPLE = SAMPLE_INPUTS;
export const SAMPLE_CURRENT = SAMPLE_INPUTS[0]!.path;
export const SAMPLE_HISTORY = SAMPLE_INPUTS[1]!.path;

const made: string[] = [];

/** A new empty directory under the system temp dir, removed by removeTempDirs (call it in afterAll). */
export function tempDir(prefix = "paracap-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** runLocal with the embedded defaults, silent; one worker unless asked (worker threads start slowly). */
export function run(outDir: string, inputs: LocalInput[] = SAMPLE, config: ParacapConfigInput = {}, opts: Partial<LocalRunOptions> = {}): Promise<LocalRunResult> {
  return runLocal({ inputs, outDir, config: resolveConfig(config), workers: 1, progress: null, ...opts });
}

export const DATASETS = ["gold.jsonl", "silver.jsonl", "bronze.jsonl"] as const;

/**
 * Every published output of a run as text (Parquet as base64), for byte comparisons between runs.
 */
export function readOutputs(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const parquet = DATASETS.map((d) => d.replace(/\.jsonl$/, ".parquet"));
  for (const name of [...DATASETS, "stats.json", "config.json", "_SUCCESS", "report.md", "report.html", "README.md", ...parquet]) {
    const p = join(dir, name);
    if (!existsSync(p)) continue;
    if (name.endsWith(".parquet")) {
      out[name] = readFileSync(p).toString("base64");
      continue;
    }
    const text = readFileSync(p, "utf8");
    // report.md's and report.html's "Generated <time> in <s> s." are the only parts allowed to differ
    out[name] = name === "report.md" ? text.replace(/^Generated .*$/m, "Generated <time>") : name === "report.html" ? text.replace(/Generated \S+( in [0-9.]+ s( \([^)]*\))?)?\./, "Generated <time>.") : text;
  }
  return out;
}

export function readStats(dir: string): Stats {
  return Stats.parse(JSON.parse(readFileSync(join(dir, "stats.json"), "utf8")));
}

export function readPairs(dir: string, tier: string): ScoredPair[] {
  const text = readFileSync(join(dir, `${tier}.jsonl`), "utf8");
  return text.split("\n").filter((l) => l.length > 0).map((l) => ScoredPair.parse(JSON.parse(l)));
}
