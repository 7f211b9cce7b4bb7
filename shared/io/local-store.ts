/**
 * BlobStore over a local directory; writes go to a temporary name and are renamed into place.
 * A writer holds no file handle between writes (each chunk is an append), so the number of open
 * files stays bounded however many partition writers a task keeps; fs failures surface as one-line
 * StorageErrors naming the path.
 *
 * Its operations are synchronous under their promises: a run's objects are small files in the page
 * cache (markers, partition files, the outputs), where a trip through libuv's thread pool costs far
 * more than the call (the end of a run does ~1,500 of them while the caller only waits). Only a large
 * object's read stream stays asynchronous.
 */
import { appendFileSync, closeSync, createReadStream, fstatSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { Readable } from "node:stream";
import { dirname, join, relative, sep } from "node:path";
import type { BlobStore, BlobWriter } from "./blob-store.ts";
import { StorageError, storageError } from "./storage-error.ts";

/** Objects up to this size are read in one call by readStream (a stream of one chunk). */
const SMALL_OBJECT_BYTES = 1 << 20;

/** Runs a synchronous fs operation, its failure as a StorageError. */
function guardSync<T>(op: string, path: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw storageError(err, op, path);
  }
}

function isMissing(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return code === "ENOENT";
}

let tmpCounter = 0;
/** Marks a temporary file; `paracap run` removes stale ones (see tmp-files.ts). */
export const TMP_MARK = ".tmp-";
function tmpName(path: string): string {
  return `${path}${TMP_MARK}${process.pid}-${Date.now().toString(36)}-${(tmpCounter++).toString(36)}`;
}

/**
 * An object name is a relative path of ordinary segments: no empty, `.` or `..` segment, no NUL.
 * (`release..v2.xml` is an ordinary segment; only a whole `..` segment could leave the root.)
 */
export function isSafeObjectName(name: string): boolean {
  if (name.length === 0 || name.includes("\0") || name.startsWith("/")) return false;
  return name.split("/").every((seg) => seg !== "" && seg !== "." && seg !== "..");
}

export class LocalStore implements BlobStore {
  /** folders this store made or found (a write there skips its mkdir; a write that finds one gone makes it again) */
  private readonly folders = new Set<string>();

  constructor(readonly root: string) {}

  /** Runs `fn` (which creates a file at `p`) once `p`'s folder exists (failing to make it: a StorageError). */
  private inFolder<T>(p: string, fn: () => T): T {
    const dir = dirname(p);
    if (!this.folders.has(dir)) {
      guardSync("write", p, () => mkdirSync(dir, { recursive: true }));
      this.folders.add(dir);
      return fn();
    }
    try {
      return fn();
    } catch (e) {
      if (!isMissing(e)) throw e;
      this.folders.delete(dir); // removed since (a redone phase, --fresh): made again
      return this.inFolder(p, fn);
    }
  }

  get description(): string {
    return this.root;
  }

  private path(name: string): string {
    if (!isSafeObjectName(name)) throw new Error(`invalid object name: ${name}`);
    return join(this.root, name);
  }

  async exists(name: string): Promise<boolean> {
    return statSync(this.path(name), { throwIfNoEntry: false }) !== undefined;
  }

  async readText(name: string): Promise<string | null> {
    const p = this.path(name);
    try {
      return readFileSync(p, "utf8");
    } catch (e) {
      if (isMissing(e)) return null;
      throw storageError(e, "read", p);
    }
  }

  async readStream(name: string) {
    const p = this.path(name);
    // Opened here, so a failure (EMFILE, EACCES) is reported with the path, not later by the consumer.
    let fd: number;
    try {
      fd = openSync(p, "r");
    } catch (e) {
      if (isMissing(e)) return null;
      throw storageError(e, "read", p);
    }
    let small: Buffer | null = null;
    try {
      if (fstatSync(fd).size <= SMALL_OBJECT_BYTES) small = readFileSync(fd);
    } catch (e) {
      closeSync(fd);
      throw storageError(e, "read", p);
    }
    if (small) {
      closeSync(fd);
      return Readable.from(small.length > 0 ? [small] : [], { objectMode: false });
    }
    return createReadStream(p, { fd }); // closes the file at its end
  }

  async writeText(name: string, text: string): Promise<void> {
    const p = this.path(name);
    guardSync("write", p, () => {
      const tmp = tmpName(p);
      try {
        this.inFolder(p, () => writeFileSync(tmp, text));
        renameSync(tmp, p);
      } catch (err) {
        try {
          rmSync(tmp, { force: true });
        } catch {
          // the first failure is the one to report
        }
        throw err;
      }
    });
  }

  /**
   * Creates `name` with `text` unless it exists. The text is written to a temporary file first and then
   * hard-linked into place (link fails when the name exists), so a reader never sees a half-written object.
   */
  async createIfAbsent(name: string, text: string): Promise<boolean> {
    const p = this.path(name);
    const tmp = tmpName(p);
    try {
      this.inFolder(p, () => writeFileSync(tmp, text));
      try {
        linkSync(tmp, p);
      } catch (e) {
        // a file system without hard links: exclusive create, written in place
        if (!["EPERM", "ENOTSUP", "ENOSYS", "EOPNOTSUPP"].includes((e as NodeJS.ErrnoException).code ?? "")) throw e;
        const fd = openSync(p, "wx");
        try {
          writeFileSync(fd, text);
        } finally {
          closeSync(fd);
        }
      }
      return true;
    } catch (e) {
      if (!(e instanceof StorageError) && (e as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw storageError(e, "write", p);
    } finally {
      try {
        rmSync(tmp, { force: true });
      } catch {
        // never written (its folder could not be made): the first failure is the one reported
      }
    }
  }

  writer(name: string): BlobWriter {
    const p = this.path(name);
    const tmp = tmpName(p);
    let started = false;
    const start = () => {
      if (!started) {
        this.inFolder(p, () => writeFileSync(tmp, ""));
        started = true;
      }
    };
    return {
      async write(chunk) {
        guardSync("write", p, () => {
          start();
          appendFileSync(tmp, chunk);
        });
      },
      async close() {
        guardSync("write", p, () => {
          start();
          renameSync(tmp, p);
        });
      },
      async abort() {
        try {
          rmSync(tmp, { force: true });
        } catch {
          // nothing was published; a stale temporary file is removed by the next run
        }
      },
    };
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    const walk = (dir: string): void => {
      let entries: import("node:fs").Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "ENOTDIR") return;
        throw storageError(e, "list", dir);
      }
      for (const e of entries) {
        const full = join(dir, e.name);
        if (e.isDirectory()) walk(full);
        else if (!e.name.includes(TMP_MARK)) out.push(relative(this.root, full).split(sep).join("/"));
      }
    };
    const base = prefix.includes("/") ? prefix.slice(0, prefix.lastIndexOf("/")) : "";
    walk(join(this.root, base));
    return out.filter((n) => n.startsWith(prefix)).sort();
  }

  async delete(name: string): Promise<void> {
    const p = this.path(name);
    this.folders.clear(); // a name may be a folder
    guardSync("delete", p, () => rmSync(p, { force: true, recursive: true }));
  }
}
