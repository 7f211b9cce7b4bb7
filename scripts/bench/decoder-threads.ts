/**
 * bz2 decoders side by side: what giving each its share of the cores buys (ByteSource.decoderThreads,
 * local-runner.ts decoderThreadsFor). A local run decodes several shards at once where its shard
 * documents go to worker threads (more than 2 cores, or PARACAP_THREADS=always).
 *
 * Each round, in alternating order, decodes BENCH_SIDE files (default: one per core, at least 2;
 * copies of the 152 MB history excerpt, else the repo's history sample) to /dev/null:
 *   - side by side, each `lbzip2 -dc` (one thread per core each: what paracap started before),
 *   - side by side, each `lbzip2 -n <cores / files> -dc` (decoder-shares.ts: what it starts now),
 *   - one after another, each `lbzip2 -dc` on all cores (the baseline).
 * Then, with PARACAP_THREADS=always and `--workers BENCH_SIDE`, `paracap run --history` over the
 * same files, and BENCH_BEFORE's (another checkout with a build) when given. Prints wall and CPU
 * seconds per round and the medians of the ratios to the baseline.
 *
 *   npx tsx scripts/bench/decoder-threads.ts [file.xml.bz2]   (BENCH_ROUNDS=3, BENCH_SIDE, BENCH_BEFORE)
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { decoderArgs, findSystemBzip2 } from "../../shared/dump/bz2-decoders.ts";
import { decoderThreads } from "../../shared/runner/decoder-shares.ts";
import { fileCopies, firstExisting, median, REPO, runTimed, sharedData } from "./lib/common.ts";

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const side = Number(process.env.BENCH_SIDE ?? Math.max(2, availableParallelism()));
const before = process.env.BENCH_BEFORE ?? null;
const lbzip2 = findSystemBzip2(undefined, ["lbzip2"]);
const TIME = "/usr/bin/time";
if (lbzip2 === null || !existsSync(TIME)) {
  console.log("decoder-threads: needs lbzip2 on PATH and /usr/bin/time");
  process.exit(0);
}
const source = process.argv[2] ?? sharedData("wikipedia-history/enwiki-Anarchism-history-rev04000-05999.xml.bz2") ?? firstExisting("shared/sample/enwiki-Anarchism-history-sample.xml.bz2");
const { dir, files } = fileCopies(source, side, "pcbench-decoders-");
// equal files started together: the first one's share (decoder-shares.ts)
const share = decoderThreads(availableParallelism(), 1, Array<number>(side - 1).fill(1), 0);
const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/** Wall and CPU seconds (the shell's and every process it waited for) of a shell command. */
async function timed(script: string): Promise<{ seconds: number; cpu: number }> {
  const usage = join(dir, "usage");
  const { seconds } = await runTimed(TIME, ["-f", "%U %S", "-o", usage, "sh", "-c", script]);
  const [user, sys] = readFileSync(usage, "utf8").trim().split(/\s+/).slice(-2).map(Number);
  return { seconds, cpu: user! + sys! };
}

const decode = (args: string[]) => (f: string) => `${q(lbzip2)} ${args.join(" ")} ${q(f)} > /dev/null`;
const sideBySide = (args: string[]) => `${files.map(decode(args)).map((c) => `${c} &`).join(" ")} wait`;
const oneByOne = files.map(decode(["-dc"])).join("; ");
const runIn = (checkout: string, out: string) => async () => {
  const r = await runTimed(join(checkout, "bin/paracap.js"), ["run", "--quiet", "--fresh", "--workers", String(side), "--history", ...files, "--out", out], { node: true, cwd: checkout, env: { PARACAP_THREADS: "always" } });
  return { seconds: r.seconds, cpu: (r.cpuSeconds ?? 0) + (r.otherCpuSeconds ?? 0) };
};

const cases: [string, () => Promise<{ seconds: number; cpu: number }>][] = [
  [`${side} side by side, lbzip2 -dc each`, () => timed(sideBySide(["-dc"]))],
  [`${side} side by side, ${decoderArgs(lbzip2, share).join(" ")} each`, () => timed(sideBySide(decoderArgs(lbzip2, share)))],
  [`one after another, lbzip2 -dc (baseline)`, () => timed(oneByOne)],
  [`paracap run, ${side} shards side by side`, runIn(REPO, join(dir, "out"))],
];
if (before) cases.push([`paracap run before (${before})`, runIn(before, join(dir, "out-before"))]);

console.log(`bz2 decoders side by side: ${side} copies of ${source}, ${availableParallelism()} cores, ${rounds} rounds`);
const results = cases.map(() => [] as { seconds: number; cpu: number }[]);
for (let r = 0; r < rounds; r++) {
  const order = cases.map((_, i) => i);
  if (r % 2 === 1) order.reverse();
  for (const i of order) results[i]!.push(await cases[i]![1]());
  console.log(`  round ${r + 1} (load ${loadavg()[0]!.toFixed(1)}): ${cases.map(([name], i) => `${name} ${results[i]![r]!.seconds.toFixed(2)} s / ${results[i]![r]!.cpu.toFixed(1)} CPU-s`).join("; ")}`);
}
const base = results[2]!;
for (const [i, [name]] of cases.entries()) {
  const ratio = median(results[i]!.map((x, r) => x.seconds / base[r]!.seconds));
  const cpu = median(results[i]!.map((x, r) => x.cpu / base[r]!.cpu));
  console.log(`  ${name.padEnd(48)} wall median ${median(results[i]!.map((x) => x.seconds)).toFixed(2)} s, ${ratio.toFixed(2)}× the baseline's; CPU ${cpu.toFixed(2)}× its`);
}
rmSync(dir, { recursive: true, force: true });
