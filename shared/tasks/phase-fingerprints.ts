/**
 * Fingerprints per phase, so a configuration change redoes only the phases that read it. Each phase
 * declares the config keys its tasks read (`configKeys`); its fingerprint covers their values and the
 * fingerprint of the phase before it (the shard plan for the first), so a change upstream redoes
 * everything downstream and a change to a later phase's key keeps what came before.
 * A config key no phase declares would be a key nothing reads: a test keeps that list empty.
 */
import type { ParacapConfig } from "../core/config.ts";
import { stableId } from "../core/hash.ts";
/** What a fingerprint needs of a phase (phase-task.ts declares the rest). */
export interface FingerprintedPhase {
  readonly name: string;
  readonly configKeys: readonly string[];
}

/** Bumped when the work store's layout changes, so an older run's work is never read as this one's. */
const WORK_LAYOUT = "data-v2";

/** The value of "section" or "section.key" in the config (undefined when absent). */
export function configValue(config: ParacapConfig, key: string): unknown {
  let v: unknown = config;
  for (const part of key.split(".")) v = v !== null && typeof v === "object" ? (v as Record<string, unknown>)[part] : undefined;
  return v;
}

/**
 * Phase name → fingerprint, in run order. Phases run in a line and each reads only what earlier ones
 * wrote, so chaining the previous phase's fingerprint covers every input (the shard plan starts it).
 */
export function phaseFingerprints(config: ParacapConfig, shards: unknown, phases: readonly FingerprintedPhase[]): Record<string, string> {
  const out: Record<string, string> = {};
  let previous = stableId(WORK_LAYOUT, JSON.stringify(shards));
  for (const phase of phases) {
    const keys = [...new Set(phase.configKeys)].sort().map((k) => [k, configValue(config, k) ?? null]);
    previous = out[phase.name] = stableId(previous, phase.name, JSON.stringify(keys));
  }
  return out;
}
