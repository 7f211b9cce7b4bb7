/**
 * A small Cloud Storage JSON-API server for local runs and tests: speaks what the official
 * `@google-cloud/storage` v7 client sends when given `apiEndpoint: "http://127.0.0.1:PORT"` (JSON
 * API under `/storage/v1`, uploads under `/upload/storage/v1`) or `STORAGE_EMULATOR_HOST`
 * (JSON API at the root). Object bytes live on disk; finalize events go out as Eventarc-style
 * CloudEvents to registered URLs.
 *
 * CLI: `npx tsx scripts/emulators/gcs-server.ts --port 9023 --dir /tmp/gcs [--bucket NAME]... [--notify BUCKET=URL]...`
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { sendError } from "./gcs/http.ts";
import { FinalizeNotifier, type NotificationTarget, type NotifierOptions, type NotifierStats } from "./gcs/notifier.ts";
import { objectResource } from "./gcs/resources.ts";
import { route } from "./gcs/routes.ts";
import { EmulatedBucketStore, type Finalize } from "./gcs/store.ts";
import { Uploads } from "./gcs/uploads.ts";

export { objectResource } from "./gcs/resources.ts";

export interface GcsServerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Where object bytes are kept; default: a fresh temp dir removed on close. */
  dir?: string;
  /** Buckets to create at start. */
  buckets?: string[];
  notifications?: NotificationTarget[];
  notifier?: NotifierOptions;
  /** Largest JSON or multipart body accepted in memory (resumable uploads stream to disk). */
  maxInMemoryBody?: number;
}

export interface GcsServer {
  /** Base URL, e.g. `http://127.0.0.1:9023`: pass as `apiEndpoint` to `new Storage(...)`. */
  url: string;
  port: number;
  dir: string;
  close(): Promise<void>;
  /** Every object finalized in `bucket` from now on is POSTed to `url` as a CloudEvent. */
  addNotification(bucket: string, url: string): void;
  removeNotification(bucket: string, url: string): void;
  /** Resolves when no finalize delivery is in flight or waiting to retry. */
  waitForNotifications(): Promise<void>;
  notificationStats(): NotifierStats;
}

/** Starts the server; resolves once it listens. */
export async function startGcsServer(opts: GcsServerOptions = {}): Promise<GcsServer> {
  const host = opts.host ?? "127.0.0.1";
  const ownsDir = !opts.dir;
  const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), "paracap-gcs-")));
  const store = new EmulatedBucketStore(dir);
  await store.init();
  for (const b of opts.buckets ?? []) if (!store.listBuckets(b).some((x) => x.name === b)) store.createBucket(b);
  const notifier = new FinalizeNotifier(opts.notifier);
  for (const n of opts.notifications ?? []) notifier.add(n.bucket, n.url);
  const maxBody = opts.maxInMemoryBody ?? 256 * 1024 * 1024;

  let port = 0;
  const finalize: Finalize = async (...args) => {
    const obj = await store.finalizeObject(...args);
    // The port is remembered at listen: an upload finishing while the server closes still gets its event URL.
    notifier.objectFinalized(objectResource(obj, `http://${host}:${port}`));
    return obj;
  };
  const deps = { store, notifier, finalize, maxBody, uploads: new Uploads({ store, finalize, maxBody }) };
  const server = createServer((req, res) => {
    route(deps, req, res).catch((err: unknown) => sendError(res, err));
  });
  // The storage client pools keep-alive sockets without an idle timeout of its own: with Node's 5 s
  // default the server may close a socket as the client sends on it (ECONNRESET, an upload not retried).
  server.keepAliveTimeout = 10 * 60_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    dir,
    addNotification: (bucket, url) => notifier.add(bucket, url),
    removeNotification: (bucket, url) => notifier.remove(bucket, url),
    waitForNotifications: () => notifier.waitForIdle(),
    notificationStats: () => notifier.stats(),
    async close() {
      notifier.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      if (ownsDir) await rm(dir, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "9023" },
      host: { type: "string", default: "127.0.0.1" },
      dir: { type: "string" },
      bucket: { type: "string", multiple: true },
      notify: { type: "string", multiple: true },
    },
  });
  const notifications = (values.notify ?? []).map((spec) => {
    const i = spec.indexOf("=");
    if (i <= 0) throw new Error(`--notify expects BUCKET=URL, got ${spec}`);
    return { bucket: spec.slice(0, i), url: spec.slice(i + 1) };
  });
  const s = await startGcsServer({ port: Number(values.port), host: values.host, dir: values.dir, buckets: values.bucket, notifications });
  process.stdout.write(
    `Cloud Storage emulator on ${s.url} (data in ${s.dir})\n` +
      `  new Storage({ apiEndpoint: "${s.url}", projectId: "test" })  or  STORAGE_EMULATOR_HOST=${s.url}\n`,
  );
  const stop = () => void s.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
