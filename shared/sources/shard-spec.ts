/**
 * A shard: one byte range of one input file that one task reads, and the source that reads it.
 * Sources plan shards and read them; runners and tasks only carry them.
 */
import { z } from "zod";
import { InputKind } from "../core/records.ts";

/** A text encoding a planner decides for a whole file (text-encoding.ts wholeFileEncoding). */
export const ShardEncoding = z.enum(["utf-8", "windows-1252"]);
export type ShardEncoding = z.infer<typeof ShardEncoding>;

export const ShardSpec = z.object({
  /** deterministic, path-safe id (one object-name segment, never `.` or `..`) */
  id: z.string().regex(/^[A-Za-z0-9._@-]+$/).refine((id) => !id.includes(".."), "a shard id never holds `..`"),
  /** file path (local) or object name (cloud) of the input file */
  uri: z.string(),
  /** the input source that reads the file (sources/registry.ts) */
  source: z.string().default("mediawiki"),
  kind: InputKind,
  /** byte range of a multistream dump; null = whole file */
  start: z.number().int().nonnegative().nullable(),
  end: z.number().int().positive().nullable(),
  /** the range has no <mediawiki> root (a multistream slice after the header) */
  fragment: z.boolean(),
  /** pages the multistream index lists in the range: fewer read means a damaged bz2 stream (absent: not known) */
  pages: z.number().int().nonnegative().optional(),
  /** the text encoding the planner told from the whole file where its head could not (absent: the shard decides from the head) */
  encoding: ShardEncoding.optional(),
});

export type ShardSpec = z.infer<typeof ShardSpec>;

/**
 * Path-safe shard id from a file name and an optional byte offset. Any legal file name gives a
 * usable object-name segment: characters outside [A-Za-z0-9._-] become `_`, runs of dots collapse to
 * one (so `release..v2.xml` or `...` can never form a `..` segment), length is bounded. The index
 * makes ids unique even when two names sanitise alike; the same plan always gives the same ids.
 */
export function shardId(index: number, uri: string, start: number | null): string {
  const base = (uri.split("/").pop() ?? "")
    .replace(/[^A-Za-z0-9._-]+/g, "_")
    .replace(/\.{2,}/g, ".")
    .slice(0, 80);
  return `s${String(index).padStart(5, "0")}-${base}${start !== null ? `@${start}` : ""}`;
}
