/** JSON API resource shapes (objects#object, buckets#bucket) built from stored records. */
import type { ObjectMetadataInput, StoredBucket, StoredObject } from "./store.ts";

/** The JSON API's object resource; also the `data` of a finalize CloudEvent (StorageObjectData). */
export function objectResource(o: StoredObject, base: string): Record<string, unknown> & { bucket: string; name: string; updated: string; size: string } {
  const path = `b/${encodeURIComponent(o.bucket)}/o/${encodeURIComponent(o.name)}`;
  const r: Record<string, unknown> & { bucket: string; name: string; updated: string; size: string } = {
    kind: "storage#object",
    id: `${o.bucket}/${o.name}/${o.generation}`,
    selfLink: `${base}/storage/v1/${path}`,
    mediaLink: `${base}/download/storage/v1/${path}?generation=${o.generation}&alt=media`,
    name: o.name,
    bucket: o.bucket,
    generation: o.generation,
    metageneration: String(o.metageneration),
    contentType: o.contentType,
    storageClass: "STANDARD",
    size: String(o.size),
    md5Hash: o.md5Hash,
    crc32c: o.crc32c,
    etag: Buffer.from(`${o.generation}/${o.metageneration}`).toString("base64"),
    timeCreated: o.timeCreated,
    updated: o.updated,
    timeStorageClassUpdated: o.timeCreated,
  };
  if (o.contentEncoding) r.contentEncoding = o.contentEncoding;
  if (o.contentDisposition) r.contentDisposition = o.contentDisposition;
  if (o.contentLanguage) r.contentLanguage = o.contentLanguage;
  if (o.cacheControl) r.cacheControl = o.cacheControl;
  if (o.metadata) r.metadata = { ...o.metadata };
  return r;
}

export function bucketResource(b: StoredBucket, base: string): Record<string, unknown> {
  return {
    kind: "storage#bucket",
    id: b.name,
    selfLink: `${base}/storage/v1/b/${encodeURIComponent(b.name)}`,
    projectNumber: "0",
    name: b.name,
    timeCreated: b.timeCreated,
    updated: b.updated,
    metageneration: String(b.metageneration),
    location: b.location,
    locationType: "multi-region",
    storageClass: b.storageClass,
    etag: "CAE=",
  };
}

export function copyableMetadata(o: StoredObject): ObjectMetadataInput {
  return stripUndefined({
    contentType: o.contentType,
    contentEncoding: o.contentEncoding,
    contentDisposition: o.contentDisposition,
    contentLanguage: o.contentLanguage,
    cacheControl: o.cacheControl,
    metadata: o.metadata,
  });
}

export function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
