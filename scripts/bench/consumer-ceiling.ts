/**
 * What speed a run can reach against `lbzip2 -dc > /dev/null` on this machine, whatever paracap does
 * with the bytes: the ceiling issue 21's target is measured under.
 *
 * A stand-in reader (lib/burn-consumer.ts) decodes the files through the run's own decoder path
 * (the file piped into the decoder, its output read into pooled 1 MiB chunks) and spends a fixed CPU
 * cost per MB on them, nothing else: no start-up, no phases after extraction, no output. Each round
 * times, in turn, plain decoding to /dev/null (the yardstick) and the reader at each cost of
 * BENCH_RATES (ms of CPU per decoded MB; 0 = reading only). The table gives, per cost, the reader's
 * speed as a share of the yardstick's (median of paired rounds), its measured CPU per MB (the cost
 * plus reading) and the decoder's CPU against its CPU alone. On 2 cores the decoder and the reader
 * share the CPU, and the decoder's own CPU grows when anything reads its output: the ratio at
 * cost 0 is the most any reader reaches here, and the cost at which the ratio falls to 0.8 is what
 * all of a run's own work per MB may cost for issue 21's target (≥ 0.8× lbzip2), fixed costs apart.
 *
 *   npx tsx scripts/bench/consumer-ceiling.ts [file.xml.bz2]   (BENCH_ROUNDS=3, BENCH_COPIES=4, BENCH_RATES=0,2,4,6,9)
 */
import { closeSync, existsSync, openSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { findSystemBzip2 } from "../../shared/dump/bz2-decoders.ts";
import { fileCopies, firstExisting, median, REPO, sharedData } from "./lib/common.ts";

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const copies = Number(process.env.BENCH_COPIES ?? 4);
const rates = (process.env.BENCH_RATES ?? "0,2,4,6,9").split(",").map(Number);
const bin = findSystemBzip2();
const TIME = "/usr/bin/time";
if (bin === null || !existsSync(TIME)) {
  console.log("consumer-ceiling: needs lbzip2 or bzip2 on PATH and /usr/bin/time");
  process.exit(0);
}
const source = process.argv[2] ?? sharedData("wikipedia-history/enwiki-Anarchism-history-rev04000-05999.xml.bz2") ?? firstExisting("shared/sample/enwiki-Anarchism-history-sample.xml.bz2");
const { dir, files } = fileCopies(source, copies, "pcbench-ceiling-");

interface Reading {
  wallMs: number;
  ownCpuMs: number;
  decoderCpuMs: number;
  bytes: number;
}

/** `bin -dc file > /dev/null`: wall and CPU seconds (from /usr/bin/time). */
function decodeToNull(file: string): Promise<{ wall: number; cpu: number }> {
  return new Promise((resolve, reject) => {
    const out = openSync("/dev/null", "w");
    const child = spawn(TIME, ["-f", "%e %U %S", bin!, "-dc", file], { stdio: ["ignore", out, "pipe"] });
    closeSync(out);
    let err = "";
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.once("error", reject);
    child.once("close", (code) => {
      const [wall, user, sys] = err.trim().split("\n").pop()!.split(" ").map(Number);
      if (code !== 0 || wall === undefined || user === undefined || sys === undefined) reject(new Error(`${bin} -dc ${file} failed: ${err}`));
      else resolve({ wall, cpu: user + sys });
    });
  });
}

/** One stand-in reader run (its start-up is outside the wall it reports). */
function consume(msPerMb: number): Promise<Reading> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(REPO, "scripts/bench/lib/burn-consumer.ts"), String(msPerMb), ...files], { cwd: REPO, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop()!) as Reading) : reject(new Error(`burn-consumer exited ${code}`))));
  });
}

async function main(): Promise<void> {
  console.log(`A stand-in reader against ${bin} -dc > /dev/null (${copies} cop${copies === 1 ? "y" : "ies"} of ${source}, ${rounds} rounds)\n`);
  const base: { wall: number; cpu: number }[] = [];
  const byRate = new Map<number, { ratio: number; own: number; dec: number }[]>(rates.map((r) => [r, []]));
  let mb = 0;
  for (let round = 1; round <= rounds; round++) {
    let wall = 0;
    let cpu = 0;
    for (const f of files) {
      const u = await decodeToNull(f);
      wall += u.wall;
      cpu += u.cpu;
    }
    base.push({ wall, cpu });
    const line: string[] = [];
    for (const rate of rates) {
      const r = await consume(rate);
      mb = r.bytes / 1e6;
      byRate.get(rate)!.push({ ratio: wall / (r.wallMs / 1000), own: r.ownCpuMs / mb, dec: r.decoderCpuMs / 1000 });
      line.push(`${rate} ms/MB: ${(r.wallMs / 1000).toFixed(2)} s (decoder CPU ${(r.decoderCpuMs / 1000).toFixed(1)} s)`);
    }
    console.log(`  round ${round} (load ${loadavg()[0]!.toFixed(1)}): ${bin} ${wall.toFixed(2)} s; ${line.join("; ")}`);
  }
  console.log(`\n  ${bin} -dc > /dev/null: median ${median(base.map((b) => b.wall)).toFixed(2)} s for ${mb.toFixed(1)} MB\n`);
  console.log("  cost (ms/MB)   reader CPU/MB   decoder CPU (s)   speed vs yardstick (median of pairs)");
  for (const rate of rates) {
    const xs = byRate.get(rate)!;
    console.log(`  ${String(rate).padStart(12)}   ${median(xs.map((x) => x.own)).toFixed(1).padStart(13)}   ${median(xs.map((x) => x.dec)).toFixed(1).padStart(15)}   ${median(xs.map((x) => x.ratio)).toFixed(2).padStart(6)}×`);
  }
  const points = rates.map((r) => ({ own: median(byRate.get(r)!.map((x) => x.own)), ratio: median(byRate.get(r)!.map((x) => x.ratio)) }));
  const cross = points.findIndex((p, i) => i > 0 && points[i - 1]!.ratio >= 0.8 && p.ratio < 0.8);
  if (points[0]!.ratio < 0.8) console.log("\n  even a reader that only reads stays under 0.8× here");
  else if (cross > 0) {
    const a = points[cross - 1]!;
    const b = points[cross]!;
    const at = a.own + ((a.ratio - 0.8) * (b.own - a.own)) / (a.ratio - b.ratio);
    console.log(`\n  0.8× is reached up to ~${at.toFixed(1)} ms of reader CPU per MB (interpolated), start-up and later phases apart`);
  }
  console.log(`  decoder alone: median ${median(base.map((b) => b.cpu)).toFixed(1)} CPU-s`);
  rmSync(dir, { recursive: true, force: true });
}

void main();
