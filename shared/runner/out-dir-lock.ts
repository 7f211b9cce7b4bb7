/**
 * One run per output folder at a time, and no leftovers from killed runs: the lock file names the
 * pid that holds it (a lock whose process is gone is taken over), and temporary files of processes
 * that are gone (`*.tmp-<pid>-…`, see io/local-store.ts) are removed before the run starts.
 */
import { mkdir, open, readdir, readFile, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { TMP_MARK } from "../io/local-store.ts";
import { guardIo, storageError } from "../io/storage-error.ts";

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
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fh = await open(path, "wx");
      await fh.writeFile(`${process.pid}\n`);
      await fh.close();
      return () => rm(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw storageError(err, "write", path);
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
