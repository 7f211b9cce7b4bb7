// Preloaded into a benchmarked child (`node --import …/rusage-preload.mjs …`): on exit it appends the
// process's resource usage (all threads; not its own child processes) as one JSON line to the file named
// by PARACAP_BENCH_RUSAGE. A node process the child starts with the same options (bin/paracap.js runs
// `run` again with its V8 flags, shared/cli/node-flags.ts) loads it too and adds its own line, so the
// reader sums CPU over the run's node processes (still without the decoder children, which are not node).
// maxRSS is in KiB, CPU times in microseconds (process.resourceUsage()). It also gives the process's start
// and exit (epoch ms) and when each bz2 decoder child it started ran, so a bench can tell the time in which
// no decoder ran: start-up before the first, gaps between shards, the work after the last.
import { ChildProcess } from "node:child_process";
import { appendFileSync } from "node:fs";
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
    const line = { pid: process.pid, maxRssKiB: r.maxRSS, userMicros: r.userCPUTime, systemMicros: r.systemCPUTime, startMs: performance.timeOrigin, exitMs: Date.now(), decoders };
    appendFileSync(out, JSON.stringify(line) + "\n");
  });
}
