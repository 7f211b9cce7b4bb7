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
});
export type StorageObjectEvent = z.infer<typeof StorageObjectEvent>;

/** A user-written manifest uploaded as `<name>.manifest.json`: explicit shards and config. */
export const UploadManifest = z.object({
  shards: z.array(z.object({ object: z.string(), kind: z.enum(["current", "history"]).optional() })).min(1),
  config: z.record(z.string(), z.unknown()).optional(),
});
export type UploadManifest = z.infer<typeof UploadManifest>;
