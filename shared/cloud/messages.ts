/**
 * Pub/Sub task messages between the cloud functions (validated with zod where a handler receives
 * them), built from the phase table: a phase's message names its unit (`shardId`, `partition`, or
 * nothing for a phase that runs once), e.g. `{ type: "group", runId, partition: 3 }`.
 */
import { z } from "zod";
import { configSubset } from "../core/config.ts";
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
export const UPLOAD_KEYS = [
  "preset",
  "tiers",
  "partitions",
  "dump.namespaces",
  "dump.skipRedirects",
  "extraction.fileAliases",
  "extraction.language",
  "extraction.maxPageBytes",
  "extraction.captionEncoding",
  "captions.minWords",
  "captions.maxWords",
  "captions.classifier",
  "captions.profanity",
  "captions.englishOnly",
  "images.skipAudio",
  "images.minRefs",
  "images.maxRefs",
  "images.maxRefsHistory",
  "pivot",
  "pixels.threshold",
  "pixels.maxDiameter",
  "pivots.bucketCap",
  "pivots.minhash.perms",
  "pivots.minhash.bands",
  "pivots.minhash.threshold",
  "pivots.minhash.verify",
  "pivots.minhash.slack",
  "pivots.minhash.seed",
  "scoring.scorers",
  "scoring.semantic",
  "scoring.paraphraseThreshold",
  "scoring.vectors",
  "report.samplesPerTier",
] as const;

/** Bounds tighter than the config's for an upload: its cost falls on the deployment. */
const UPLOAD_CAPS = {
  partitions: 256,
  "dump.namespaces": 32,
  "extraction.fileAliases": 64,
  "captions.maxWords": 1000,
  "images.minRefs": 1000,
  "images.maxRefs": 1000,
  "images.maxRefsHistory": 1000,
  "scoring.scorers": 8,
  "scoring.semantic": 8,
  "report.samplesPerTier": 50,
};

export const UploadConfig = configSubset(UPLOAD_KEYS, UPLOAD_CAPS);

/**
 * Custom metadata key on uploaded dumps (and indexes) that belong to a manifest: the planner
 * ignores their own finalize events; the manifest's upload starts the run.
 */
export const PART_OF_MANIFEST = "paracap-manifest";
export type UploadManifest = z.infer<typeof UploadManifest>;
