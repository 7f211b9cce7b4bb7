/**
 * The zod pieces of the configuration that every layer shares: the core schema (config.ts), the
 * environment layer (env-layer.ts) and the deployment settings (infra/config.ts). Plain (zod only),
 * so infra/ can import it without stage code.
 */
import { z } from "zod";

export const TierName = z.enum(["gold", "silver", "bronze"]);
export type TierName = z.infer<typeof TierName>;

/** Shuffle partitions: the upper bound keeps one upload or deployment from fanning out without end. */
export const Partitions = z.number().int().min(1).max(4096);
export const MinWords = z.number().int().min(0).max(10_000);
export const Classifier = z.enum(["improved", "paper"]);

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}
