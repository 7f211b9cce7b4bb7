/**
 * The fixed costs of one `paracap run` (issue 21, "fixed costs out of the small run"), each in ms,
 * measured in fresh processes: node itself, loading the run command's modules, the word vectors
 * (from the binary cache the first run writes; and from the package's JSON when there is none),
 * and the report's chart rendering (vega/vega-lite import, then one funnel chart drawn, and one read from
 * the chart store a process before drew).
 *
 * Each figure is given as wall ms and CPU ms of the thread (process.cpuUsage): on a shared machine
 * the CPU figure is the steadier one. BENCH_BEFORE=<another built checkout> also measures its run
 * modules in the same rounds; the load average is printed with the figures.
 *
 *   npx tsx scripts/bench/fixed-costs.ts      (BENCH_ROUNDS=3; the median is printed)
 */
import { execFileSync } from "node:child_process";
import { loadavg } from "node:os";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { median, REPO, runTimed, sharedData, tempDir } from "./lib/common.ts";

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const DIST = `${REPO}dist/node/shared`;
const BEFORE = process.env.BENCH_BEFORE ? `${process.env.BENCH_BEFORE.replace(/\/$/, "")}/dist/node/shared` : null;

/** Runs an ESM snippet in a fresh node; the snippet's `t` (performance.now) and `c` (cpuUsage) start the clock, and it ends with `done()`. */
function ms(code: string): [number, number] {
  const prelude = `let t=performance.now(), c=process.cpuUsage(); const start=()=>{t=performance.now(); c=process.cpuUsage();}; const done=()=>{const u=process.cpuUsage(c); console.log((performance.now()-t)+" "+(u.user+u.system)/1000);};`;
  // chart cases get a chart store of their own (shared/output/chart-store.ts): a chart is drawn unless the case reads the store on purpose
  const env = code.includes("/output/charts.js") ? { ...process.env, PARACAP_CACHE_DIR: tempDir("paracap-bench-charts-") } : process.env;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", prelude + code], { cwd: REPO, encoding: "utf8", env });
  const [wall, cpu] = out.trim().split("\n").pop()!.split(" ").map(Number);
  return [wall!, cpu!];
}

/** main, the run command and the runner: from the per-file build, or from the bundle bin/paracap.js runs (scripts/build.mjs) */
const perFile = (shared: string) => `start(); for (const m of ["cli/main.js", "cli/run-command.js", "runner/local-runner.js"]) await import("${shared}/" + m); done()`;
const BUNDLE = `${REPO}dist/node/bundle`;
const bundled = existsSync(BUNDLE) ? readdirSync(BUNDLE).filter((f) => /^(main|run-command-\w+|local-runner-\w+)\.js$/.test(f)) : [];
/** the bundle's chunks of vega and vega-lite (esbuild names them after the packages' entry files) */
const vegaChunks = existsSync(BUNDLE) ? readdirSync(BUNDLE).filter((f) => /^(vega\.module|build)-\w+\.js$/.test(f)) : [];
const cases: [string, string][] = [
  ["node start-up (node -e 0, whole process)", ""],
  ["modules of `paracap run` (run-command and all it imports)", `start(); await import("${DIST}/cli/run-command.js"); done()`],
  ...(BEFORE ? ([["  the same, BENCH_BEFORE", `start(); await import("${BEFORE}/cli/run-command.js"); done()`]] as [string, string][]) : []),
  ["modules of main, run-command and the runner, per-file build", perFile(DIST)],
  ...(bundled.length === 3 ? ([["  the same from the bundle (what bin/paracap.js loads)", `start(); for (const m of ${JSON.stringify(bundled.sort())}) await import("${BUNDLE}/" + m); done()`]] as [string, string][]) : []),
  ...(BEFORE ? ([["  the same, BENCH_BEFORE (per-file)", perFile(BEFORE)]] as [string, string][]) : []),
  ["word vectors, 100k words, from the binary cache", `const v = await import("${DIST}/semantic/vector-cache.js"); const w = await import("${DIST}/semantic/word-vectors.js"); start(); const r = v.readCachedVectors(v.defaultVectorCacheDir(), w.defaultVectorsFile(), 100000, true); if (!r) throw new Error("no cache: run paracap once"); done()`],
  ["word vectors, 100k words, from the package's JSON (first run only)", `const w = await import("${DIST}/semantic/word-vectors.js"); start(); w.loadWordVectors({ maxWords: 100000, shared: true }); done()`],
  ["chart modules (vega, vega-lite)", `start(); await Promise.all([import("vega"), import("vega-lite")]); done()`],
  ...(vegaChunks.length === 2 ? ([["  the same from the bundle (its vega and vega-lite chunks)", `start(); await Promise.all(${JSON.stringify(vegaChunks)}.map((m) => import("${BUNDLE}/" + m))); done()`]] as [string, string][]) : []),
  ["first funnel chart of a process, drawn (chart modules imported by it)", `const charts = await import("${DIST}/output/charts.js"); const rows=[{step:0,label:"all",images:10,references:20,captions:15,candidates:5}]; start(); await charts.funnelChart(rows); done()`],
  ["another funnel chart drawn (after the modules and a first chart)", `const charts = await import("${DIST}/output/charts.js"); const row=(n)=>({step:0,label:"all",images:n,references:2*n,captions:n,candidates:n}); await charts.funnelChart([row(10)]); start(); await charts.funnelChart([row(10), {...row(8), step:1, label:"f"}]); done()`],
  ["a funnel chart read from the chart store (drawn by an earlier process)", `const charts = await import("${DIST}/output/charts.js"); const rows=[{step:0,label:"all",images:10,references:20,captions:15,candidates:5}]; await charts.funnelChart(rows); charts.forgetRenderedCharts(); start(); await charts.funnelChart(rows); done()`],
];

