/**
 * The environment layer of the configuration (between the config file and the flags), the same in
 * both runners: `paracap run` reads it from the shell, the cloud functions from the environment the
 * deployment sets (infra/ writes it with envFromLayer). Each variable is parsed with the config's own
 * zod piece, so a bad value names its variable wherever it is read. An empty variable counts as unset.
 */
import { z } from "zod";
import { Classifier, ConfigError, MinWords, Partitions, TierName } from "./config-pieces.ts";

const unsetIfEmpty = (v: unknown) => (v === "" ? undefined : v);
const wholeNumber = <T extends z.ZodType<number, number>>(piece: T) =>
  z.preprocess(unsetIfEmpty, z.string().trim().regex(/^\d+$/, "expected a whole number").transform(Number).pipe(piece).optional());

/** Tiers as one comma-separated string (`gold,silver`): an environment variable, a deployment setting. */
export const TierList = z.string().transform((s) => s.split(",").map((t) => t.trim())).pipe(z.array(TierName).min(1));

export const ConfigEnv = z.object({
  PARACAP_TIERS: z.preprocess(unsetIfEmpty, TierList.optional()),
  PARACAP_PARTITIONS: wholeNumber(Partitions),
  PARACAP_MIN_WORDS: wholeNumber(MinWords),
  PARACAP_CLASSIFIER: z.preprocess(unsetIfEmpty, Classifier.optional()),
  /** transformer model of the embedding/bertscore scorers (a directory, or a hub id); giving one adds those scorers */
  PARACAP_MODEL: z.preprocess(unsetIfEmpty, z.string().trim().min(1).optional()),
  /** server of the WARCs a crawl paths list names (extraction.warcBaseUrl): a deployment setting, never an upload's */
  PARACAP_WARC_BASE_URL: z.preprocess(unsetIfEmpty, z.string().trim().url().optional()),
});
export type ConfigEnv = z.output<typeof ConfigEnv>;

/** The settings the environment layer carries. */
export interface EnvLayer {
  tiers?: TierName[];
  partitions?: number;
  captions?: { minWords?: number; classifier?: Classifier };
  scoring?: { transformer: { model: string } };
  extraction?: { warcBaseUrl: string };
}
type Classifier = z.infer<typeof Classifier>;

/** The config layer of parsed variables (only the keys that are set). */
export function layerFromEnv(env: ConfigEnv): EnvLayer {
  const out: EnvLayer = {};
  if (env.PARACAP_TIERS) out.tiers = env.PARACAP_TIERS;
  if (env.PARACAP_PARTITIONS !== undefined) out.partitions = env.PARACAP_PARTITIONS;
  const captions: NonNullable<EnvLayer["captions"]> = {};
  if (env.PARACAP_MIN_WORDS !== undefined) captions.minWords = env.PARACAP_MIN_WORDS;
  if (env.PARACAP_CLASSIFIER !== undefined) captions.classifier = env.PARACAP_CLASSIFIER;
  if (Object.keys(captions).length > 0) out.captions = captions;
  if (env.PARACAP_MODEL !== undefined) out.scoring = { transformer: { model: env.PARACAP_MODEL } };
  if (env.PARACAP_WARC_BASE_URL !== undefined) out.extraction = { warcBaseUrl: env.PARACAP_WARC_BASE_URL };
  return out;
}

/** Parses the variables of `env` into a config layer; a bad value is a ConfigError naming the variable. */
export function configFromEnv(env: NodeJS.ProcessEnv): EnvLayer {
  const parsed = ConfigEnv.safeParse(env);
  if (!parsed.success) throw new ConfigError(`invalid environment: ${envIssues(parsed.error)}`);
  return layerFromEnv(parsed.data);
}

/** The variables that carry `layer` (what a deployment sets for its functions). */
export function envFromLayer(layer: EnvLayer): Record<string, string> {
  const out: Record<string, string> = {};
  if (layer.tiers) out.PARACAP_TIERS = layer.tiers.join(",");
  if (layer.partitions !== undefined) out.PARACAP_PARTITIONS = String(layer.partitions);
  if (layer.captions?.minWords !== undefined) out.PARACAP_MIN_WORDS = String(layer.captions.minWords);
  if (layer.captions?.classifier !== undefined) out.PARACAP_CLASSIFIER = layer.captions.classifier;
  if (layer.scoring) out.PARACAP_MODEL = layer.scoring.transformer.model;
  if (layer.extraction) out.PARACAP_WARC_BASE_URL = layer.extraction.warcBaseUrl;
  return out;
}

export function envIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
}
