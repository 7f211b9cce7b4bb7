/** One run per --out folder; a killed run's lock and temporary files do not block or litter the next. */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { BREAK_FILE, LOCK_FILE, lockOutDir, OutDirBusyError, processStart, removeStaleTempFiles } from "../../shared/runner/out-dir-lock.ts";
import { readPairs, removeTempDirs, run, SAMPLE, tempDir } from "./helpers.ts";

afterAll(removeTempDirs);

const ROOT = new URL("../../", import.meta.url).pathname;

describe("the --out folder lock", () => {
  it("a live run's lock refuses a second run; a dead run's lock is taken over and released at the end", async () => {
    const dir = tempDir("paracap-lock-");
    const other = spawn("sleep", ["60"]);
    try {
      writeFileSync(join(dir, LOCK_FILE), `${other.pid}\n`);
      const refused = run(dir, SAMPLE.slice(0, 1), { tiers: ["gold"] });
      await expect(refused).rejects.toThrow(OutDirBusyError);
      await expect(refused).rejects.toThrow(`another paracap run (pid ${other.pid}) is writing to ${dir}`);
      expect(existsSync(join(dir, ".work"))).toBe(false); // nothing was written
    } finally {
      other.kill();
      await new Promise((r) => other.once("close", r));
    }
    // the holder is gone now: its lock is stale
    await run(dir, SAMPLE.slice(0, 1), { tiers: ["gold"] });
    expect(readPairs(dir, "gold")).toHaveLength(1);
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it("temporary files of processes that are gone are removed, those of a live process kept", async () => {
    const dir = tempDir("paracap-tmp-");
    mkdirSync(join(dir, ".work/extract/s0"), { recursive: true });
    const dead = join(dir, ".work/extract/s0/p-00001.jsonl.tmp-999999999-abc-0");
    const live = join(dir, `.work/extract/s0/p-00002.jsonl.tmp-${process.pid}-abc-1`);
    writeFileSync(dead, "partial");
    writeFileSync(live, "in progress");
    expect(await removeStaleTempFiles(dir)).toBe(1);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });
});

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const p = spawn("true");
  await new Promise((r) => p.once("close", r));
  return p.pid!;
}

function lockRecord(pid: number, start: string | null, host = hostname()): string {
  return `${JSON.stringify({ pid, start, host, token: "t" })}\n`;
}

describe("taking over a stale lock is atomic", () => {
  it("of four processes started together over a stale lock, exactly one holds the folder (12 trials, synchronised by a go file)", async () => {
    const base = tempDir("paracap-lock-race-");
    const racers = 4;
    const trials = 12;
    const dead = await deadPid();
    for (let t = 0; t < trials; t++) {
      mkdirSync(join(base, `trial-${t}`));
      // stale locks of every kind: a dead pid (new and old format), a reused live pid (pid 1, another start time)
      const stale = [lockRecord(dead, "x:1"), `${dead}\n`, lockRecord(1, "not-its-start")][t % 3]!;
      writeFileSync(join(base, `trial-${t}`, LOCK_FILE), stale);
    }
    const children = Array.from({ length: racers }, (_, i) =>
      spawn(process.execPath, ["--import", "tsx", "test/runner/fixtures/lock-racer.ts", base, String(i), String(trials)], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] }),
    );
    const errors: string[] = [];
    for (const c of children) c.stderr!.on("data", (d) => errors.push(String(d)));
    const exited = children.map((c) => new Promise((r) => c.once("close", r)));
    const waitFor = async (names: string[]) => {
      while (!names.every((n) => existsSync(join(base, n)))) {
        if (errors.length > 0) throw new Error(errors.join(""));
        await sleep(5);
      }
    };
    const held: number[] = [];
    for (let t = 0; t < trials; t++) {
      await waitFor(Array.from({ length: racers }, (_, i) => `ready-${t}-${i}`));
      writeFileSync(join(base, `go-${t}`), "");
      await waitFor(Array.from({ length: racers }, (_, i) => `result-${t}-${i}`));
      const results = Array.from({ length: racers }, (_, i) => readFileSync(join(base, `result-${t}-${i}`), "utf8"));
      expect(results.filter((r) => r !== "held" && r !== "busy"), `trial ${t}`).toEqual([]);
      held.push(results.filter((r) => r === "held").length);
      expect(existsSync(join(base, `trial-${t}`, BREAK_FILE))).toBe(false);
    }
    writeFileSync(join(base, "done"), "");
    await Promise.all(exited);
    expect(held).toEqual(Array(trials).fill(1));
  });
});

