/**
 * A stand-in for a run's reader (consumer-ceiling.ts): decodes each file given with the decoder a
 * run uses, through the run's own path (programOutput: the file piped in, the output read into pooled
 * 1 MiB chunks), and spends `msPerMb` ms of CPU on every MB before giving the chunk back, doing
 * nothing else. Prints one JSON line: wall ms from the first decoder's start to the last one's end,
 * this process's CPU ms in that time, and the decoders' CPU ms (waited-for children, /proc).
 *
 *   node --import tsx scripts/bench/lib/burn-consumer.ts <msPerMb> <file.xml.bz2>…
 */
import { createReadStream, readFileSync } from "node:fs";
import { findSystemBzip2, systemBunzip2 } from "../../../shared/dump/bz2-decoders.ts";
import { releaseChunk } from "../../../shared/dump/chunk-pool.ts";

const [rate, ...files] = process.argv.slice(2);
const msPerMb = Number(rate);
const bin = findSystemBzip2();
if (bin === null || files.length === 0 || !(msPerMb >= 0)) throw new Error("usage: burn-consumer.ts <msPerMb> <file.xml.bz2>… (needs lbzip2 or bzip2)");

/** CPU ms of this process's waited-for children (utime + stime of /proc/self/stat, in clock ticks of 10 ms). */
function childrenCpuMs(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** Spends `ms` of this process's CPU (busy, not sleeping). */
function burn(ms: number): void {
  const end = process.cpuUsage();
  const until = end.user + end.system + ms * 1000;
  let x = 0;
  for (;;) {
    for (let i = 0; i < 2000; i++) x = (x * 31 + i) | 0;
    const u = process.cpuUsage();
    if (u.user + u.system >= until) break;
  }
  if (x === 42) console.error(""); // (keeps the loop from being optimized away)
}

async function main(): Promise<void> {
  const cpu0 = process.cpuUsage();
  const children0 = childrenCpuMs();
  const t0 = performance.now();
  let bytes = 0;
  let owed = 0;
  for (const file of files) {
    for await (const chunk of systemBunzip2(createReadStream(file, { highWaterMark: 1 << 20 }), bin!, file)) {
      bytes += chunk.length;
      owed += (chunk.length / 1e6) * msPerMb;
      if (owed >= 1) {
        burn(owed);
        owed = 0;
      }
      releaseChunk(chunk);
    }
  }
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  console.log(JSON.stringify({ wallMs, ownCpuMs: (cpu.user + cpu.system) / 1000, decoderCpuMs: childrenCpuMs() - children0, bytes }));
}

void main();
