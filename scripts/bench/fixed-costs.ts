/**
 * The fixed costs of one `paracap run` (issue 21, "fixed costs out of the small run"), each in ms,
 * measured in fresh processes: node itself, loading the run command's modules, the word vectors
 * (from the binary cache the first run writes; and from the package's JSON when there is none),
 * and the report's chart rendering (vega/vega-lite import, then one funnel chart).
 *
 *   npx tsx scripts/bench/fixed-costs.ts      (BENCH_ROUNDS=3; the median is printed)
 */
import { execFileSync } from "node:child_process";
import { median, REPO } from "./lib/common.ts";

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const DIST = `${REPO}dist/node/shared`;

/** Runs an ESM snippet in a fresh node and returns the ms it prints. */
function ms(code: string): number {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: REPO, encoding: "utf8" });
  return Number(out.trim().split("\n").pop());
}

const cases: [string, string][] = [
  ["node start-up (node -e 0, whole process)", ""],
  ["modules of `paracap run` (run-command and all it imports)", `const t=performance.now(); await import("${DIST}/cli/run-command.js"); console.log(performance.now()-t)`],
  ["word vectors, 100k words, from the binary cache", `const v = await import("${DIST}/semantic/vector-cache.js"); const w = await import("${DIST}/semantic/word-vectors.js"); const t=performance.now(); const r = v.readCachedVectors(v.defaultVectorCacheDir(), w.defaultVectorsFile(), 100000, true); if (!r) throw new Error("no cache: run paracap once"); console.log(performance.now()-t)`],
  ["word vectors, 100k words, from the package's JSON (first run only)", `const w = await import("${DIST}/semantic/word-vectors.js"); const t=performance.now(); w.loadWordVectors({ maxWords: 100000, shared: true }); console.log(performance.now()-t)`],
  ["chart modules (vega, vega-lite)", `const t=performance.now(); await import("${DIST}/output/charts.js"); console.log(performance.now()-t)`],
  ["one funnel chart rendered (after the modules)", `const c = await import("${DIST}/output/charts.js"); const rows=[{step:0,label:"all",images:10,references:20,captions:15,candidates:5},{step:1,label:"f",images:8,references:16,captions:12,candidates:4}]; const t=performance.now(); await c.funnelChart(rows); console.log(performance.now()-t)`],
];

console.log(`fixed costs of a run, ms (median of ${rounds} fresh processes; the machine's load inflates them all alike)`);
for (const [label, code] of cases) {
  const xs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    if (code === "") {
      const t = performance.now();
      execFileSync(process.execPath, ["-e", "0"]);
      xs.push(performance.now() - t);
    } else xs.push(ms(code));
  }
  console.log(`  ${label.padEnd(70)} ${median(xs).toFixed(0).padStart(6)}`);
}
