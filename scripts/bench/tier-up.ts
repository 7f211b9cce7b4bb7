/**
 * What the raised tier-up budget (shared/runner/tier-up.ts) buys: the same `paracap run` with V8's
 * default interrupt budget (given on node's command line, which the run then leaves alone) and with
 * paracap's, alternating in every round so a slow spell of the shared machine hits both. CPU is the
 * node processes' own (launcher and relaunched run, all threads; not the decoder), the figure the
 * budget changes; with BENCH_TRACE_OPT=1 also how many functions TurboFan compiled and how many
 * times optimized code was thrown away (one run each, --trace-opt/--trace-deopt).
 *
 *   npx tsx scripts/bench/tier-up.ts [history.xml.bz2]   (BENCH_ROUNDS=3, BENCH_COPIES="0 1 4": 0 is the embedded sample)
 */
import { copyFileSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { loadavg } from "node:os";
import { firstExisting, median, REPO, runTimed, sharedData, tempDir } from "./lib/common.ts";
import { INTERRUPT_BUDGET } from "../../shared/runner/tier-up.ts";

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const copiesList = (process.env.BENCH_COPIES ?? "0 1 4").split(/\s+/).filter(Boolean).map(Number);
const traceOpt = process.env.BENCH_TRACE_OPT === "1";
const input = process.argv[2] ?? sharedData("wikipedia-history/enwiki-Anarchism-history-rev04000-05999.xml.bz2") ?? firstExisting("shared/sample/enwiki-Anarchism-history-sample.xml.bz2");
/** V8's own default (node 20–22): what a run got before tier-up.ts */
const V8_DEFAULT = "--interrupt-budget=67584";
const entry = join(REPO, "bin/paracap.js");
const load = () => loadavg().map((l) => l.toFixed(1)).join(" ");

const dir = tempDir("pcbench-tierup-");
const maxCopies = Math.max(...copiesList);
const copyPaths = Array.from({ length: maxCopies }, (_, i) => join(dir, `copy${i + 1}-${basename(input)}`));
for (const p of copyPaths) copyFileSync(input, p);

const runArgs = (copies: number, out: string): string[] => ["run", "--quiet", "--fresh", ...(copies === 0 ? [] : ["--history", ...copyPaths.slice(0, copies)]), "--out", out];
const label = (copies: number): string => (copies === 0 ? "embedded sample" : `${copies} × ${basename(input)}`);

console.log(`paracap run: V8's default interrupt budget against paracap's (${INTERRUPT_BUDGET}); ${rounds} rounds, alternating; load ${load()}`);
console.log(`  ${"input".padEnd(58)} ${"CPU s default".padStart(14)} ${"CPU s paracap".padStart(14)} ${"ratio".padStart(6)} ${"wall default".padStart(13)} ${"wall paracap".padStart(13)}`);
for (const copies of copiesList) {
  const cpu = { base: [] as number[], ours: [] as number[] };
  const wall = { base: [] as number[], ours: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    for (const which of ["base", "ours"] as const) {
      const out = tempDir("pcbench-run-");
      const u = await runTimed(entry, runArgs(copies, out), { node: true, nodeArgs: which === "base" ? [V8_DEFAULT] : [] });
      rmSync(out, { recursive: true, force: true });
      cpu[which].push(u.cpuSeconds ?? Number.NaN);
      wall[which].push(u.seconds);
    }
  }
  const b = median(cpu.base);
  const o = median(cpu.ours);
  console.log(`  ${label(copies).padEnd(58)} ${b.toFixed(2).padStart(14)} ${o.toFixed(2).padStart(14)} ${(o / b).toFixed(2).padStart(6)} ${median(wall.base).toFixed(2).padStart(13)} ${median(wall.ours).toFixed(2).padStart(13)}`);
  if (traceOpt) {
    for (const which of ["base", "ours"] as const) {
      const out = tempDir("pcbench-run-");
      const u = await runTimed(entry, runArgs(copies, out), { node: true, nodeArgs: [...(which === "base" ? [V8_DEFAULT] : []), "--trace-opt", "--trace-deopt"] });
      rmSync(out, { recursive: true, force: true });
      const compiled = (u.stdout.match(/completed compiling/g) ?? []).length;
      const deopts = (u.stdout.match(/bailout \(kind/g) ?? []).length;
      console.log(`    ${which === "base" ? "default" : "paracap"}: ${compiled} TurboFan compilations, ${deopts} deoptimizations`);
    }
  }
}
rmSync(dir, { recursive: true, force: true });
console.log(`  load average at the end: ${load()}`);
