/**
 * The run manifest: the shard plan, the resolved config and the fingerprints of the pipeline's
 * phases. Written once per run; a rerun resumes only the phases whose fingerprints match, so a
 * resumed run can never mix two plans.
 */
import { z } from "zod";
import { ParacapConfig } from "../core/config.ts";
import { stableId } from "../core/hash.ts";
import { ShardSpec } from "../sources/shard-spec.ts";
import { phaseFingerprints } from "./phase-fingerprints.ts";
import type { FingerprintedPhase } from "./phase-fingerprints.ts";

export const RunManifest = z.object({
  version: z.literal(1),
  runId: z.string(),
  config: ParacapConfig,
  shards: z.array(ShardSpec).min(1),
  /** the whole plan (report settings aside): the published outputs carry it */
  fingerprint: z.string(),
  /** per phase: its config keys and everything before it (phase-fingerprints.ts); its markers carry it */
  phaseFingerprints: z.record(z.string(), z.string()),
  /** local runs: each input's size, modification time and sampled bytes (runner/input-stamps.ts); the first two join both fingerprints */
  inputStamps: z.record(z.string(), z.string()).optional(),
});
export type RunManifest = z.infer<typeof RunManifest>;

/**
 * @param inputs the inputs' stamps, kept in the manifest
 * @param planInputs what of them joins the fingerprints (default: all of it): the local runner leaves out
 *   what a stamp gained after runs were made, so a run an earlier version killed still resumes
 */
export function createManifest(runId: string, config: ParacapConfig, shards: ShardSpec[], phases: readonly FingerprintedPhase[], inputs?: Record<string, string>, planInputs = inputs): RunManifest {
  const { report: _report, ...planConfig } = config;
  // the inputs as they were join the shard plan: a changed input is a different plan
  const plan = planInputs === undefined ? shards : { shards, inputs: planInputs };
  const fingerprint = stableId(JSON.stringify(planConfig), JSON.stringify(plan), phases.map((p) => p.name).join(","));
  return { version: 1, runId, config, shards, fingerprint, phaseFingerprints: phaseFingerprints(config, plan, phases), ...(inputs === undefined ? {} : { inputStamps: inputs }) };
}
