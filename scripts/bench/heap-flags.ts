/**
 * Which V8 heap flags the `paracap run` process should start with (bin/paracap.js re-executes node with
 * them, shared/cli/node-flags.ts): the same `run --history` timed under each candidate set of flags, the
 * sets alternating in every round so a slow spell of the shared machine hits them all. Each run goes
 * straight to the CLI entry with the flags (PARACAP_NODE_FLAGS_APPLIED set: no re-exec), so the figures
 * are of one process; the baseline is the run without any flag, as it was before the re-exec.
 *
 * Prints per set: wall and CPU seconds (median of rounds), peak RSS (max), and with BENCH_TRACE_GC=1 the
 * number of full (mark-compact) and young (scavenge) collections of the main thread, from --trace-gc.
 *
 *   npx tsx scripts/bench/heap-flags.ts [dump.xml.bz2]   (BENCH_ROUNDS=3, BENCH_COPIES=1, BENCH_FLAGS="a b;c;…")
 */
import { copyFileSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { loadavg } from "node:os";
import { firstExisting, median, mib, REPO, runTimed, sharedData, tempDir } from "./lib/common.ts";
import { NODE_FLAGS_APPLIED_ENV } from "../../shared/cli/node-flags.ts";

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const copies = Number(process.env.BENCH_COPIES ?? 1);
const traceGc = process.env.BENCH_TRACE_GC === "1";
const input = process.argv[2] ?? sharedData("wikipedia-history/enwiki-Anarchism-history-rev04000-05999.xml.bz2") ?? firstExisting("shared/sample/enwiki-Anarchism-history-sample.xml.bz2");
const sets: string[][] = (process.env.BENCH_FLAGS ?? ";--max-semi-space-size=16;--max-semi-space-size=32;--max-semi-space-size=64;--initial-old-space-size=128;--initial-old-space-size=256;--max-semi-space-size=32 --initial-old-space-size=128;--heap-growing-percent=100")
  .split(";")
  .map((s) => s.trim().split(/\s+/).filter(Boolean));

const dir = tempDir("pcbench-heapflags-");
const paths = Array.from({ length: copies }, (_, i) => (copies === 1 ? input : join(dir, `copy${i + 1}-${basename(input)}`)));
if (copies > 1) for (const p of paths) copyFileSync(input, p);

interface Sample { wall: number; cpu: number; rss: number; full: number; young: number }
const samples = new Map<string, Sample[]>(sets.map((s) => [s.join(" "), []]));
const entry = join(REPO, "bin/paracap.js");

console.log(`paracap run --history under V8 heap flags: ${copies} × ${input}; ${rounds} rounds, sets alternating; load ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
for (let r = 0; r < rounds; r++) {
  for (const flags of sets) {
    const out = tempDir("pcbench-run-");
    const u = await runTimed(entry, ["run", "--quiet", "--fresh", "--history", ...paths, "--out", out], {
      node: true,
      nodeArgs: [...flags, ...(traceGc ? ["--trace-gc"] : [])],
      env: { [NODE_FLAGS_APPLIED_ENV]: "1" },
    });
    rmSync(out, { recursive: true, force: true });
    samples.get(flags.join(" "))!.push({
      wall: u.seconds,
      cpu: u.cpuSeconds ?? Number.NaN,
      rss: u.maxRssKiB ?? 0,
      full: (u.stdout.match(/Mark-Compact/g) ?? []).length,
      young: (u.stdout.match(/Scavenge/g) ?? []).length,
    });
  }
  console.log(`  round ${r + 1} done (load ${loadavg().map((l) => l.toFixed(1)).join(" ")})`);
}
rmSync(dir, { recursive: true, force: true });

const base = median(samples.get("")?.map((s) => s.cpu) ?? [Number.NaN]);
console.log(`  ${"flags".padEnd(56)} wall s   CPU s  CPU/base  peak RSS${traceGc ? "   full GCs  scavenges" : ""}`);
for (const [flags, xs] of samples) {
  const cpu = median(xs.map((s) => s.cpu));
  console.log(
    `  ${(flags || "(none: the run before the re-exec)").padEnd(56)} ${median(xs.map((s) => s.wall)).toFixed(2).padStart(6)} ${cpu.toFixed(2).padStart(7)} ${(cpu / base).toFixed(2).padStart(9)} ${mib(Math.max(...xs.map((s) => s.rss))).padStart(9)}` +
      (traceGc ? `${String(median(xs.map((s) => s.full))).padStart(11)}${String(median(xs.map((s) => s.young))).padStart(11)}` : ""),
  );
}
console.log(`  load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
