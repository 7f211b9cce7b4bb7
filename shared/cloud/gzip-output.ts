/**
 * The cloud runner's output store: the datasets (`gold.jsonl`, …) are written gzip-compressed as
 * `gold.jsonl.gz`; everything else passes through. The aggregate task stays runner-agnostic and
 * the local runner keeps plain JSONL.
 *
 * Compression is deterministic (zlib writes no timestamp or name into the gzip header, and the
 * deflate output depends only on the bytes), so a retried aggregate writes byte-identical objects.
 */
import { once } from "node:events";
import { createGzip } from "node:zlib";
import type { BlobStore, BlobWriter } from "../io/blob-store.ts";

export const GZIP_SUFFIX = ".gz";

export class GzipDatasets implements BlobStore {
  /** @param compressed object names (as the task writes them) to store gzip-compressed under `name.gz` */
  constructor(private readonly inner: BlobStore, private readonly compressed: ReadonlySet<string>) {}

  get description(): string {
    return this.inner.description;
  }

  exists(name: string) {
    return this.inner.exists(name);
  }
  readText(name: string) {
    return this.inner.readText(name);
  }
  readStream(name: string) {
    return this.inner.readStream(name);
  }
  writeText(name: string, text: string) {
    return this.inner.writeText(name, text);
  }
  createIfAbsent(name: string, text: string) {
    return this.inner.createIfAbsent(name, text);
  }
  list(prefix: string) {
    return this.inner.list(prefix);
  }
  delete(name: string) {
    return this.inner.delete(name);
  }

  writer(name: string): BlobWriter {
    if (!this.compressed.has(name)) return this.inner.writer(name);
    const out = this.inner.writer(name + GZIP_SUFFIX);
    const gz = createGzip({ level: 9 });
    // Moves compressed bytes to the object as zlib produces them (bounded memory).
    const pump = (async () => {
      for await (const chunk of gz) await out.write(chunk as Buffer);
    })();
    pump.catch(() => {}); // surfaced by close()
    return {
      async write(chunk) {
        if (!gz.write(chunk)) await Promise.race([once(gz, "drain"), pump]);
      },
      async close() {
        gz.end();
        await pump;
        await out.close();
      },
      async abort() {
        gz.destroy();
        await pump.catch(() => {});
        await out.abort();
      },
    };
  }
}
