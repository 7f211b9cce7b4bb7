/**
 * Bucket/object store behind the Cloud Storage emulator: object bytes on disk (one file per
 * generation) so large dumps do not fill memory, metadata in memory and persisted beside them
 * (`blobs/<blob>.json`, `buckets/<name>.json`), so a restart on the same directory (even after a
 * SIGKILL) finds every bucket and object again. Knows GCS semantics (generations, preconditions,
 * listing with prefix/delimiter/pageToken) but nothing about HTTP.
 */
import { createHash } from "node:crypto";
import { createReadStream, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { CRC32C } from "@google-cloud/storage";

/** A GCS-style failure; `code` is the HTTP status the JSON API returns. */
export class GcsError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** Mutable object metadata a client may set on upload, patch, rewrite or compose. */
export interface ObjectMetadataInput {
  contentType?: string;
  contentEncoding?: string;
  contentDisposition?: string;
  contentLanguage?: string;
  cacheControl?: string;
  metadata?: Record<string, string | null> | null;
}

export interface StoredObject {
  bucket: string;
  name: string;
  generation: string;
  metageneration: number;
  size: number;
  md5Hash: string;
  crc32c: string;
  contentType: string;
  contentEncoding?: string;
  contentDisposition?: string;
  contentLanguage?: string;
  cacheControl?: string;
  metadata?: Record<string, string>;
  timeCreated: string;
  updated: string;
  /** Where the bytes are on disk. */
  blobPath: string;
}

export interface StoredBucket {
  name: string;
  timeCreated: string;
  updated: string;
  metageneration: number;
  location: string;
  storageClass: string;
  objects: Map<string, StoredObject>;
}

/** Precondition query parameters, as strings from the URL (GCS sends int64s as strings). */
export interface Preconditions {
  ifGenerationMatch?: string | null;
  ifGenerationNotMatch?: string | null;
  ifMetagenerationMatch?: string | null;
  ifMetagenerationNotMatch?: string | null;
}

export interface ListOptions {
  prefix?: string;
  delimiter?: string;
  pageToken?: string;
  maxResults?: number;
  startOffset?: string;
  endOffset?: string;
  includeTrailingDelimiter?: boolean;
}

export interface ListResult {
  items: StoredObject[];
  prefixes: string[];
  nextPageToken?: string;
}

const DEFAULT_PAGE = 1000;

/** Computes GCS's base64 MD5 and CRC32C of a file by streaming it. */
export async function hashFile(path: string): Promise<{ md5Hash: string; crc32c: string; size: number }> {
  const md5 = createHash("md5");
  const crc = new CRC32C();
  let size = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    md5.update(chunk);
    crc.update(chunk);
    size += chunk.length;
  }
  return { md5Hash: md5.digest("base64"), crc32c: crc.toString(), size };
}

function parseGen(v: string | null | undefined, name: string): bigint | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  if (!/^\d+$/.test(v)) throw new GcsError(400, "invalid", `Invalid ${name}: ${v}`);
  return BigInt(v);
}

/**
 * How routes store a finished upload, copy or compose: `EmulatedBucketStore.finalizeObject`'s
 * shape, so the server can pass a wrapper that also announces the object.
 */
export type Finalize = EmulatedBucketStore["finalizeObject"];

/** In-memory index of buckets and objects; bytes live under `dir`. */
export class EmulatedBucketStore {
  private readonly buckets = new Map<string, StoredBucket>();
  private lastGeneration = 0n;
  private blobSeq = 0;

  constructor(readonly dir: string) {}

