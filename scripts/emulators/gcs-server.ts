/**
 * A small Cloud Storage JSON-API server for local runs and tests: speaks what the official
 * `@google-cloud/storage` v7 client sends when given `apiEndpoint: "http://127.0.0.1:PORT"` (JSON
 * API under `/storage/v1`, uploads under `/upload/storage/v1`) or `STORAGE_EMULATOR_HOST`
 * (JSON API at the root). Object bytes live on disk; finalize events go out as Eventarc-style
 * CloudEvents to registered URLs.
 *
 * CLI: `npx tsx scripts/emulators/gcs-server.ts --port 9023 --dir /tmp/gcs [--bucket NAME]... [--notify BUCKET=URL]...`
 */
import { createReadStream } from "node:fs";
import { copyFile, mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { randomUUID } from "node:crypto";
import {
  errorBody,
  header,
  parseContentRange,
  parseGoogHash,
  parseJson,
  parseRange,
  readBody,
  readJson,
  sendEmpty,
  sendError,
  sendIncomplete,
  sendJson,
  writeStream,
} from "./gcs/http.ts";
import { boundaryOf, parseMultipart } from "./gcs/multipart.ts";
import { bucketResource, copyableMetadata, objectResource, stripUndefined } from "./gcs/resources.ts";
import { FinalizeNotifier, type NotificationTarget, type NotifierOptions, type NotifierStats } from "./gcs/notifier.ts";
import { GcsError, EmulatedBucketStore, type ObjectMetadataInput, type Preconditions, type StoredObject } from "./gcs/store.ts";

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

interface ResumableSession {
  id: string;
  bucket: string;
  name: string;
  meta: ObjectMetadataInput;
  pre: Preconditions;
  tempPath: string;
  received: number;
  total?: number;
  result?: StoredObject;
}


/** Starts the server; resolves once it listens. */
export async function startGcsServer(opts: GcsServerOptions = {}): Promise<GcsServer> {
  const ownsDir = !opts.dir;
  const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), "paracap-gcs-")));
  const store = new EmulatedBucketStore(dir);
  await store.init();
  for (const b of opts.buckets ?? []) if (!store.listBuckets(b).some((x) => x.name === b)) store.createBucket(b);
  const notifier = new FinalizeNotifier(opts.notifier);
  for (const n of opts.notifications ?? []) notifier.add(n.bucket, n.url);
  const sessions = new Map<string, ResumableSession>();
  const maxBody = opts.maxInMemoryBody ?? 256 * 1024 * 1024;

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => sendError(res, err));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const base = `http://${req.headers.host ?? "127.0.0.1"}`;
    const url = new URL(req.url ?? "/", base);
    const q = url.searchParams;
    const method = req.method ?? "GET";
    let segs = url.pathname.split("/").filter((s) => s !== "").map(decodeURIComponent);

    if (segs[0] === "_emulator") return admin(segs.slice(1), method, req, res);

    const isUpload = segs[0] === "upload";
    const isDownload = segs[0] === "download";
    if (isUpload || isDownload) segs = segs.slice(1);
    // JSON API lives at /storage/v1 with apiEndpoint, at the root with STORAGE_EMULATOR_HOST.
    if (segs[0] === "storage" && segs[1] === "v1") segs = segs.slice(2);
    if (segs[0] !== "b") throw new GcsError(404, "notFound", `Unknown path ${url.pathname}`);
    const [, bucket, o, objectName, ...rest] = segs;

    if (isUpload) {
      if (!bucket || o !== "o" || objectName !== undefined) throw new GcsError(404, "notFound", "Bad upload path");
      return upload(bucket, method, q, req, res, base);
    }
    if (bucket === undefined) {
      if (method === "GET") {
        const items = store.listBuckets(q.get("prefix") ?? "").map((b) => bucketResource(b, base));
        return sendJson(res, 200, { kind: "storage#buckets", items });
      }
      if (method === "POST") {
        const body = (await readJson(req, maxBody)) as { name?: string; location?: string; storageClass?: string };
        if (!body.name) throw new GcsError(400, "required", "Required: bucket name");
        return sendJson(res, 200, bucketResource(store.createBucket(body.name, body.location, body.storageClass), base));
      }
    } else if (o === undefined) {
      if (method === "GET" || method === "PATCH") {
        if (method === "PATCH") await readJson(req, maxBody); // bucket metadata changes are accepted, not stored
        return sendJson(res, 200, bucketResource(store.getBucket(bucket), base));
      }
      if (method === "DELETE") {
        store.deleteBucket(bucket);
        return sendEmpty(res, 204);
      }
    } else if (o === "o" && objectName === undefined) {
      if (method === "GET") return listObjects(bucket, q, res, base);
    } else if (o === "o" && objectName !== undefined && rest.length === 0) {
      const pre = preconditions(q);
      if (method === "GET" && (q.get("alt") === "media" || isDownload)) {
        return download(store.getObject(bucket, objectName, q.get("generation")), pre, req, res);
      }
      if (method === "GET") {
        const obj = store.getObject(bucket, objectName, q.get("generation"));
        store.checkPreconditions(bucket, objectName, pre, true);
        return sendJson(res, 200, objectResource(obj, base));
      }
      if (method === "PATCH" || method === "PUT") {
        const meta = (await readJson(req, maxBody)) as ObjectMetadataInput;
        return sendJson(res, 200, objectResource(store.patchObject(bucket, objectName, meta, pre), base));
      }
      if (method === "DELETE") {
        await store.deleteObject(bucket, objectName, pre, q.get("generation"));
        return sendEmpty(res, 204);
      }
    } else if (o === "o" && objectName !== undefined && method === "POST") {
      if (rest[0] === "rewriteTo" || rest[0] === "copyTo") {
        const [, , dstBucket, , dstName] = rest;
        if (!dstBucket || !dstName) throw new GcsError(400, "invalid", "Bad rewrite path");
        const resource = await rewrite(bucket, objectName, dstBucket, dstName, q, req, base);
        if (rest[0] === "copyTo") return sendJson(res, 200, resource);
        const size = resource.size;
        return sendJson(res, 200, { kind: "storage#rewriteResponse", totalBytesRewritten: size, objectSize: size, done: true, resource });
      }
      if (rest[0] === "compose") return compose(bucket, objectName, q, req, res, base);
    }
    throw new GcsError(405, "methodNotAllowed", `${method} ${url.pathname} is not supported by this emulator`);
  }

  function listObjects(bucket: string, q: URLSearchParams, res: ServerResponse, base: string): void {
    const maxResults = q.get("maxResults");
    const r = store.list(bucket, {
      prefix: q.get("prefix") ?? undefined,
      delimiter: q.get("delimiter") || undefined,
      pageToken: q.get("pageToken") || undefined,
      maxResults: maxResults ? Number(maxResults) : undefined,
      startOffset: q.get("startOffset") || undefined,
      endOffset: q.get("endOffset") || undefined,
      includeTrailingDelimiter: q.get("includeTrailingDelimiter") === "true",
    });
    const body: Record<string, unknown> = { kind: "storage#objects" };
    if (r.prefixes.length > 0) body.prefixes = r.prefixes;
    if (r.items.length > 0) body.items = r.items.map((i) => objectResource(i, base));
    if (r.nextPageToken) body.nextPageToken = r.nextPageToken;
    sendJson(res, 200, body);
  }

  async function download(obj: StoredObject, pre: Preconditions, req: IncomingMessage, res: ServerResponse): Promise<void> {
    store.checkPreconditions(obj.bucket, obj.name, pre, true);
    // Open before answering: the blob may be replaced by a newer generation meanwhile.
    const fh = await open(obj.blobPath, "r");
    const headers: Record<string, string> = {
      "content-type": obj.contentType,
      "accept-ranges": "bytes",
      "x-goog-hash": `crc32c=${obj.crc32c},md5=${obj.md5Hash}`,
      "x-goog-generation": obj.generation,
      "x-goog-metageneration": String(obj.metageneration),
      "x-goog-stored-content-encoding": obj.contentEncoding ?? "identity",
      "x-goog-stored-content-length": String(obj.size),
      etag: `"${obj.md5Hash}"`,
      "last-modified": new Date(obj.updated).toUTCString(),
    };
    if (obj.contentEncoding) headers["content-encoding"] = obj.contentEncoding;
    if (obj.contentDisposition) headers["content-disposition"] = obj.contentDisposition;
    if (obj.cacheControl) headers["cache-control"] = obj.cacheControl;
    const range = parseRange(req.headers.range, obj.size);
    if (range === "unsatisfiable") {
      await fh.close();
      res.writeHead(416, { "content-range": `bytes */${obj.size}`, "content-type": "application/json" });
      res.end(JSON.stringify(errorBody(416, "requestedRangeNotSatisfiable", "The requested range cannot be satisfied.")));
      return;
    }
    const [start, end] = range ?? [0, obj.size - 1];
    const length = Math.max(0, end - start + 1);
    headers["content-length"] = String(length);
    if (range) headers["content-range"] = `bytes ${start}-${end}/${obj.size}`;
    res.writeHead(range ? 206 : 200, headers);
    if (length === 0 || req.method === "HEAD") {
      await fh.close();
      res.end();
      return;
    }
    const stream = fh.createReadStream({ start, end, autoClose: true });
    stream.on("error", (e) => res.destroy(e));
    stream.pipe(res);
  }

  async function upload(bucket: string, method: string, q: URLSearchParams, req: IncomingMessage, res: ServerResponse, base: string): Promise<void> {
    const uploadId = q.get("upload_id");
    if (uploadId) return resumableChunk(uploadId, method, req, res, base);
    if (method !== "POST") throw new GcsError(405, "methodNotAllowed", `${method} upload without upload_id`);
    store.getBucket(bucket);
    const pre = preconditions(q);
    const type = q.get("uploadType") ?? "media";
    if (type === "resumable") {
      const body = (await readJson(req, maxBody)) as ObjectMetadataInput & { name?: string };
      const name = q.get("name") ?? body.name;
      if (!name) throw new GcsError(400, "required", "Required: object name");
      const meta: ObjectMetadataInput = { ...body, contentType: body.contentType ?? header(req, "x-upload-content-type") };
      const total = header(req, "x-upload-content-length");
      const s: ResumableSession = {
        id: randomUUID(),
        bucket,
        name,
        meta,
        pre,
        tempPath: store.tempPath(),
        received: 0,
        total: total ? Number(total) : undefined,
      };
      await writeFile(s.tempPath, "");
      sessions.set(s.id, s);
      const location = `${base}/upload/storage/v1/b/${encodeURIComponent(bucket)}/o?uploadType=resumable&name=${encodeURIComponent(name)}&upload_id=${s.id}`;
      res.writeHead(200, { location, "x-guploader-uploadid": s.id, "content-length": "0" });
      res.end();
      return;
    }
    const tempPath = store.tempPath();
    let meta: ObjectMetadataInput & { name?: string; md5Hash?: string; crc32c?: string };
    if (type === "multipart") {
      const boundary = boundaryOf(header(req, "content-type"));
      if (!boundary) throw new GcsError(400, "invalid", "multipart upload without boundary");
      let parts;
      try {
        parts = parseMultipart(await readBody(req, maxBody), boundary);
      } catch (e) {
        throw new GcsError(400, "invalid", `Bad multipart body: ${(e as Error).message}`);
      }
      const [metaPart, mediaPart] = parts;
      if (!metaPart || !mediaPart) throw new GcsError(400, "invalid", "multipart upload needs a metadata and a media part");
      meta = parseJson(metaPart.body) as typeof meta;
      meta.contentType ??= mediaPart.headers["content-type"];
      await writeFile(tempPath, mediaPart.body);
    } else if (type === "media") {
      meta = { contentType: header(req, "content-type") };
      await writeStream(req, tempPath, 0);
    } else {
      throw new GcsError(400, "invalid", `Unsupported uploadType ${type}`);
    }
    const name = q.get("name") ?? meta.name;
    if (!name) {
      await rm(tempPath, { force: true });
      throw new GcsError(400, "required", "Required: object name");
    }
    const obj = await finalize(bucket, name, tempPath, meta, pre, { md5Hash: meta.md5Hash, crc32c: meta.crc32c });
    sendJson(res, 200, objectResource(obj, base));
  }

  async function resumableChunk(id: string, method: string, req: IncomingMessage, res: ServerResponse, base: string): Promise<void> {
    const s = sessions.get(id);
    if (!s) throw new GcsError(404, "notFound", "No such upload session");
    if (method === "DELETE") {
      sessions.delete(id);
      await rm(s.tempPath, { force: true });
      return sendEmpty(res, 499);
    }
    if (method !== "PUT" && method !== "POST") throw new GcsError(405, "methodNotAllowed", `${method} on upload session`);
    if (s.result) {
      req.resume();
      return sendJson(res, 200, objectResource(s.result, base));
    }
    const cr = parseContentRange(header(req, "content-range"));
    if (cr.total !== undefined) s.total = cr.total;
    let final: boolean;
    if (cr.kind === "status") {
      req.resume();
      final = s.total !== undefined && s.received === s.total;
    } else {
      if (cr.start > s.received) {
        // A gap: tell the client what we have so it resends from there.
        req.resume();
        return sendIncomplete(res, s.received);
      }
      s.received = await writeStream(req, s.tempPath, s.received - cr.start, s.received, (n) => (s.received = n));
      final = cr.kind === "open" || (s.total !== undefined && s.received >= s.total);
    }
    if (!final) return sendIncomplete(res, s.received);
    if (s.total !== undefined && s.received !== s.total) {
      throw new GcsError(400, "invalid", `Upload declared ${s.total} bytes but ${s.received} arrived`);
    }
    const expected = parseGoogHash(header(req, "x-goog-hash"));
    const tempCopy = store.tempPath();
    // finalizeObject consumes its file; keep the session's own file for status queries after a 412.
    await copyFile(s.tempPath, tempCopy);
    const obj = await finalize(s.bucket, s.name, tempCopy, s.meta, s.pre, expected);
    s.result = obj;
    await rm(s.tempPath, { force: true });
    sendJson(res, 200, objectResource(obj, base));
  }

  async function rewrite(srcBucket: string, srcName: string, dstBucket: string, dstName: string, q: URLSearchParams, req: IncomingMessage, base: string) {
    const src = store.getObject(srcBucket, srcName, q.get("sourceGeneration"));
    store.checkPreconditions(srcBucket, srcName, {
      ifGenerationMatch: q.get("ifSourceGenerationMatch"),
      ifGenerationNotMatch: q.get("ifSourceGenerationNotMatch"),
      ifMetagenerationMatch: q.get("ifSourceMetagenerationMatch"),
      ifMetagenerationNotMatch: q.get("ifSourceMetagenerationNotMatch"),
    });
    const body = (await readJson(req, maxBody)) as ObjectMetadataInput;
    const meta: ObjectMetadataInput = { ...copyableMetadata(src), ...stripUndefined(body) };
    const tempPath = store.tempPath();
    await copyFile(src.blobPath, tempPath);
    return objectResource(await finalize(dstBucket, dstName, tempPath, meta, preconditions(q)), base);
  }

  async function compose(bucket: string, dest: string, q: URLSearchParams, req: IncomingMessage, res: ServerResponse, base: string): Promise<void> {
    const body = (await readJson(req, maxBody)) as {
      sourceObjects?: Array<{ name: string; generation?: string; objectPreconditions?: { ifGenerationMatch?: string } }>;
      destination?: ObjectMetadataInput;
    };
    const sources = body.sourceObjects ?? [];
    if (sources.length === 0 || sources.length > 32) throw new GcsError(400, "invalid", "compose needs 1 to 32 source objects");
    const objs = sources.map((s) => {
      const obj = store.getObject(bucket, s.name, s.generation);
      const want = s.objectPreconditions?.ifGenerationMatch;
      if (want !== undefined && String(want) !== obj.generation) {
        throw new GcsError(412, "conditionNotMet", "At least one of the pre-conditions you specified did not hold.");
      }
      return obj;
    });
    const tempPath = store.tempPath();
    const out = await open(tempPath, "w");
    try {
      for (const obj of objs) for await (const chunk of createReadStream(obj.blobPath)) await out.write(chunk as Buffer);
    } finally {
      await out.close();
    }
    const first = objs[0]!;
    const meta: ObjectMetadataInput = { contentType: first.contentType, ...stripUndefined(body.destination ?? {}) };
    sendJson(res, 200, objectResource(await finalize(bucket, dest, tempPath, meta, preconditions(q)), base));
  }

  async function finalize(bucket: string, name: string, tempPath: string, meta: ObjectMetadataInput, pre: Preconditions, expected?: { md5Hash?: string; crc32c?: string }) {
    const obj = await store.finalizeObject(bucket, name, tempPath, meta, pre, expected);
    notifier.objectFinalized(objectResource(obj, `http://${hostPort()}`));
    return obj;
  }

  async function admin(segs: string[], method: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (segs[0] === "notifications" && method === "POST") {
      const body = (await readJson(req, maxBody)) as { bucket?: string; url?: string };
      if (!body.bucket || !body.url) throw new GcsError(400, "required", "Required: bucket and url");
      notifier.add(body.bucket, body.url);
      return sendJson(res, 200, { notifications: notifier.list() });
    }
    if (segs[0] === "notifications" && method === "GET") return sendJson(res, 200, { notifications: notifier.list() });
    if (segs[0] === "idle" && method === "GET") {
      await notifier.waitForIdle();
      return sendJson(res, 200, notifier.stats());
    }
    throw new GcsError(404, "notFound", "Unknown emulator admin path");
  }

  let listeningPort = 0;
  function hostPort(): string {
    // Remembered at listen: an upload finishing while the server closes still gets its event URL.
    return `${opts.host ?? "127.0.0.1"}:${listeningPort}`;
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  listeningPort = port;
  return {
    url: `http://${opts.host ?? "127.0.0.1"}:${port}`,
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

function preconditions(q: URLSearchParams): Preconditions {
  return {
    ifGenerationMatch: q.get("ifGenerationMatch"),
    ifGenerationNotMatch: q.get("ifGenerationNotMatch"),
    ifMetagenerationMatch: q.get("ifMetagenerationMatch"),
    ifMetagenerationNotMatch: q.get("ifMetagenerationNotMatch"),
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
