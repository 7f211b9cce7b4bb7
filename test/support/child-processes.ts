/** This test process's child processes, as the system sees them (Linux /proc): what a decoder was really started with. */
import { readdirSync, readFileSync } from "node:fs";

/** Arguments (after the program) of this process's living child processes named `name`. */
export function childArgs(name: string): string[][] {
  const found: string[][] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // comm is in parentheses and may hold spaces; the fields after it start with state, ppid
      if (stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")) !== name) continue;
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) !== process.pid) continue;
      found.push(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((a) => a !== "").slice(1));
    } catch {
      // ended while being looked at
    }
  }
  return found;
}
