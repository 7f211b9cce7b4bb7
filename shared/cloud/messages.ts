/**
 * Pub/Sub task messages between the cloud functions (validated with zod where a handler receives
 * them), built from the phase table: a phase's message names its unit (`shardId`, `partition`, or
 * nothing for a phase that runs once), e.g. `{ type: "group", runId, partition: 3 }`.
 */
import { z } from "zod";
import { BUILTIN_PHASE_SHAPES, phaseShape, type PhaseShape, type PhaseUnit } from "../core/phase-names.ts";

const UNIT_FIELDS = {
  shard: { shardId: z.string() },
  partition: { partition: z.number().int().nonnegative() },
  once: {},
} satisfies Record<PhaseUnit, z.ZodRawShape>;

/** The message that starts one task of `phase`. */
export function phaseMessage(phase: PhaseShape) {
  return z.object({ type: z.literal(phase.name), runId: z.string(), ...UNIT_FIELDS[phase.unit] });
}

/** Any task message of a pipeline with `phases` (what the dead-letter recorder receives). */
export function taskMessage(phases: readonly PhaseShape[]): z.ZodType<TaskMessage> {
  const [first, ...rest] = phases.map(phaseMessage);
  return z.discriminatedUnion("type", [first!, ...rest]) as z.ZodType<TaskMessage>;
}

export interface TaskMessage {
  type: string;
  runId: string;
  shardId?: string;
  partition?: number;
}
export const TaskMessage = taskMessage(BUILTIN_PHASE_SHAPES);
export const ExtractTask = phaseMessage(phaseShape("extract"));

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
 * Unknown keys are refused, naming them. resolveConfig validates the values once more. The keys
 * are the ones README.md lists as safe for an upload (a test keeps the two the same).
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
    .strictObject({ skipAudio: z.boolean().optional(), minRefs: int(2, 1000).optional(), maxRefs: int(2, 1000).optional(), maxRefsHistory: int(2, 1000).optional() })
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
