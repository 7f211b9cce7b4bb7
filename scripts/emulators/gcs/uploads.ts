/**
 * The upload endpoints (`/upload/storage/v1/b/BUCKET/o`): single-request media and multipart
 * uploads, and resumable sessions whose bytes stream to a temp file chunk by chunk.
 */
import { randomUUID } from "node:crypto";
import { copyFile, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  header,
  parseContentRange,
  parseGoogHash,
  parseJson,
  preconditionsOf,
  readBody,
  readJson,
  sendEmpty,
  sendIncomplete,
  sendJson,
  writeStream,
} from "./http.ts";
import { boundaryOf, parseMultipart } from "./multipart.ts";
import { objectResource } from "./resources.ts";
import { GcsError, type EmulatedBucketStore, type Finalize, type ObjectMetadataInput, type Preconditions, type StoredObject } from "./store.ts";

export interface UploadDeps {
  store: EmulatedBucketStore;
  finalize: Finalize;
  /** Largest multipart or metadata body read into memory. */
  maxBody: number;
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

/** Holds one server's resumable sessions; answers every request on the upload path. */
export class Uploads {
  private readonly sessions = new Map<string, ResumableSession>();

  constructor(private readonly deps: UploadDeps) {}

  async handle(bucket: string, method: string, q: URLSearchParams, req: IncomingMessage, res: ServerResponse, base: string): Promise<void> {
    const uploadId = q.get("upload_id");
    if (uploadId) return this.resumableChunk(uploadId, method, req, res, base);
    if (method !== "POST") throw new GcsError(405, "methodNotAllowed", `${method} upload without upload_id`);
    const { store, maxBody, finalize } = this.deps;
    store.getBucket(bucket);
    const pre = preconditionsOf(q);
    const type = q.get("uploadType") ?? "media";
    if (type === "resumable") return this.startSession(bucket, pre, q, req, res, base);
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

  private async startSession(bucket: string, pre: Preconditions, q: URLSearchParams, req: IncomingMessage, res: ServerResponse, base: string): Promise<void> {
    const body = (await readJson(req, this.deps.maxBody)) as ObjectMetadataInput & { name?: string };
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
      tempPath: this.deps.store.tempPath(),
      received: 0,
      total: total ? Number(total) : undefined,
    };
    await writeFile(s.tempPath, "");
    this.sessions.set(s.id, s);
    const location = `${base}/upload/storage/v1/b/${encodeURIComponent(bucket)}/o?uploadType=resumable&name=${encodeURIComponent(name)}&upload_id=${s.id}`;
    res.writeHead(200, { location, "x-guploader-uploadid": s.id, "content-length": "0" });
    res.end();
  }

  private async resumableChunk(id: string, method: string, req: IncomingMessage, res: ServerResponse, base: string): Promise<void> {
    const s = this.sessions.get(id);
    if (!s) throw new GcsError(404, "notFound", "No such upload session");
    if (method === "DELETE") {
      this.sessions.delete(id);
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
    const tempCopy = this.deps.store.tempPath();
    // finalizeObject consumes its file; keep the session's own file for status queries after a 412.
    await copyFile(s.tempPath, tempCopy);
    const obj = await this.deps.finalize(s.bucket, s.name, tempCopy, s.meta, s.pre, expected);
    s.result = obj;
    await rm(s.tempPath, { force: true });
    sendJson(res, 200, objectResource(obj, base));
  }
}
