/** HTTP plumbing for the Cloud Storage emulator: header parsing, bodies, GCS-style responses. */
import { open } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { GcsError, type Preconditions, type StoredObject } from "./store.ts";

const RESUME_INCOMPLETE = 308;

type ContentRange = { kind: "status"; total?: number } | { kind: "chunk" | "open"; start: number; total?: number };

// Content-Range forms: "bytes STAR/T" (status query), "bytes A-B/T" (chunk; T may be STAR), "bytes A-STAR/T" (rest of the object in this request).
export function parseContentRange(v: string | undefined): ContentRange {
  if (!v) return { kind: "open", start: 0 };
  const m = /^bytes (?:(\*)|(\d+)-(\d+|\*))\/(\d+|\*)$/.exec(v.trim());
  if (!m) throw new GcsError(400, "invalid", `Bad Content-Range: ${v}`);
  const total = m[4] === "*" ? undefined : Number(m[4]);
  if (m[1]) return { kind: "status", total };
  return { kind: m[3] === "*" ? "open" : "chunk", start: Number(m[2]), total };
}

/** [start, end] inclusive; undefined for no/ignored Range; "unsatisfiable" for 416. */
export function parseRange(v: string | undefined, size: number): [number, number] | undefined | "unsatisfiable" {
  if (!v) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(v.trim());
  if (!m || (m[1] === "" && m[2] === "")) return undefined; // multi-range or junk: serve the whole object, as GCS does
  if (m[1] === "") {
    const n = Number(m[2]);
    if (n === 0) return "unsatisfiable";
    return size === 0 ? undefined : [Math.max(0, size - n), size - 1];
  }
  const start = Number(m[1]);
  if (start >= size) return size === 0 ? undefined : "unsatisfiable";
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (end < start) return undefined;
  return [start, end];
}

export function parseGoogHash(v: string | undefined): { md5Hash?: string; crc32c?: string } {
  const out: { md5Hash?: string; crc32c?: string } = {};
  for (const pair of (v ?? "").split(",")) {
    const i = pair.indexOf("=");
    if (i < 0) continue;
    const k = pair.slice(0, i).trim().toLowerCase();
    const val = pair.slice(i + 1).trim();
    if (k === "md5") out.md5Hash = val;
    if (k === "crc32c") out.crc32c = val;
  }
  return out;
}

/** The object preconditions of a request's query string (source ones for rewrite take a prefix). */
export function preconditionsOf(q: URLSearchParams, prefix: "" | "Source" = ""): Preconditions {
  return {
    ifGenerationMatch: q.get(`if${prefix}GenerationMatch`),
    ifGenerationNotMatch: q.get(`if${prefix}GenerationNotMatch`),
    ifMetagenerationMatch: q.get(`if${prefix}MetagenerationMatch`),
    ifMetagenerationNotMatch: q.get(`if${prefix}MetagenerationNotMatch`),
  };
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Appends the request body to `path`, dropping the first `skip` bytes (a resent overlap).
 * Reports progress so bytes persisted before a dropped connection still count, as in GCS.
 */
export async function writeStream(req: IncomingMessage, path: string, skip: number, startAt = 0, progress?: (n: number) => void): Promise<number> {
  const fh = await open(path, "a");
  let total = startAt;
  try {
    for await (const raw of req as AsyncIterable<Buffer>) {
      let chunk = raw;
      if (skip > 0) {
        const drop = Math.min(skip, chunk.length);
        skip -= drop;
        chunk = chunk.subarray(drop);
      }
      if (chunk.length === 0) continue;
      await fh.write(chunk);
      total += chunk.length;
      progress?.(total);
    }
  } finally {
    await fh.close();
  }
  return total;
}

export async function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    n += c.length;
    if (n > max) throw new GcsError(413, "uploadTooLarge", `Body over ${max} bytes: use a resumable upload`);
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

export async function readJson(req: IncomingMessage, max: number): Promise<unknown> {
  const body = await readBody(req, max);
  return body.length === 0 ? {} : parseJson(body);
}

export function parseJson(b: Buffer): unknown {
  try {
    const v: unknown = JSON.parse(b.toString("utf8"));
    if (typeof v !== "object" || v === null) throw new Error("not an object");
    return v;
  } catch (e) {
    throw new GcsError(400, "parseError", `Invalid JSON body: ${(e as Error).message}`);
  }
}

export function errorBody(code: number, reason: string, message: string) {
  return { error: { code, message, errors: [{ message, domain: "global", reason }] } };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=UTF-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status: number): void {
  res.writeHead(status, { "content-length": "0" });
  res.end();
}

export function sendIncomplete(res: ServerResponse, received: number): void {
  const headers: Record<string, string> = { "content-length": "0" };
  if (received > 0) headers.range = `bytes=0-${received - 1}`;
  res.writeHead(RESUME_INCOMPLETE, headers);
  res.end();
}

export function sendError(res: ServerResponse, err: unknown): void {
  if (res.headersSent) {
    res.destroy(err instanceof Error ? err : new Error(String(err)));
    return;
  }
  if (err instanceof GcsError) {
    if (err.code === 304) return sendEmpty(res, 304);
    return sendJson(res, err.code, errorBody(err.code, err.reason, err.message));
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`[gcs-emulator] internal error: ${err instanceof Error ? err.stack : message}\n`);
  sendJson(res, 500, errorBody(500, "backendError", message));
}

/** Streams an object's bytes (honouring Range) with the x-goog-* headers the client checks. */
export async function sendMedia(obj: StoredObject, req: IncomingMessage, res: ServerResponse): Promise<void> {
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
