/**
 * One run per output folder at a time, and no leftovers from killed runs: the lock file names the
 * pid that holds it (a lock whose process is gone is taken over), and temporary files of processes
 * that are gone (`*.tmp-<pid>-…`, see io/local-store.ts) are removed before the run starts.
 */
import { mkdir, open, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { TMP_MARK } from "../io/local-store.ts";

export const LOCK_FILE = ".paracap.lock";

export class OutDirBusyError extends Error {
  override readonly name = "OutDirBusyError";
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Takes the folder's lock; returns its release. */
export async function lockOutDir(dir: string): Promise<() => Promise<void>> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fh = await open(path, "wx");
      await fh.writeFile(`${process.pid}\n`);
      await fh.close();
      return () => rm(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = Number((await readFile(path, "utf8").catch(() => "")).trim());
      if (alive(holder) && holder !== process.pid) {
        throw new OutDirBusyError(`another paracap run (pid ${holder}) is writing to ${dir}; wait for it, or choose another --out`);
      }
      await rm(path, { force: true }); // its run was killed: take the folder over
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