console.log(`fixed costs of a run: wall ms / CPU ms (median of ${rounds} fresh processes; load average ${loadavg().map((l) => l.toFixed(1)).join(" ")} at the start)`);
for (const [label, code] of cases) {
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let r = 0; r < rounds; r++) {
    if (code === "") {
      const t = performance.now();
      execFileSync(process.execPath, ["-e", "0"]);
      walls.push(performance.now() - t);
      cpus.push(Number.NaN); // the child's CPU is not ours to read here
    } else {
      const [w, c] = ms(code);
      walls.push(w);
      cpus.push(c);
    }
  }
  const cpu = cpus.some(Number.isNaN) ? "—" : median(cpus).toFixed(0);
  console.log(`  ${label.padEnd(70)} ${median(walls).toFixed(0).padStart(6)} / ${cpu.padStart(6)}`);
}
// The CLI's own start: --help (launcher, build check, command table: no run modules), whole process.
{
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const u = await runTimed(`${REPO}bin/paracap.js`, ["--help"], { node: true });
    walls.push(u.seconds * 1e3);
    cpus.push((u.cpuSeconds ?? Number.NaN) * 1e3);
  }
  console.log(`  ${"`paracap --help` (whole process: launcher, build check, usage)".padEnd(70)} ${median(walls).toFixed(0).padStart(6)} / ${median(cpus).toFixed(0).padStart(6)}`);
}
// The whole small runs these costs weigh on: the shipped sample, and one history file. A run is two
// node processes (the launcher starts one with the V8 heap flags, shared/cli/node-flags.ts): both counted,
// and the launcher's share printed on its own.
const history = sharedData("wikipedia-history/enwiki-Anarchism-history-rev02900-03299.xml.bz2");
const runs: [string, string[]][] = [["whole `paracap run` of the shipped sample (node process, all threads)", []]];
if (history) runs.push([`whole \`paracap run --history\` of ${history.split("/").pop()}`, ["--history", history]]);
for (const [label, args] of runs) {
  const walls: number[] = [];
  const cpus: number[] = [];
  const launcher: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const out = tempDir("pcbench-fixed-");
    const u = await runTimed(`${REPO}bin/paracap.js`, ["run", "--quiet", "--fresh", ...args, "--out", out], { node: true });
    rmSync(out, { recursive: true, force: true });
    walls.push(u.seconds * 1e3);
    cpus.push((u.cpuSeconds ?? Number.NaN) * 1e3);
    if (u.processes > 1) launcher.push(u.processCpuSeconds.at(-1)! * 1e3);
  }
  const share = launcher.length > 0 ? ` (launcher ${median(launcher).toFixed(0)} CPU ms)` : "";
  console.log(`  ${label.padEnd(70)} ${median(walls).toFixed(0).padStart(6)} / ${median(cpus).toFixed(0).padStart(6)}${share}`);
}
console.log(`  load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
