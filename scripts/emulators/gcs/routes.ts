/**
 * Routes a request to the JSON API (buckets, objects, rewrite/copy, compose), the upload
 * endpoints or the emulator's own `/_emulator` admin paths. Every handler takes its
 * dependencies explicitly; the caller turns a thrown GcsError into the error response.
 */
import { createReadStream } from "node:fs";
import { copyFile, open } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { preconditionsOf, readJson, sendEmpty, sendJson, sendMedia } from "./http.ts";
import type { FinalizeNotifier } from "./notifier.ts";
import { bucketResource, copyableMetadata, objectResource, stripUndefined } from "./resources.ts";
import { GcsError, type EmulatedBucketStore, type Finalize, type ObjectMetadataInput } from "./store.ts";
import type { Uploads } from "./uploads.ts";

export interface RouteDeps {
  store: EmulatedBucketStore;
  notifier: FinalizeNotifier;
  uploads: Uploads;
  /** Stores a new object and announces it. */
  finalize: Finalize;
  /** Largest JSON body read into memory. */
  maxBody: number;
}

export async function route(deps: RouteDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { store, maxBody } = deps;
  const base = `http://${req.headers.host ?? "127.0.0.1"}`;
  const url = new URL(req.url ?? "/", base);
  const q = url.searchParams;
  const method = req.method ?? "GET";
  let segs = url.pathname.split("/").filter((s) => s !== "").map(decodeURIComponent);

  if (segs[0] === "_emulator") return admin(deps, segs.slice(1), method, req, res);

  const isUpload = segs[0] === "upload";
  const isDownload = segs[0] === "download";
  if (isUpload || isDownload) segs = segs.slice(1);
  // JSON API lives at /storage/v1 with apiEndpoint, at the root with STORAGE_EMULATOR_HOST.
  if (segs[0] === "storage" && segs[1] === "v1") segs = segs.slice(2);
  if (segs[0] !== "b") throw new GcsError(404, "notFound", `Unknown path ${url.pathname}`);
  const [, bucket, o, objectName, ...rest] = segs;

  if (isUpload) {
    if (!bucket || o !== "o" || objectName !== undefined) throw new GcsError(404, "notFound", "Bad upload path");
    return deps.uploads.handle(bucket, method, q, req, res, base);
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
    if (method === "GET") return listObjects(store, bucket, q, res, base);
  } else if (o === "o" && objectName !== undefined && rest.length === 0) {
    const pre = preconditionsOf(q);
    if (method === "GET" && (q.get("alt") === "media" || isDownload)) {
      const obj = store.getObject(bucket, objectName, q.get("generation"));
      store.checkPreconditions(obj.bucket, obj.name, pre, true);
      return sendMedia(obj, req, res);
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
      const resource = await rewrite(deps, bucket, objectName, dstBucket, dstName, q, req, base);
      if (rest[0] === "copyTo") return sendJson(res, 200, resource);
      const size = resource.size;
      return sendJson(res, 200, { kind: "storage#rewriteResponse", totalBytesRewritten: size, objectSize: size, done: true, resource });
    }
    if (rest[0] === "compose") return compose(deps, bucket, objectName, q, req, res, base);
  }
  throw new GcsError(405, "methodNotAllowed", `${method} ${url.pathname} is not supported by this emulator`);
}

function listObjects(store: EmulatedBucketStore, bucket: string, q: URLSearchParams, res: ServerResponse, base: string): void {
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

async function rewrite(
  { store, finalize, maxBody }: RouteDeps,
  srcBucket: string,
  srcName: string,
  dstBucket: string,
  dstName: string,
  q: URLSearchParams,
  req: IncomingMessage,
  base: string,
) {
  const src = store.getObject(srcBucket, srcName, q.get("sourceGeneration"));
  store.checkPreconditions(srcBucket, srcName, preconditionsOf(q, "Source"));
  const body = (await readJson(req, maxBody)) as ObjectMetadataInput;
  const meta: ObjectMetadataInput = { ...copyableMetadata(src), ...stripUndefined(body) };
  const tempPath = store.tempPath();
  await copyFile(src.blobPath, tempPath);
  return objectResource(await finalize(dstBucket, dstName, tempPath, meta, preconditionsOf(q)), base);
}

async function compose(
  { store, finalize, maxBody }: RouteDeps,
  bucket: string,
  dest: string,
  q: URLSearchParams,
  req: IncomingMessage,
  res: ServerResponse,
  base: string,
): Promise<void> {
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
  sendJson(res, 200, objectResource(await finalize(bucket, dest, tempPath, meta, preconditionsOf(q)), base));
}

/** `/_emulator/notifications` (GET, POST {bucket, url}) and `/_emulator/idle` (waits for deliveries). */
async function admin({ notifier, maxBody }: RouteDeps, segs: string[], method: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
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
