/**
 * One run per output folder at a time, and no leftovers from killed runs: the lock file names the
 * process that holds it (pid, its start time, host and a random token; a lock whose process is gone
 * is taken over), and temporary files of processes that are gone (`*.tmp-<pid>-…`, see
 * io/local-store.ts) are removed before the run starts.
 *
 * Taking the lock is atomic: the record is written whole to a temporary file and hard-linked into
 * place (link fails if the lock exists), so no one ever reads a half-written lock. A stale lock is
 * removed only under a second lock (`.paracap.lock.break`, taken the same way) and only after it is
 * read again and still the same stale record; the new lock is then linked like any other. So of any
 * number of runs started at once over a stale lock, exactly one holds the folder.
 * A live pid is judged by its start time (/proc/<pid>/stat), so a pid reused by another program
 * (pid 1, a shell) does not block the folder. A lock the tool cannot judge (another host, or an
 * older paracap's pid-only lock whose pid is alive) is refused with the file to delete by hand.
 */
import { link, mkdir, readdir, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { existsSync, readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { TMP_MARK } from "../io/local-store.ts";
import { guardIo, storageError } from "../io/storage-error.ts";

export const LOCK_FILE = ".paracap.lock";
/** Held while a stale lock is removed: one remover at a time. */
export const BREAK_FILE = ".paracap.lock.break";

export class OutDirBusyError extends Error {
  override readonly name = "OutDirBusyError";
}

/** What a lock file holds. `start`: the process's start time (clock ticks since boot), null where /proc is missing. */
export const LockRecord = z.object({ pid: z.number().int(), start: z.string().nullable(), host: z.string(), token: z.string() });
export type LockRecord = z.infer<typeof LockRecord>;

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  // a zombie (exited, not yet reaped: for a while after kill -9, or for good under a PID 1 that never
  // reaps) answers the signal but holds nothing
  return processState(pid) !== "Z";
}

/** The state letter of a process (field 3 of /proc/<pid>/stat), or null where /proc cannot tell. */
function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] ?? null;
  } catch {
    return null;
  }
}

/** Start time of a process (field 22 of /proc/<pid>/stat, with the boot id), or null where /proc cannot tell. */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    // the command name (field 2) is in parentheses and may hold spaces: count fields after its ")"
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = fields[19];
    if (ticks === undefined || !/^\d+$/.test(ticks)) return null;
    let boot = "";
    try {
      boot = readFileSync("/proc/sys/kernel/random/boot_id", "latin1").trim();
    } catch {
      // no boot id: the start time alone
    }
    return boot ? `${boot}:${ticks}` : ticks;
  } catch {
    return null;
  }
}

type Verdict = { kind: "stale" } | { kind: "busy"; message: string } | { kind: "gone" };

/** Whether the lock in `text` belongs to a running process, judged as well as this host can. */
function judge(text: string | null, path: string, dir: string): Verdict {
  if (text === null) return { kind: "gone" };
  const clear = `if no paracap run is writing to ${dir}, delete ${path} and start again`;
  let record: LockRecord | null = null;
  try {
    const parsed = LockRecord.safeParse(JSON.parse(text));
    if (parsed.success) record = parsed.data;
  } catch {
    // an older paracap's lock: "<pid>\n"
  }
  if (record === null) {
    const pid = Number(text.trim());
    if (!Number.isInteger(pid) || pid <= 0) return { kind: "busy", message: `the lock ${path} is not one paracap wrote (${JSON.stringify(text.slice(0, 40))}): ${clear}` };
    if (!alive(pid) || pid === process.pid) return { kind: "stale" };
    return { kind: "busy", message: `another paracap run (pid ${pid}) is writing to ${dir}; wait for it, or choose another --out (the lock names no start time, so a reused pid cannot be told: ${clear})` };
  }
  if (record.host !== hostname()) {
    return { kind: "busy", message: `a paracap run on host ${record.host} (pid ${record.pid}) holds ${dir}; this host cannot tell whether it still runs: ${clear}` };
  }
  if (!alive(record.pid)) return { kind: "stale" };
  const start = processStart(record.pid);
  if (record.start !== null && start !== null && start !== record.start) return { kind: "stale" }; // the pid was reused
  return { kind: "busy", message: `another paracap run (pid ${record.pid}) is writing to ${dir}; wait for it, or choose another --out (${clear})` };
}

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw storageError(err, "read", path);
  }
}

/** Creates `path` holding `text`, atomically and only if it does not exist; false if it does. */
async function createWhole(path: string, text: string, token: string): Promise<boolean> {
  const tmp = `${path}${TMP_MARK}${process.pid}-${token}`;
  await guardIo("write", tmp, () => writeFile(tmp, text));
  try {
    await link(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw storageError(err, "write", path);
  } finally {
    await rm(tmp, { force: true });
  }
}

/**
 * mkdir -p that reports the real cause: Node's recursive mkdir says ENOENT for a folder it cannot
 * create on a read-only file system; the first missing folder, made on its own, gives EROFS/EACCES.
 */
export async function mkdirWithCause(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    let missing = resolve(dir);
    while (!existsSync(dirname(missing)) && dirname(missing) !== missing) missing = dirname(missing);
    await mkdir(missing); // throws the real error; if it succeeds, the original one stands
    throw err;
  }
}

/** Takes the folder's lock; returns its release. */
export async function lockOutDir(dir: string): Promise<() => Promise<void>> {
  await guardIo("create", dir, () => mkdirWithCause(dir));
  const path = join(dir, LOCK_FILE);
  const breakPath = join(dir, BREAK_FILE);
  const token = randomBytes(12).toString("hex");
  const mine = `${JSON.stringify({ pid: process.pid, start: processStart(process.pid), host: hostname(), token } satisfies LockRecord)}\n`;
  const release = async () => {
    // only our own lock: a lock we no longer hold is someone else's
    if ((await readOrNull(path)) === mine) await unlink(path).catch(() => {});
  };
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await createWhole(path, mine, token)) {
      // re-check: the lock in place is ours
      if ((await readOrNull(path)) === mine) return release;
      continue;
    }
    const seen = await readOrNull(path);
    const verdict = judge(seen, path, dir);
    if (verdict.kind === "busy") throw new OutDirBusyError(verdict.message);
    if (verdict.kind === "gone") continue;
    // stale: remove it under the break lock, and only if it is still the record judged stale
    if (!(await createWhole(breakPath, mine, token))) {
      const breaker = judge(await readOrNull(breakPath), breakPath, dir);
      if (breaker.kind === "stale") {
        throw new OutDirBusyError(`a paracap run died while taking over ${dir} and left ${breakPath}: if no paracap run is writing there, delete ${breakPath} and ${path} and start again`);
      }
      await sleep(5 + Math.floor(Math.random() * 20)); // another run is taking over: see what it leaves
      continue;
    }
    try {
      if ((await readOrNull(path)) === seen) await unlink(path).catch(() => {});
    } finally {
      await unlink(breakPath).catch(() => {});
    }
  }
  throw new OutDirBusyError(`cannot lock ${dir}: another run keeps taking it`);
}

/** Removes temporary files left by processes that no longer run; returns how many. */
export async function removeStaleTempFiles(dir: string): Promise<number> {
  let removed = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    if (!e.isFile()) continue;
    const at = e.name.lastIndexOf(TMP_MARK);
    if (at < 0) continue;
    const pid = Number(e.name.slice(at + TMP_MARK.length).split("-")[0]);
    if (alive(pid)) continue;
    await rm(join(e.parentPath, e.name), { force: true });
    removed++;
  }
  return removed;
}