  /** Creates the directories, or loads what an earlier server left in them. */
  async init(): Promise<void> {
    await mkdir(join(this.dir, "blobs"), { recursive: true });
    await mkdir(join(this.dir, "buckets"), { recursive: true });
    // Uploads in flight when an earlier server died were never acknowledged: drop them.
    await rm(join(this.dir, "tmp"), { recursive: true, force: true });
    await mkdir(join(this.dir, "tmp"), { recursive: true });
    for (const f of readdirSync(join(this.dir, "buckets")).filter((f) => f.endsWith(".json"))) {
      const b = JSON.parse(readFileSync(join(this.dir, "buckets", f), "utf8")) as Omit<StoredBucket, "objects">;
      this.buckets.set(b.name, { ...b, objects: new Map() });
    }
    const sidecars = readdirSync(join(this.dir, "blobs")).filter((f) => f.endsWith(".json"));
    const objects = sidecars.map((f) => ({ ...(JSON.parse(readFileSync(join(this.dir, "blobs", f), "utf8")) as StoredObject), blobPath: join(this.dir, "blobs", f.slice(0, -".json".length)) }));
    objects.sort((a, b) => (BigInt(a.generation) < BigInt(b.generation) ? -1 : 1));
    for (const o of objects) {
      const b = this.buckets.get(o.bucket);
      if (!b) continue;
      // A crash between writing a new generation and removing the old one leaves both: the newer wins.
      const older = b.objects.get(o.name);
      if (older) this.removeBlob(older);
      b.objects.set(o.name, o);
      if (BigInt(o.generation) > this.lastGeneration) this.lastGeneration = BigInt(o.generation);
    }
  }

  private saveBucket(b: StoredBucket): void {
    const { objects: _objects, ...meta } = b;
    writeAtomic(join(this.dir, "buckets", `${b.name}.json`), JSON.stringify(meta));
  }

  private saveObject(o: StoredObject): void {
    const { blobPath, ...meta } = o;
    writeAtomic(`${blobPath}.json`, JSON.stringify({ ...meta, blob: basename(blobPath) }));
  }

  private removeBlob(o: StoredObject): void {
    rmSync(`${o.blobPath}.json`, { force: true });
    rmSync(o.blobPath, { force: true });
  }

  /** A fresh path for an in-progress upload. */
  tempPath(): string {
    return join(this.dir, "tmp", `${process.pid}-${++this.blobSeq}-${Date.now()}`);
  }

  /** Generations are microsecond timestamps like GCS's, kept strictly increasing. */
  private nextGeneration(): string {
    const now = BigInt(Date.now()) * 1000n;
    this.lastGeneration = now > this.lastGeneration ? now : this.lastGeneration + 1n;
    return this.lastGeneration.toString();
  }

  createBucket(name: string, location = "US", storageClass = "STANDARD"): StoredBucket {
    if (!/^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/.test(name)) {
      throw new GcsError(400, "invalid", `Invalid bucket name: '${name}'`);
    }
    if (this.buckets.has(name)) {
      throw new GcsError(409, "conflict", "Your previous request to create the named bucket succeeded and you already own it.");
    }
    const now = new Date().toISOString();
    const b: StoredBucket = { name, timeCreated: now, updated: now, metageneration: 1, location, storageClass, objects: new Map() };
    this.buckets.set(name, b);
    this.saveBucket(b);
    return b;
  }

  getBucket(name: string): StoredBucket {
    const b = this.buckets.get(name);
    if (!b) throw new GcsError(404, "notFound", "The specified bucket does not exist.");
    return b;
  }

  listBuckets(prefix = ""): StoredBucket[] {
    return [...this.buckets.values()].filter((b) => b.name.startsWith(prefix)).sort((a, b) => cmp(a.name, b.name));
  }

  deleteBucket(name: string): void {
    const b = this.getBucket(name);
    if (b.objects.size > 0) throw new GcsError(409, "conflict", "The bucket you tried to delete is not empty.");
    this.buckets.delete(name);
    rmSync(join(this.dir, "buckets", `${name}.json`), { force: true });
  }

  /** Live object, or a 404 GcsError. */
  getObject(bucket: string, name: string, generation?: string | null): StoredObject {
    const o = this.getBucket(bucket).objects.get(name);
    if (!o || (generation && generation !== o.generation)) {
      throw new GcsError(404, "notFound", `No such object: ${bucket}/${name}`);
    }
    return o;
  }

