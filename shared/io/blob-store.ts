/**
 * Where tasks read and write: local files or a Cloud Storage bucket. Tasks see only this interface,
 * so the same task code runs under the local runner and inside a cloud function.
 */
import type { Readable } from "node:stream";

export interface BlobWriter {
  write(chunk: string | Buffer): Promise<void>;
  /** publishes the object atomically: readers never see a half-written object */
  close(): Promise<void>;
  abort(): Promise<void>;
}

export interface BlobStore {
  readonly description: string;
  exists(name: string): Promise<boolean>;
  readText(name: string): Promise<string | null>;
  /** null when the object does not exist */
  readStream(name: string): Promise<Readable | null>;
  writeText(name: string, text: string): Promise<void>;
  /** creates the object only if absent; true when this call created it (exactly one caller wins) */
  createIfAbsent(name: string, text: string): Promise<boolean>;
  writer(name: string): BlobWriter;
  /** names under a prefix, sorted */
  list(prefix: string): Promise<string[]>;
  delete(name: string): Promise<void>;
}