describe("a lock is judged by its process's start time, not its pid alone", () => {
  it("a reused live pid (pid 1, a sleep started after the lock) does not block the folder; the real holder does", async () => {
    const dir = tempDir("paracap-lock-reuse-");
    const other = spawn("sleep", ["60"]);
    try {
      await sleep(50);
      for (const stale of [lockRecord(1, "boot:0"), lockRecord(other.pid!, "boot:0")]) {
        writeFileSync(join(dir, LOCK_FILE), stale);
        const release = await lockOutDir(dir);
        expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8")).pid).toBe(process.pid);
        await release();
        expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
      }
      // the same pid with its real start time is a live holder
      writeFileSync(join(dir, LOCK_FILE), lockRecord(other.pid!, processStart(other.pid!)));
      await expect(lockOutDir(dir)).rejects.toThrow(new RegExp(`another paracap run \\(pid ${other.pid}\\)`));
    } finally {
      other.kill();
      await new Promise((r) => other.once("close", r));
    }
  });

  it.runIf(process.platform === "linux")("a holder that died but is not yet reaped (a zombie, as for a moment after kill -9) does not block the folder", async () => {
    const dir = tempDir("paracap-lock-zombie-");
    // sh starts a short sleep and becomes a long one, which never reaps the short one: a zombie
    const parent = spawn("sh", ["-c", "sleep 0.2 & echo $!; exec sleep 60"]);
    try {
      const pid = Number(await new Promise<string>((resolve) => parent.stdout.once("data", (d: Buffer) => resolve(d.toString().trim()))));
      const start = processStart(pid);
      // (the short sleep ends when it ends: waited for, however busy the machine)
      while (!/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "latin1"))) await sleep(50);
      expect(readFileSync(`/proc/${pid}/stat`, "latin1")).toMatch(/\) Z /);
      writeFileSync(join(dir, LOCK_FILE), lockRecord(pid, start));
      const release = await lockOutDir(dir);
      expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8")).pid).toBe(process.pid);
      await release();
    } finally {
      parent.kill();
      await new Promise((r) => parent.once("close", r));
    }
  });

  it("a whole run takes over a lock of pid 1 (it used to block the folder for ever, --fresh or not)", async () => {
    const dir = tempDir("paracap-lock-pid1-");
    writeFileSync(join(dir, LOCK_FILE), lockRecord(1, "boot:0"));
    await run(dir, SAMPLE.slice(0, 1), { tiers: ["gold"] });
    expect(readPairs(dir, "gold")).toHaveLength(1);
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it("a lock it cannot judge (another host; a pid-only lock of a live process) is refused, saying which file to delete", async () => {
    const dir = tempDir("paracap-lock-host-");
    writeFileSync(join(dir, LOCK_FILE), lockRecord(1, "boot:0", "some-other-host"));
    await expect(lockOutDir(dir)).rejects.toThrow(`a paracap run on host some-other-host (pid 1) holds ${dir}; this host cannot tell whether it still runs: if no paracap run is writing to ${dir}, delete ${join(dir, LOCK_FILE)} and start again`);
    writeFileSync(join(dir, LOCK_FILE), "1\n");
    await expect(lockOutDir(dir)).rejects.toThrow(`delete ${join(dir, LOCK_FILE)}`);
  });
});