  /** Throws 412 (or 304 for reads of a matching generation) when a precondition fails. */
  checkPreconditions(bucket: string, name: string, p: Preconditions, forRead = false): void {
    const current = this.getBucket(bucket).objects.get(name);
    const gen = current ? BigInt(current.generation) : 0n;
    const genMatch = parseGen(p.ifGenerationMatch, "ifGenerationMatch");
    const genNotMatch = parseGen(p.ifGenerationNotMatch, "ifGenerationNotMatch");
    const metaMatch = parseGen(p.ifMetagenerationMatch, "ifMetagenerationMatch");
    const metaNotMatch = parseGen(p.ifMetagenerationNotMatch, "ifMetagenerationNotMatch");
    const fail = () => new GcsError(412, "conditionNotMet", "At least one of the pre-conditions you specified did not hold.");
    // ifGenerationMatch=0 means "only if no live object exists".
    if (genMatch !== undefined && genMatch !== gen) throw fail();
    if (genNotMatch !== undefined && genNotMatch === gen) {
      if (forRead && current) throw new GcsError(304, "notModified", "Not Modified");
      throw fail();
    }
    const meta = current ? BigInt(current.metageneration) : undefined;
    if (metaMatch !== undefined && metaMatch !== meta) throw fail();
    if (metaNotMatch !== undefined && meta !== undefined && metaNotMatch === meta) {
      if (forRead) throw new GcsError(304, "notModified", "Not Modified");
      throw fail();
    }
  }

  /**
   * Makes the file at `tempPath` the new live generation of `bucket/name`. Hashing happens
   * before the synchronous check-and-swap, so concurrent writers cannot both pass
   * `ifGenerationMatch=0`.
   */
  async finalizeObject(
    bucket: string,
    name: string,
    tempPath: string,
    meta: ObjectMetadataInput,
    pre: Preconditions,
    expected?: { md5Hash?: string; crc32c?: string },
  ): Promise<StoredObject> {
    validateObjectName(name);
    try {
      const hashes = await hashFile(tempPath);
      if (expected?.md5Hash && expected.md5Hash !== hashes.md5Hash) {
        throw new GcsError(400, "invalid", `Provided MD5 hash "${expected.md5Hash}" doesn't match calculated MD5 hash "${hashes.md5Hash}".`);
      }
      if (expected?.crc32c && expected.crc32c !== hashes.crc32c) {
        throw new GcsError(400, "invalid", `Provided CRC32C "${expected.crc32c}" doesn't match calculated CRC32C "${hashes.crc32c}".`);
      }
      const b = this.getBucket(bucket);
      this.checkPreconditions(bucket, name, pre);
      const generation = this.nextGeneration();
      const blobPath = join(this.dir, "blobs", `${generation}-${++this.blobSeq}`);
      const previous = b.objects.get(name);
      const now = new Date().toISOString();
      const obj: StoredObject = {
        bucket,
        name,
        generation,
        metageneration: 1,
        size: hashes.size,
        md5Hash: hashes.md5Hash,
        crc32c: hashes.crc32c,
        contentType: meta.contentType || "application/octet-stream",
        timeCreated: now,
        updated: now,
        blobPath,
      };
      applyMetadata(obj, meta);
      b.objects.set(name, obj);
      await rename(tempPath, blobPath);
      this.saveObject(obj);
      // Readers holding the old blob open keep reading it: unlink is safe on POSIX.
      if (previous) this.removeBlob(previous);
      return obj;
    } finally {
      await rm(tempPath, { force: true });
    }
  }

  patchObject(bucket: string, name: string, meta: ObjectMetadataInput, pre: Preconditions): StoredObject {
    const o = this.getObject(bucket, name);
    this.checkPreconditions(bucket, name, pre);
    applyMetadata(o, meta);
    o.metageneration += 1;
    o.updated = new Date().toISOString();
    this.saveObject(o);
    return o;
  }

