/**
 * BlobStore over a local directory; writes go to a temporary name and are renamed into place.
 * A writer holds no file handle between writes (each chunk is an append), so the number of open
 * files stays bounded however many partition writers a task keeps; fs failures surface as one-line
 * StorageErrors naming the path.
 */
import { appendFile, link, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import type { BlobStore, BlobWriter } from "./blob-store.ts";
import { guardIo, storageError } from "./storage-error.ts";

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
  constructor(readonly root: string) {}

  get description(): string {
    return this.root;
  }

  private path(name: string): string {
    if (!isSafeObjectName(name)) throw new Error(`invalid object name: ${name}`);
    return join(this.root, name);
  }

  async exists(name: string): Promise<boolean> {
    return stat(this.path(name)).then(() => true, () => false);
  }

  async readText(name: string): Promise<string | null> {
    const p = this.path(name);
    return readFile(p, "utf8").catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return null;
      throw storageError(e, "read", p);
    });
  }

  async readStream(name: string) {
    const p = this.path(name);
    // Opened here, so a failure (EMFILE, EACCES) is reported with the path, not later by the consumer.
    const fh = await open(p, "r").catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return null;
      throw storageError(e, "read", p);
    });
    return fh ? fh.createReadStream() : null;
  }

  async writeText(name: string, text: string): Promise<void> {
    const p = this.path(name);
    await guardIo("write", p, async () => {
      await mkdir(dirname(p), { recursive: true });
      const tmp = tmpName(p);
      try {
        await writeFile(tmp, text);
        await rename(tmp, p);
      } catch (err) {
        await rm(tmp, { force: true }).catch(() => {});
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
    await guardIo("write", p, () => mkdir(dirname(p), { recursive: true }));
    const tmp = tmpName(p);
    try {
      await writeFile(tmp, text);
      try {
        await link(tmp, p);
      } catch (e) {
        // a file system without hard links: exclusive create, written in place
        if (!["EPERM", "ENOTSUP", "ENOSYS", "EOPNOTSUPP"].includes((e as NodeJS.ErrnoException).code ?? "")) throw e;
        const fh = await open(p, "wx");
        try {
          await fh.writeFile(text);
        } finally {
          await fh.close();
        }
      }
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw storageError(e, "write", p);
    } finally {
      await rm(tmp, { force: true });
    }
  }

  writer(name: string): BlobWriter {
    const p = this.path(name);
    const tmp = tmpName(p);
    let started = false;
    const start = async () => {
      if (!started) {
        await mkdir(dirname(p), { recursive: true });
        await writeFile(tmp, "");
        started = true;
      }
    };
    return {
      async write(chunk) {
        await guardIo("write", p, async () => {
          await start();
          await appendFile(tmp, chunk);
        });
      },
      async close() {
        await guardIo("write", p, async () => {
          await start();
          await rename(tmp, p);
        });
      },
      async abort() {
        await rm(tmp, { force: true }).catch(() => {});
      },
    };
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch((e: NodeJS.ErrnoException) => {
        if (e.code === "ENOENT" || e.code === "ENOTDIR") return [];
        throw storageError(e, "list", dir);
      });
      for (const e of entries) {
        const full = join(dir, e.name);
        if (e.isDirectory()) await walk(full);
        else if (!e.name.includes(TMP_MARK)) out.push(relative(this.root, full).split(sep).join("/"));
      }
    };
    const base = prefix.includes("/") ? prefix.slice(0, prefix.lastIndexOf("/")) : "";
    await walk(join(this.root, base));
    return out.filter((n) => n.startsWith(prefix)).sort();
  }

  async delete(name: string): Promise<void> {
    const p = this.path(name);
    await guardIo("delete", p, () => rm(p, { force: true, recursive: true }));
  }
}
