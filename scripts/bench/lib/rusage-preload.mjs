// Preloaded into a benchmarked child (`node --import …/rusage-preload.mjs …`): on exit it appends the
// process's resource usage (all threads; not its own child processes) as one JSON line to the file named
// by PARACAP_BENCH_RUSAGE. A node process the child starts with the same options (bin/paracap.js runs
// `run` again with its V8 flags, shared/cli/node-flags.ts) loads it too and adds its own line, so the
// reader sums CPU over the run's node processes (still without the decoder children, which are not node).
// maxRSS is in KiB, CPU times in microseconds (process.resourceUsage()).
import { appendFileSync } from "node:fs";
import { isMainThread } from "node:worker_threads";

const out = process.env.PARACAP_BENCH_RUSAGE;
// Worker threads may load the preload too: their resourceUsage() is the whole process's, so only the main thread writes.
if (out && isMainThread) {
  process.on("exit", () => {
    const r = process.resourceUsage();
    appendFileSync(out, JSON.stringify({ pid: process.pid, maxRssKiB: r.maxRSS, userMicros: r.userCPUTime, systemMicros: r.systemCPUTime }) + "\n");
  });
}
