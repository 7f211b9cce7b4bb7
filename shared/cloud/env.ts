/**
 * Environment of the cloud functions (set by the Pulumi program), validated once per instance:
 * buckets, one topic per phase (`PARACAP_TOPIC_<PHASE>`, from the phase table) and the config's
 * environment layer, parsed by the same schema `paracap run` uses (core/env-layer.ts).
 */
import { z } from "zod";
import { ConfigEnv, envIssues } from "../core/env-layer.ts";
import { DEPLOYED_PIPELINE_SHAPES, servedPhases, topicEnvName } from "../core/phase-names.ts";

const DeploymentEnv = z.object({
  PARACAP_PROJECT: z.string().default("paracap-local"),
  PARACAP_INPUT_BUCKET: z.string(),
  PARACAP_WORK_BUCKET: z.string(),
  PARACAP_OUTPUT_BUCKET: z.string(),
  /** target compressed bytes per extract shard of a multistream dump */
  PARACAP_SHARD_BYTES: z.coerce.number().int().positive().default(24 * 1024 * 1024),
  /** emulator endpoints for local runs (unset on Google Cloud) */
  STORAGE_EMULATOR_HOST: z.string().optional(),
  PUBSUB_EMULATOR_HOST: z.string().optional(),
});

export type CloudEnv = z.output<typeof DeploymentEnv> & ConfigEnv & {
  /** trigger topic of each phase, by phase name */
  topics: Record<string, string>;
};

/** The environment of functions running `phases` (default: every phase of every pipeline a deployment serves). */
export function readCloudEnv(env: NodeJS.ProcessEnv = process.env, phases: readonly { name: string }[] = servedPhases(DEPLOYED_PIPELINE_SHAPES)): CloudEnv {
  const topics = z.object(Object.fromEntries(phases.map((p) => [topicEnvName(p.name), z.string().default(`paracap-${p.name}`)])));
  const parsed = DeploymentEnv.extend(ConfigEnv.shape).extend(topics.shape).safeParse(env);
  if (!parsed.success) throw new Error(`paracap function misconfigured: ${envIssues(parsed.error)}`);
  const data = parsed.data as z.output<typeof DeploymentEnv> & ConfigEnv & Record<string, string>;
  return { ...data, topics: Object.fromEntries(phases.map((p) => [p.name, data[topicEnvName(p.name)]!])) };
}
