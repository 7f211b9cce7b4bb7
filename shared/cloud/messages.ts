/** Pub/Sub task messages between the cloud stages (validated with zod where a handler receives them). */
import { z } from "zod";

export const ExtractTask = z.object({ type: z.literal("extract"), runId: z.string(), shardId: z.string() });
export const GroupTask = z.object({ type: z.literal("group"), runId: z.string(), partition: z.number().int().nonnegative() });
export const DedupTask = z.object({ type: z.literal("dedup"), runId: z.string(), partition: z.number().int().nonnegative() });
export const AggregateTask = z.object({ type: z.literal("aggregate"), runId: z.string() });
export const TaskMessage = z.discriminatedUnion("type", [ExtractTask, GroupTask, DedupTask, AggregateTask]);
export type ExtractTask = z.infer<typeof ExtractTask>;
export type GroupTask = z.infer<typeof GroupTask>;
export type DedupTask = z.infer<typeof DedupTask>;
export type AggregateTask = z.infer<typeof AggregateTask>;
export type TaskMessage = z.infer<typeof TaskMessage>;

/** The Cloud Storage object a "finalized" event names (StorageObjectData, the fields we use). */
export const StorageObjectEvent = z.object({
  bucket: z.string(),
  name: z.string(),
  generation: z.union([z.string(), z.number()]).transform(String),
  size: z.union([z.string(), z.number()]).transform(Number).optional(),
  /** custom object metadata (`paracap-manifest` marks a part of a multi-dump upload) */
  metadata: z.record(z.string(), z.string()).optional(),
});
export type StorageObjectEvent = z.infer<typeof StorageObjectEvent>;

/**
 * A manifest uploaded as `<name>.manifest.json`: the dumps of one run (a multistream dump whose
 * index is in the bucket is split into byte-range shards) and config overrides.
 */
export const UploadManifest = z.object({
  shards: z.array(z.object({ object: z.string(), kind: z.enum(["current", "history"]).optional() })).min(1),
  config: z.record(z.string(), z.unknown()).optional(),
});

/**
 * Custom metadata key on uploaded dumps (and indexes) that belong to a manifest: the planner
 * ignores their own finalize events; the manifest's upload starts the run.
 */
export const PART_OF_MANIFEST = "paracap-manifest";
export type UploadManifest = z.infer<typeof UploadManifest>;
