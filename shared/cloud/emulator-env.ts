/**
 * The hand-off from `npm run emulate` to `paracap cloud …`: the emulator writes its endpoints,
 * buckets and topics to `<dir>/env.json` (default dir `.paracap-emulator`), and the CLI reads them
 * (`--emulator <dir>`, or by default when nothing else is configured). One step, no exports.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

export const DEFAULT_EMULATOR_DIR = ".paracap-emulator";
export const EMULATOR_ENV_FILE = "env.json";

export const EmulatorEnvFile = z.object({
  /** the `npm run emulate` process */
  pid: z.number().int(),
  /** the Pub/Sub emulator's JVM, to clean up after a crash of `pid` */
  pubsubPid: z.number().int().nullable(),
  gcsPort: z.number().int(),
  pubsubPort: z.number().int(),
  env: z.record(z.string(), z.string()),
});
export type EmulatorEnvFile = z.infer<typeof EmulatorEnvFile>;

export function emulatorEnvPath(dir: string): string {
  return join(dir, EMULATOR_ENV_FILE);
}

/** The file's contents, or null when there is none (or it is unreadable). */
export function readEmulatorEnv(dir: string): EmulatorEnvFile | null {
  const path = emulatorEnvPath(dir);
  if (!existsSync(path)) return null;
  try {
    return EmulatorEnvFile.parse(JSON.parse(readFileSync(path, "utf8")));
  } catch {
    return null;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
