/** Shared helpers of the benchmarks: data paths with repo fallbacks, timed child processes, formatting. */
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The repository root. */
export const REPO = new URL("../../../", import.meta.url).pathname;
/** shared/data beside the repository (the workplace's data sets); may be absent. */
export const SHARED_DATA = new URL("../../../../shared/data/", import.meta.url).pathname;

/** The first of `candidates` that exists (absolute, or relative to the repo root); throws if none. */
export function firstExisting(...candidates: string[]): string {
  for (const c of candidates) {
    const p = c.startsWith("/") ? c : join(REPO, c);
    if (existsSync(p)) return p;
  }
  throw new Error(`none of these files exists: ${candidates.join(", ")}`);
}

/** A shared/data file if present, else null. */
export function sharedData(rel: string): string | null {
  const p = join(SHARED_DATA, rel);
  return existsSync(p) ? p : null;
}

export function tempDir(prefix = "pcbench-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** `n` copies of `source` (copy1.xml.bz2, …) in a new temp folder: equal shards a run reads as different files. */
export function fileCopies(source: string, n: number, prefix = "pcbench-copies-"): { dir: string; files: string[] } {
  const dir = tempDir(prefix);
  const files = Array.from({ length: n }, (_, i) => {
    const path = join(dir, `copy${i + 1}.xml.bz2`);
    copyFileSync(source, path);
    return path;
  });
  return { dir, files };
}

export interface ChildUsage {
  seconds: number;
  /** peak RSS of the node child (all its threads), KiB: the largest of its node processes; null when not a node child */
  maxRssKiB: number | null;
  /** CPU seconds of the node child (all threads), summed over the node processes it ran (not its other children, e.g. decoders) */
  cpuSeconds: number | null;
  /** node processes that reported their usage (2 when the CLI re-executed itself with its V8 flags) */
  processes: number;
  /** CPU seconds of each node process, in the order they exited (a relaunched run: the child, then the launcher) */
  processCpuSeconds: number[];
  /**
   * CPU seconds of the command's other processes (the bz2 decoders a run spawns): the whole tree's CPU,
   * from the first node process's own and waited-for children's (Linux /proc), less the node processes'
   * own. Null where that cannot be read.
   */
  otherCpuSeconds: number | null;
  /**
   * Wall ms in which no bz2 decoder child of the command ran, from the usage lines' decoder spans:
   * before the first (start-up), between two (shard ends and starts), after the last (the phases after
   * extraction, the outputs). Null when no node process started a decoder.
   */
  noDecoderMs: { before: number; between: number; after: number } | null;
  stdout: string;
}

const PRELOAD = new URL("./rusage-preload.mjs", import.meta.url).pathname;

/**
 * Runs a command to completion and times it. `node: true` runs `process.execPath` with the
 * resource-usage preload (peak RSS, CPU); `tsx: true` also loads tsx (for a .ts script). Fails on
 * a non-zero exit, with the child's stderr.
 */
export function runTimed(cmd: string, args: string[], opts: { node?: boolean; tsx?: boolean; stdoutTo?: string; env?: NodeJS.ProcessEnv; cwd?: string; nodeArgs?: string[] } = {}): Promise<ChildUsage> {
  const node = opts.node || opts.tsx;
  const usageDir = node ? tempDir("pcbench-rusage-") : null;
  const usageFile = usageDir ? join(usageDir, "usage.json") : null;
  const file = node ? process.execPath : cmd;
  const argv = node ? [...(opts.nodeArgs ?? []), "--import", PRELOAD, ...(opts.tsx ? ["--import", "tsx"] : []), cmd, ...args] : args;
  return new Promise((resolve, reject) => {
    const out = opts.stdoutTo ? openSync(opts.stdoutTo, "w") : "pipe";
    const t0 = process.hrtime.bigint();
    const child = spawn(file, argv, {
      stdio: ["ignore", out, "pipe"],
      cwd: opts.cwd ?? REPO,
      env: { ...process.env, ...opts.env, ...(usageFile ? { PARACAP_BENCH_RUSAGE: usageFile } : {}) },
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      if (stderr.length < 20_000) stderr += d;
    });
    child.once("error", reject);
    child.once("close", (code, signal) => {
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      if (code !== 0) {
        reject(new Error(`${cmd} ${args.join(" ")} failed (${code ?? signal}):\n${stderr.slice(-3000)}`));
        return;
      }
      let maxRssKiB: number | null = null;
      let cpuSeconds: number | null = null;
      let processes = 0;
      let processCpuSeconds: number[] = [];
      let noDecoderMs: ChildUsage["noDecoderMs"] = null;
      let otherCpuSeconds: number | null = null;
      if (usageFile && existsSync(usageFile)) {
        // one line per node process of the command (the CLI re-executes itself for `run`)
        const lines = readFileSync(usageFile, "utf8").split("\n").filter(Boolean);
        const us = lines.map((l) => JSON.parse(l) as { pid?: number; ppid?: number; maxRssKiB: number; userMicros: number; systemMicros: number; childrenMicros?: number | null; startMs?: number; exitMs?: number; decoders?: [number, number | null][] });
        maxRssKiB = Math.max(...us.map((u) => u.maxRssKiB));
        cpuSeconds = us.reduce((sum, u) => sum + u.userMicros + u.systemMicros, 0) / 1e6;
        processes = us.length;
        processCpuSeconds = us.map((u) => (u.userMicros + u.systemMicros) / 1e6);
        noDecoderMs = decoderGaps(us);
        // the first node process: the one no other of them started; its children's CPU holds every other process's
        const root = us.find((u) => !us.some((v) => v.pid !== undefined && v.pid === u.ppid));
        if (root?.childrenMicros != null) otherCpuSeconds = Math.max(0, (root.userMicros + root.systemMicros + root.childrenMicros) / 1e6 - cpuSeconds);
      }
      if (usageDir) rmSync(usageDir, { recursive: true, force: true });
      resolve({ seconds, maxRssKiB, cpuSeconds, processes, processCpuSeconds, otherCpuSeconds, noDecoderMs, stdout });
    });
  });
}

/** The time in which no decoder ran (ChildUsage.noDecoderMs), from the node processes' usage lines. */
function decoderGaps(us: { startMs?: number; exitMs?: number; decoders?: [number, number | null][] }[]): ChildUsage["noDecoderMs"] {
  const spans = us.flatMap((u) => (u.decoders ?? []).map(([a, b]) => [a, b ?? u.exitMs ?? a] as [number, number])).sort((x, y) => x[0] - y[0]);
  const starts = us.map((u) => u.startMs).filter((t): t is number => t !== undefined);
  const exits = us.map((u) => u.exitMs).filter((t): t is number => t !== undefined);
  if (spans.length === 0 || starts.length === 0 || exits.length === 0) return null;
  let between = 0;
  let reach = spans[0]![1];
  for (const [a, b] of spans.slice(1)) {
    if (a > reach) between += a - reach;
    reach = Math.max(reach, b);
  }
  return { before: spans[0]![0] - Math.min(...starts), between, after: Math.max(...exits) - reach };
}

/** `bin -dc file > /dev/null`: the plain decoding baseline. */
export function decodeToNull(bin: string, path: string): Promise<ChildUsage> {
  return runTimed(bin, ["-dc", path], { stdoutTo: "/dev/null" });
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export const mb = (bytes: number): string => (bytes / 1e6).toFixed(1);
export const mbps = (bytes: number, seconds: number): string => (bytes / 1e6 / seconds).toFixed(1);
export const mib = (kib: number | null): string => (kib === null ? "n/a" : `${(kib / 1024).toFixed(0)} MiB`);

/**
 * The settings of a paired bench (this checkout against BENCH_BEFORE's build, in one process): the
 * other checkout, the passes (BENCH_PASSES) and the history to read (the first argument, else the
 * 2,000-revision excerpt, else the repo's sample). Exits with a hint when BENCH_BEFORE is not set.
 */
export function pairedBench(name: string, defaultPasses: number): { before: string; passes: number; file: string } {
  const before = process.env.BENCH_BEFORE;
  if (!before) {
    console.log(`${name}: set BENCH_BEFORE to another checkout (with a build) to compare against`);
    process.exit(0);
  }
  const passes = Number(process.env.BENCH_PASSES ?? defaultPasses);
  const file = process.argv[2] ?? sharedData("wikipedia-history/enwiki-Anarchism-history-rev04000-05999.xml.bz2") ?? join(REPO, "shared/sample/enwiki-Anarchism-history-sample.xml.bz2");
  return { before, passes, file };
}
