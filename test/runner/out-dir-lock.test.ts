/** One run per --out folder; a killed run's lock and temporary files do not block or litter the next. */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LOCK_FILE, OutDirBusyError, removeStaleTempFiles } from "../../shared/runner/out-dir-lock.ts";
import { readPairs, removeTempDirs, run, SAMPLE, tempDir } from "./helpers.ts";

afterAll(removeTempDirs);

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
