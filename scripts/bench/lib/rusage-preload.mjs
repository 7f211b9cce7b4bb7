// Preloaded into a benchmarked child (`node --import …/rusage-preload.mjs …`): on exit it appends the
// process's resource usage (all threads; not its own child processes) as one JSON line to the file named
// by PARACAP_BENCH_RUSAGE. A node process the child starts with the same options (bin/paracap.js runs
// `run` again with its V8 flags, shared/cli/node-flags.ts) loads it too and adds its own line, so the
// reader sums CPU over the run's node processes (still without the decoder children, which are not node).
// maxRSS is in KiB, CPU times in microseconds (process.resourceUsage()). It also gives the process's start
// and exit (epoch ms) and when each bz2 decoder child it started ran, so a bench can tell the time in which
// no decoder ran: start-up before the first, gaps between shards, the work after the last. On Linux it
// adds the CPU of the child processes it has waited for (/proc/self/stat's cutime and cstime: the
// decoders, and for the launcher the relaunched node with everything that one waited for), so a bench
// can tell the decoders' CPU inside the run from paracap's own.
import { ChildProcess } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";
import { isMainThread } from "node:worker_threads";

const out = process.env.PARACAP_BENCH_RUSAGE;
// Worker threads may load the preload too: their resourceUsage() is the whole process's, so only the main thread writes.
if (out && isMainThread) {
  /** [spawned, exited] epoch ms of each decoder child (exited null if it outlived this process) */
  const decoders = [];
  const spawn = ChildProcess.prototype.spawn;
  ChildProcess.prototype.spawn = function (options) {
    const result = spawn.call(this, options);
    if (/bzip2$/.test(String(options?.file ?? ""))) {
      const span = [Date.now(), null];
      decoders.push(span);
      this.once("exit", () => (span[1] = Date.now()));
    }
    return result;
  };
  process.on("exit", () => {
    const r = process.resourceUsage();
    const line = { pid: process.pid, ppid: process.ppid, maxRssKiB: r.maxRSS, userMicros: r.userCPUTime, systemMicros: r.systemCPUTime, childrenMicros: waitedChildrenMicros(), startMs: performance.timeOrigin, exitMs: Date.now(), decoders };
    appendFileSync(out, JSON.stringify(line) + "\n");
  });
}

/** CPU µs of the waited-for child processes (cutime + cstime, in clock ticks of 10 ms), or null where /proc is not there. */
function waitedChildrenMicros() {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // fields after the command name (which may hold spaces), from the 3rd: cutime and cstime are the 16th and 17th
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[13]) + Number(f[14])) * 10_000;
  } catch {
    return null;
  }
}
