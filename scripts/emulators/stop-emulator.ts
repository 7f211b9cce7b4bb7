/**
 * `npm run emulate -- --stop`: ends the emulator that `<dir>/env.json` names, for when its terminal
 * is gone or its npm/npx wrapper was killed with SIGKILL (the wrapper dies alone; the emulator's
 * node process and its Pub/Sub JVM keep running and a restart says "already running").
 * The node process is asked to stop (SIGTERM: it stops its functions, the JVM and removes env.json);
 * what is still there after a grace period is killed. A pid is only signalled while it still is
 * what env.json says (the emulator's command line, the JVM's process group), never a reused pid.
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { emulatorEnvPath, isAlive, readEmulatorEnv, type EmulatorEnvFile } from "../../shared/cloud/emulator-env.ts";

/** The command line of a process (Linux /proc), "" when gone; null where /proc cannot tell. */
function commandLine(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") {
      try {
        readdirSync("/proc/self");
        return ""; // /proc works: the process is gone
      } catch {
        return null;
      }
    }
    return null;
  }
}

/** Pids whose process group is `group` (the JVM and its watchdog shell), from /proc. */
function groupMembers(group: number): number[] {
  const out: number[] = [];
  let pids: string[] = [];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  for (const p of pids) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "latin1");
      const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      if (pgrp === group) out.push(Number(p));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

export interface RunningEmulator {
  /** the emulate.ts node process, if it still runs */
  node: number | null;
  /** the Pub/Sub emulator's process group (watchdog shell and JVM), if it still runs */
  pubsubGroup: number | null;
  /** every pid of that group */
  pubsubPids: number[];
}

/** What of the emulator recorded in env.json still runs (a pid now used by another program does not count). */
export function runningEmulator(env: EmulatorEnvFile): RunningEmulator {
  const cmd = isAlive(env.pid) ? commandLine(env.pid) : "";
  const node = cmd === null || /emulate/.test(cmd) ? (isAlive(env.pid) ? env.pid : null) : null;
  const members = env.pubsubPid === null ? [] : groupMembers(env.pubsubPid);
  const pubsubGroup = env.pubsubPid !== null && (members.length > 0 || (commandLine(env.pubsubPid) === null && isAlive(env.pubsubPid))) ? env.pubsubPid : null;
  return { node, pubsubGroup, pubsubPids: members };
}

/** "pid 12 (emulator), Pub/Sub JVM group 34 (pids 34, 35)": what a message names. */
export function describeRunning(r: RunningEmulator): string {
  const parts: string[] = [];
  if (r.node !== null) parts.push(`pid ${r.node} (emulator)`);
  if (r.pubsubGroup !== null) parts.push(`Pub/Sub JVM process group ${r.pubsubGroup}${r.pubsubPids.length > 0 ? ` (pids ${r.pubsubPids.join(", ")})` : ""}`);
  return parts.join(", ");
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** Stops the emulator recorded in `dir`; returns what it did, one line each. */
export async function stopEmulator(dir: string, graceMs = 15_000): Promise<string[]> {
  const env = readEmulatorEnv(dir);
  if (env === null) return [`no emulator is recorded in ${dir} (no env.json): nothing to stop`];
  const before = runningEmulator(env);
  const said: string[] = [];
  if (before.node === null && before.pubsubGroup === null) {
    rmSync(emulatorEnvPath(dir), { force: true });
    return [`the emulator recorded in ${dir} (pid ${env.pid}) is no longer running: removed its env.json`];
  }
  said.push(`stopping ${describeRunning(before)}`);
  if (before.node !== null) signal(before.node, "SIGTERM");
  else if (before.pubsubGroup !== null) signal(-before.pubsubGroup, "SIGTERM");
  const deadline = Date.now() + graceMs;
  const stillRunning = () => {
    const r = runningEmulator(env);
    return r.node !== null || r.pubsubGroup !== null;
  };
  while (stillRunning() && Date.now() < deadline) await sleep(100);
  if (stillRunning()) {
    const r = runningEmulator(env);
    said.push(`still running after ${graceMs / 1000} s: killing ${describeRunning(r)}`);
    if (r.node !== null) signal(r.node, "SIGKILL");
    if (r.pubsubGroup !== null) signal(-r.pubsubGroup, "SIGKILL");
    for (let i = 0; i < 50 && stillRunning(); i++) await sleep(100);
  }
  rmSync(emulatorEnvPath(dir), { force: true });
  said.push(stillRunning() ? `could not stop ${describeRunning(runningEmulator(env))}` : "stopped");
  return said;
}
