/**
 * The cloud runner's deployment settings (DeploymentConfig): one zod schema with the defaults
 * embedded, read from `pulumi config` (namespace `paracap`, plus `gcp:project`). Validated up front so
 * a bad value fails `pulumi preview` with a clear message instead of a half-applied deployment.
 * The method settings a deployment passes to its functions (tiers, partitions, caption bounds) are
 * validated by the same zod pieces as the core config and travel as the environment layer
 * (shared/core/env-layer.ts), so the functions read them exactly as `paracap run` does.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { Classifier, MinWords, Partitions } from "../shared/core/config-pieces.ts";
import { TierList } from "../shared/core/env-layer.ts";
import { DEADLETTER_FUNCTION, DEPLOYED_PIPELINE_SHAPES, PLAN_FUNCTION, servedPhases } from "../shared/core/phase-names.ts";

/** What the schema needs of a deployed phase. */
type DeployedPhase = { readonly name: string; readonly memory: string };

const DEPLOYED = servedPhases(DEPLOYED_PIPELINE_SHAPES);

const memory = z
  .string()
  .regex(/^\d+(Mi|Gi)$/, "memory must look like 512Mi or 2Gi");

/** The schema for a deployment of `phases` (per-function keys are the deployed function names). */
export function deploymentConfigSchema(phases: readonly DeployedPhase[]) {
  const fns = [PLAN_FUNCTION, ...phases, DEADLETTER_FUNCTION];
  const names = z.enum(fns.map((f) => f.name) as [string, ...string[]]);
  const defaultMemory = Object.fromEntries(fns.map((f) => [f.name, f.memory]));
  return z.object({
    /** GCP project id (from `gcp:project`). */
    project: z.string().min(1),
    /** Region of functions, buckets and the storage trigger. */
    region: z.string().min(1).default("europe-west1"),
    /**
     * Prefix of topic, function and service-account names. Service-account ids are at most 30
     * characters and the longest suffix is `-deadletter-trg` (15), hence at most 15 characters.
     */
    prefix: z
      .string()
      .regex(/^[a-z](?:[a-z0-9-]{0,13}[a-z0-9])?$/, "prefix: 1-15 chars, lowercase letters/digits/hyphens, starting with a letter")
      .default("paracap"),
    /** Memory per function, e.g. `{ "extract": "4Gi" }`; missing stages keep their default (the phase table's). */
    memory: z.partialRecord(names, memory).default({}).transform((m) => ({ ...defaultMemory, ...m }) as Record<string, string>),
    /** Upper bound of instances per function (caps fan-out cost). */
    maxInstances: z.number().int().positive().default(10),
    /** Per-stage override of `maxInstances`. */
    // extract gets more: the full enwiki dump needs ≈ 18,000 instance-seconds of extraction (scripts/bench/cloud-shard.ts),
    // so 15 min wall needs ≥ 20 instances; 50 leaves room for cold starts and slower shards.
    maxInstancesPerStage: z.partialRecord(names, z.number().int().positive()).default({}).transform((m): Record<string, number> => ({ extract: 50, ...m })),
    /**
     * Hash partitions of the group-by-image shuffle (PARACAP_PARTITIONS), bounded like the core's.
     * More than the core's 16 by default: a deployment reads whole dumps, and memory per partition
     * task is about input / partitions.
     */
    partitions: Partitions.default(64),
    /** Comma-separated tiers to emit (PARACAP_TIERS), e.g. `gold,silver`. */
    tiers: TierList.default(["gold", "silver", "bronze"]),
    /** Caption bounds for every run of this deployment (PARACAP_MIN_WORDS, PARACAP_CLASSIFIER); unset = the core's defaults. */
    minWords: MinWords.optional(),
    classifier: Classifier.optional(),
    /**
     * Transformer model of the embedding/bertscore scorers (PARACAP_MODEL): a hub id fetched at cold
     * start, or a directory shipped in the function source. Give dedup 2Gi with a MiniLM-size model
     * (≈ 0.5 GB peak measured with a MiniLM-shaped model), more for base-size models (≈ 1.2 GB).
     */
    model: z.string().min(1).optional(),
    /**
     * Server of the WARC files a crawl paths list names (PARACAP_WARC_BASE_URL, the core's
     * `extraction.warcBaseUrl`): each line of an uploaded `warc.paths.gz` is read from under it.
     * Unset: the core's default, Common Crawl's https://data.commoncrawl.org/. A deployment setting,
     * never an upload's: an uploaded list cannot point the functions at another host.
     */
    warcBaseUrl: z.string().max(2048).url().refine((u) => /^https?:\/\//i.test(u), "warcBaseUrl: an http(s) URL").optional(),
    /** Target compressed bytes per extract shard (PARACAP_SHARD_BYTES); the functions' default when unset. */
    shardBytes: z.number().int().positive().optional(),
    /** Days after which work-bucket objects are deleted by a lifecycle rule. */
    workLifecycleDays: z.number().int().min(1).default(7),
    /** Deliveries before a message goes to its stage's dead-letter topic (Pub/Sub allows 5-100). */
    dlqMaxDeliveryAttempts: z.number().int().min(5).max(100).default(5),
    /** Redelivery backoff bounds of the push subscriptions, seconds (Pub/Sub allows 0-600). */
    minBackoffSeconds: z.number().int().min(0).max(600).default(10),
    maxBackoffSeconds: z.number().int().min(0).max(600).default(600),
    /** Let `pulumi destroy` delete non-empty buckets. */
    forceDestroy: z.boolean().default(false),
    /** Directory produced by `npm run build:functions`, relative to the Pulumi project dir. */
    sourceDir: z.string().min(1).default("../dist/functions"),
    /** Enable the required Google APIs from the program (needs serviceusage permission). */
    enableApis: z.boolean().default(true),
  }).refine((c) => c.minBackoffSeconds <= c.maxBackoffSeconds, { message: "minBackoffSeconds must not exceed maxBackoffSeconds" });
}

/** Settings of one deployment (the built-in and the pixel pipeline); every field but `project` has a default. */
export const DeploymentConfig = deploymentConfigSchema(DEPLOYED);
export type DeploymentConfig = z.output<typeof DeploymentConfig>;
export type DeploymentConfigInput = z.input<typeof DeploymentConfig>;

/** Parse and validate settings (for a deployment of `phases`); throws one error listing every bad field. */
export function parseDeploymentConfig(raw: unknown, phases: readonly DeployedPhase[] = DEPLOYED): DeploymentConfig {
  const parsed = deploymentConfigSchema(phases).safeParse(raw);
  if (!parsed.success) {
    throw new Error(`invalid paracap config: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`);
  }
  return parsed.data;
}

/** Read the stack's `paracap:*` keys and `gcp:project`. Unset keys take the schema's defaults. */
export function readDeploymentConfig(cfg = new pulumi.Config("paracap"), gcpCfg = new pulumi.Config("gcp")): DeploymentConfig {
  const raw: Record<string, unknown> = {
    project: gcpCfg.get("project"),
    region: cfg.get("region"),
    prefix: cfg.get("prefix"),
    memory: cfg.getObject("memory"),
    maxInstances: cfg.getNumber("maxInstances"),
    maxInstancesPerStage: cfg.getObject("maxInstancesPerStage"),
    partitions: cfg.getNumber("partitions"),
    tiers: cfg.get("tiers"),
    minWords: cfg.getNumber("minWords"),
    classifier: cfg.get("classifier"),
    model: cfg.get("model"),
    shardBytes: cfg.getNumber("shardBytes"),
    warcBaseUrl: cfg.get("warcBaseUrl"),
    workLifecycleDays: cfg.getNumber("workLifecycleDays"),
    dlqMaxDeliveryAttempts: cfg.getNumber("dlqMaxDeliveryAttempts"),
    minBackoffSeconds: cfg.getNumber("minBackoffSeconds"),
    maxBackoffSeconds: cfg.getNumber("maxBackoffSeconds"),
    forceDestroy: cfg.getBoolean("forceDestroy"),
    sourceDir: cfg.get("sourceDir"),
    enableApis: cfg.getBoolean("enableApis"),
  };
  return parseDeploymentConfig(raw);
}
