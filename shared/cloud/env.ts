/** Environment of the cloud functions (set by the Pulumi program), validated once per instance. */
import { z } from "zod";

export const CloudEnv = z.object({
  PARACAP_PROJECT: z.string().default("paracap-local"),
  PARACAP_INPUT_BUCKET: z.string(),
  PARACAP_WORK_BUCKET: z.string(),
  PARACAP_OUTPUT_BUCKET: z.string(),
  PARACAP_TOPIC_EXTRACT: z.string().default("paracap-extract"),
  PARACAP_TOPIC_GROUP: z.string().default("paracap-group"),
  PARACAP_TOPIC_DEDUP: z.string().default("paracap-dedup"),
  PARACAP_TOPIC_AGGREGATE: z.string().default("paracap-aggregate"),
  PARACAP_PARTITIONS: z.coerce.number().int().min(1).default(16),
  PARACAP_TIERS: z.string().default("gold,silver,bronze"),
  /** target compressed bytes per extract shard of a multistream dump */
  PARACAP_SHARD_BYTES: z.coerce.number().int().positive().default(24 * 1024 * 1024),
  /** transformer model of the embedding/bertscore scorers (a directory in the deployed source, or a hub id fetched at cold start); runs then score with them unless their manifest names scorers */
  PARACAP_MODEL: z.string().min(1).optional(),
  /** emulator endpoints for local runs (unset on Google Cloud) */
  STORAGE_EMULATOR_HOST: z.string().optional(),
  PUBSUB_EMULATOR_HOST: z.string().optional(),
});
export type CloudEnv = z.infer<typeof CloudEnv>;

export function readCloudEnv(env: NodeJS.ProcessEnv = process.env): CloudEnv {
  const parsed = CloudEnv.safeParse(env);
  if (!parsed.success) {
    throw new Error(`paracap function misconfigured: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  }
  return parsed.data;
}
