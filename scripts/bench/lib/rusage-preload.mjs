// Preloaded into a benchmarked child (`node --import …/rusage-preload.mjs …`): on exit it writes the
// process's resource usage (all threads; not its own child processes) as JSON to the file named by
// PARACAP_BENCH_RUSAGE. maxRSS is in KiB, CPU times in microseconds (process.resourceUsage()).
import { writeFileSync } from "node:fs";

const out = process.env.PARACAP_BENCH_RUSAGE;
if (out) {
  process.on("exit", () => {
    const r = process.resourceUsage();
    writeFileSync(out, JSON.stringify({ maxRssKiB: r.maxRSS, userMicros: r.userCPUTime, systemMicros: r.systemCPUTime }));
  });
}
