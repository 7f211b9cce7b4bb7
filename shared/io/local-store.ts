/** BlobStore over a local directory; writes go to a temporary name and are renamed into place. */
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile, open } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { once } from "node:events";
import type { BlobStore, BlobWriter } from "./blob-store.ts";

let tmpCounter = 0;
function tmpName(path: string): string {
  return `${path}.tmp-${process.pid}-${Date.now().toString(36)}-${(tmpCounter++).toString(36)}`;
}

export class LocalStore implements BlobStore {
  constructor(readonly root: string) {}

  get description(): string {
    return this.root;
  }

  private path(name: string): string {
    if (name.includes("..")) throw new Error(`invalid object name: ${name}`);
    return join(this.root, name);
  }

  async exists(name: string): Promise<boolean> {
    return stat(this.path(name)).then(() => true, () => false);
  }

  async readText(name: string): Promise<string | null> {
    return readFile(this.path(name), "utf8").catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return null;
      throw e;
    });
  }

  async readStream(name: string) {
    if (!(await this.exists(name))) return null;
    return createReadStream(this.path(name));
  }

  async writeText(name: string, text: string): Promise<void> {
    const p = this.path(name);
    await mkdir(dirname(p), { recursive: true });
    const tmp = tmpName(p);
    await writeFile(tmp, text);
    await rename(tmp, p);
  }

  async createIfAbsent(name: string, text: string): Promise<boolean> {
    const p = this.path(name);
    await mkdir(dirname(p), { recursive: true });
    try {
      const fh = await open(p, "wx");
      await fh.writeFile(text);
      await fh.close();
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw e;
    }
  }

  writer(name: string): BlobWriter {
    const p = this.path(name);
    const tmp = tmpName(p);
    let stream: ReturnType<typeof createWriteStream> | null = null;
    const ensure = async () => {
      if (!stream) {
        await mkdir(dirname(p), { recursive: true });
        stream = createWriteStream(tmp);
      }
      return stream;
    };
    return {
      async write(chunk) {
        const s = await ensure();
        if (!s.write(chunk)) await once(s, "drain");
      },
      async close() {
        const s = await ensure();
        await new Promise<void>((res, rej) => s.end((err?: Error | null) => (err ? rej(err) : res())));
        await rename(tmp, p);
      },
      async abort() {
        const s = stream as ReturnType<typeof createWriteStream> | null;
        if (s) s.destroy();
        await rm(tmp, { force: true });
      },
    };
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const e of entries) {
        const full = join(dir, e.name);
        if (e.isDirectory()) await walk(full);
        else if (!e.name.includes(".tmp-")) out.push(relative(this.root, full).split(sep).join("/"));
      }
    };
    const base = prefix.includes("/") ? prefix.slice(0, prefix.lastIndexOf("/")) : "";
    await walk(join(this.root, base));
    return out.filter((n) => n.startsWith(prefix)).sort();
  }

  async delete(name: string): Promise<void> {
    await rm(this.path(name), { force: true, recursive: true });
  }
}
