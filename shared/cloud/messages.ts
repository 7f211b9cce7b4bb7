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
  shards: z.array(z.object({ object: z.string().min(1).max(1024), kind: z.enum(["current", "history"]).optional() })).min(1).max(1000),
  config: z.lazy(() => UploadConfig).optional(),
});

/**
 * What an upload may override of the deployment's config: anyone who can write to the input bucket
 * can upload a manifest, so only method settings, each bounded so one upload cannot exhaust the
 * deployment (partitions, samples) or pick the decoder (it runs `lbzip2`/`bzip2` binaries).
 * Unknown keys are refused, naming them. resolveConfig validates the values once more.
 */
const int = (min: number, max: number) => z.number().int().min(min).max(max);
export const UploadConfig = z.strictObject({
  preset: z.enum(["paper", "improved"]).optional(),
  tiers: z.array(z.enum(["gold", "silver", "bronze"])).min(1).max(3).optional(),
  partitions: int(1, 256).optional(),
  dump: z.strictObject({ namespaces: z.array(int(-2, 3000)).min(1).max(32).optional(), skipRedirects: z.boolean().optional() }).optional(),
  extraction: z.strictObject({ fileAliases: z.array(z.string().min(1).max(64)).max(64).optional(), maxPageBytes: int(1024, 64 * 1024 * 1024).optional() }).optional(),
  captions: z
    .strictObject({
      minWords: int(0, 100).optional(),
      maxWords: int(1, 1000).optional(),
      classifier: z.enum(["improved", "paper"]).optional(),
      profanity: z.boolean().optional(),
      englishOnly: z.boolean().optional(),
    })
    .optional(),
  images: z
    .strictObject({ skipAudio: z.boolean().optional(), minRefs: int(2, 1000).optional(), maxRefs: int(2, 1000).optional(), maxRefsHistory: int(2, 100_000).optional() })
    .optional(),
  pivot: z.string().max(64).optional(),
  scoring: z
    .strictObject({
      scorers: z.array(z.string().max(64)).min(1).max(8).optional(),
      semantic: z.array(z.string().max(64)).min(1).max(8).optional(),
      paraphraseThreshold: z.number().min(0).max(1).nullable().optional(),
      vectors: z.strictObject({ maxWords: int(1, 10_000_000).nullable().optional() }).optional(),
    })
    .optional(),
  report: z.strictObject({ samplesPerTier: int(0, 50).optional() }).optional(),
});

/**
 * Custom metadata key on uploaded dumps (and indexes) that belong to a manifest: the planner
 * ignores their own finalize events; the manifest's upload starts the run.
 */
export const PART_OF_MANIFEST = "paracap-manifest";
export type UploadManifest = z.infer<typeof UploadManifest>;
