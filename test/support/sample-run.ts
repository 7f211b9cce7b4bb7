/**
 * The embedded sample run with the embedded defaults (`run(dir)` of test/runner/helpers.ts), made once
 * per test run and shared (test/support/once.ts): nine files start from that same finished folder, and
 * each run of it costs ~2 CPU-s. The shared folder is read-only by agreement; a test that writes into
 * its folder (a resume, a report rewritten) takes a copy.
 */
import { cpSync } from "node:fs";
import { run, tempDir } from "../runner/helpers.ts";
import { once } from "./once.ts";

/** The finished folder of the default sample run. Never write into it: take `sampleRunCopy` instead. */
export function sampleRun(): Promise<string> {
  return once("sample-run-defaults", async (to) => {
    await run(to);
  });
}

/** A copy of the default sample run in a new temporary folder (removed by removeTempDirs), mtimes kept. */
export async function sampleRunCopy(prefix: string): Promise<string> {
  const from = await sampleRun();
  const dir = tempDir(prefix);
  cpSync(from, dir, { recursive: true, preserveTimestamps: true });
  return dir;
}
