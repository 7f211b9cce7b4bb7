/**
 * The run manifest: the shard plan and the resolved config. Written once per run; a rerun resumes
 * only if its plan fingerprint matches, so a resumed run can never mix two plans.
 */
import { z } from "zod";
import { ParacapConfig } from "../core/config.ts";
import { ShardSpec } from "../sources/shard-spec.ts";
import { phaseFingerprints } from "./phase-fingerprints.ts";

export const RunManifest = z.object({
  version: z.literal(1),
  runId: z.string(),
  config: ParacapConfig,
  shards: z.array(ShardSpec).min(1),
  fingerprint: z.string(),
  /** fingerprint of the shard plan and the extract-relevant config (phase-fingerprints.ts): extract markers carry it */
  extractFingerprint: z.string(),
});
export type RunManifest = z.infer<typeof RunManifest>;

export function createManifest(runId: string, config: ParacapConfig, shards: ShardSpec[]): RunManifest {
  const { all, extract } = phaseFingerprints(config, shards);
  return { version: 1, runId, config, shards, fingerprint: all, extractFingerprint: extract };
}