  async deleteObject(bucket: string, name: string, pre: Preconditions, generation?: string | null): Promise<void> {
    const o = this.getObject(bucket, name, generation);
    this.checkPreconditions(bucket, name, pre);
    this.getBucket(bucket).objects.delete(name);
    this.removeBlob(o);
  }

  list(bucket: string, opts: ListOptions): ListResult {
    const b = this.getBucket(bucket);
    const prefix = opts.prefix ?? "";
    const max = Math.max(1, Math.min(opts.maxResults ?? DEFAULT_PAGE, DEFAULT_PAGE));
    const token = opts.pageToken ? decodeToken(opts.pageToken) : undefined;
    const names = [...b.objects.keys()].filter((n) => n.startsWith(prefix)).sort(cmp);
    const items: StoredObject[] = [];
    const prefixes: string[] = [];
    let lastKey: string | undefined;
    let lastPrefix: string | undefined;
    for (const name of names) {
      if (token && (cmp(name, token.k) <= 0 || (token.p !== undefined && name.startsWith(token.p)))) continue;
      if (opts.startOffset && cmp(name, opts.startOffset) < 0) continue;
      if (opts.endOffset && cmp(name, opts.endOffset) >= 0) continue;
      if (items.length + prefixes.length >= max) {
        return { items, prefixes, nextPageToken: encodeToken(lastKey ?? "", lastPrefix) };
      }
      const rest = name.slice(prefix.length);
      const cut = opts.delimiter ? rest.indexOf(opts.delimiter) : -1;
      if (opts.delimiter && cut >= 0) {
        const p = prefix + rest.slice(0, cut + opts.delimiter.length);
        if (p === lastPrefix) continue;
        prefixes.push(p);
        lastPrefix = p;
        lastKey = name;
        if (opts.includeTrailingDelimiter && name === p) items.push(b.objects.get(name)!);
        continue;
      }
      items.push(b.objects.get(name)!);
      lastKey = name;
    }
    return { items, prefixes };
  }
}

/** Write-then-rename: a crash leaves the old file or the new one, never half of one. */
function writeAtomic(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

/** GCS orders object names by their UTF-8 bytes. */
function cmp(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

function encodeToken(k: string, p: string | undefined): string {
  return Buffer.from(JSON.stringify({ k, p })).toString("base64url");
}

function decodeToken(t: string): { k: string; p?: string } {
  try {
    const v = JSON.parse(Buffer.from(t, "base64url").toString("utf8")) as { k?: unknown; p?: unknown };
    if (typeof v.k !== "string") throw new Error("bad");
    return { k: v.k, p: typeof v.p === "string" ? v.p : undefined };
  } catch {
    throw new GcsError(400, "invalid", "Invalid pageToken");
  }
}

function validateObjectName(name: string): void {
  if (!name || Buffer.byteLength(name) > 1024 || /[\r\n]/.test(name) || name === "." || name === "..") {
    throw new GcsError(400, "invalid", `Invalid object name: '${name}'`);
  }
}

/** Merges client metadata; a null custom-metadata value deletes that key, as in GCS PATCH. */
function applyMetadata(o: StoredObject, m: ObjectMetadataInput): void {
  if (m.contentType) o.contentType = m.contentType;
  if (m.contentEncoding !== undefined) o.contentEncoding = m.contentEncoding || undefined;
  if (m.contentDisposition !== undefined) o.contentDisposition = m.contentDisposition || undefined;
  if (m.contentLanguage !== undefined) o.contentLanguage = m.contentLanguage || undefined;
  if (m.cacheControl !== undefined) o.cacheControl = m.cacheControl || undefined;
  if (m.metadata === null) {
    o.metadata = undefined;
  } else if (m.metadata) {
    const next: Record<string, string> = { ...(o.metadata ?? {}) };
    for (const [k, v] of Object.entries(m.metadata)) {
      if (v === null) delete next[k];
      else next[k] = String(v);
    }
    o.metadata = Object.keys(next).length > 0 ? next : undefined;
  }
}
