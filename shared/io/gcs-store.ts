/**
 * BlobStore over a Cloud Storage bucket (or the local emulator: pass a Storage client with
 * apiEndpoint). Objects are published when their upload completes, so writes are atomic;
 * createIfAbsent uses the ifGenerationMatch=0 precondition.
 */
import type { Bucket } from "@google-cloud/storage";
import type { Readable } from "node:stream";
import { once } from "node:events";
import { withoutSharedAgent } from "./gcs-client.ts";
import type { BlobStore, BlobWriter } from "./blob-store.ts";

const isNotFound = (e: unknown) => (e as { code?: number }).code === 404;
const isPreconditionFailed = (e: unknown) => (e as { code?: number }).code === 412;

export class GcsStore implements BlobStore {
  /** @param prefix object-name prefix, e.g. "runs/abc/" (with trailing slash) */
  constructor(private readonly bucket: Bucket, private readonly prefix = "") {}

  get description(): string {
    return `gs://${this.bucket.name}/${this.prefix}`;
  }

  private file(name: string) {
    // a read stopped early or failed must not cut other requests' connections (gcs-client.ts)
    return withoutSharedAgent(this.bucket.file(this.prefix + name));
  }

  async exists(name: string): Promise<boolean> {
    const [e] = await this.file(name).exists();
    return e;
  }

  async readText(name: string): Promise<string | null> {
    try {
      const [buf] = await this.file(name).download();
      return buf.toString("utf8");
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  /** When the object's current generation was created; null if it does not exist. */
  async timeCreated(name: string): Promise<Date | null> {
    try {
      const [meta] = await this.file(name).getMetadata();
      return meta.timeCreated ? new Date(meta.timeCreated) : null;
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  async readStream(name: string): Promise<Readable | null> {
    if (!(await this.exists(name))) return null;
    return this.file(name).createReadStream();
  }

  async writeText(name: string, text: string): Promise<void> {
    await this.file(name).save(text, { resumable: false });
  }

  async createIfAbsent(name: string, text: string): Promise<boolean> {
    try {
      await this.file(name).save(text, { resumable: false, preconditionOpts: { ifGenerationMatch: 0 } });
      return true;
    } catch (e) {
      if (isPreconditionFailed(e)) return false;
      throw e;
    }
  }

  writer(name: string): BlobWriter {
    // Small objects (most shuffle parts) are buffered and saved in one request; large ones stream
    // through a resumable upload. Either way the object appears only when complete.
    const file = this.file(name);
    const chunks: Buffer[] = [];
    let size = 0;
    let stream: ReturnType<typeof file.createWriteStream> | null = null;
    let failed: Error | null = null;
    const LIMIT = 8 * 1024 * 1024;
    return {
      async write(chunk) {
        const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
        if (failed) throw failed;
        if (!stream) {
          chunks.push(buf);
          size += buf.length;
          if (size < LIMIT) return;
          stream = file.createWriteStream({ resumable: true });
          stream.on("error", (e) => (failed = e));
          for (const c of chunks.splice(0)) if (!stream.write(c)) await once(stream, "drain");
          return;
        }
        if (!stream.write(buf)) await once(stream, "drain");
      },
      async close() {
        if (failed) throw failed;
        if (!stream) {
          await file.save(Buffer.concat(chunks), { resumable: false });
          return;
        }
        const s = stream;
        await new Promise<void>((res, rej) => {
          s.on("error", rej);
          s.on("finish", () => res());
          s.end();
        });
      },
      async abort() {
        chunks.length = 0;
        stream?.destroy();
      },
    };
  }

  async list(prefix: string): Promise<string[]> {
    const [files] = await this.bucket.getFiles({ prefix: this.prefix + prefix, autoPaginate: true });
    return files.map((f) => f.name.slice(this.prefix.length)).sort();
  }

  async delete(name: string): Promise<void> {
    await this.file(name).delete({ ignoreNotFound: true });
  }
}
