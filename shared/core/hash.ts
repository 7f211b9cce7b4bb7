/** Deterministic identities: the same input always gets the same partition and id, on any runner. */
import { createHash } from "node:crypto";

/** FNV-1a over UTF-16 code units; stable across runs and platforms. */
export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Partition of a key among `partitions` shuffle partitions. */
export function partitionOf(key: string, partitions: number): number {
  return fnv1a32(key) % partitions;
}

/** 16 hex chars of SHA-1 over the parts joined by NUL. */
export function stableId(...parts: string[]): string {
  return createHash("sha1").update(parts.join("\u0000")).digest("hex").slice(0, 16);
}
