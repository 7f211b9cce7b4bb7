/**
 * The pipeline definition: the phase table of core/phase-names.ts bound to the tasks the phases
 * run. Both runners walk it (local-runner.ts, cloud/cloud-stages.ts), the cloud messages and
 * function handlers are built from it; a pipeline is a value, so a caller may run another one.
 *
 * | phase     | unit      | reads → writes                          | marker                          | after the phase            |
 * |-----------|-----------|-----------------------------------------|---------------------------------|----------------------------|
 * | extract   | shard     | input bytes → extract/<shard>/p-*.jsonl | extract/<shard>/_DONE.json      | stop if no document read   |
 * | group     | partition | extract parts → pairs/q-*\/p-*.jsonl    | group/p-*\/_DONE.json           | equivalence-set size bound |
 * | dedup     | partition | pairs → dedup/q-*\/<tier>.jsonl         | dedup/q-*\/_DONE.json           |                            |
 * | aggregate | once      | dedup parts, markers → outputs          | _SUCCESS (output)               |                            |
 */
import { checkPhaseChain } from "../core/phase-names.ts";
import { aggregatePhase } from "./aggregate-task.ts";
import { dedupPhase } from "./dedup-task.ts";
import { extractPhase } from "./extract-task.ts";
import { groupPhase } from "./group-task.ts";
import { shardPhaseOf, type OncePhase, type Phase, type UnitPhase } from "./phase-task.ts";

export interface Pipeline {
  /** in run order */
  readonly phases: readonly Phase[];
  /** the phases whose tasks leave markers (every one but the last) */
  readonly unitPhases: readonly UnitPhase[];
  /** the last phase: publishes the outputs */
  readonly final: OncePhase;
  /** the one phase over input shards (the others do partitions or run once) */
  readonly shardPhase: UnitPhase;
  get(name: string): Phase;
  /** the phase whose last task starts `name`, or null for the first */
  previous(name: string): Phase | null;
}

/**
 * A checked pipeline: the phases in run order, each naming the next; every phase but the last does
 * shards or partitions (exactly one reads the input shards), the last runs once and publishes the outputs.
 */
export function definePipeline(phases: readonly Phase[]): Pipeline {
  checkPhaseChain(phases);
  const final = phases.at(-1)!;
  if (final.unit !== "once") throw new Error(`the last phase "${final.name}" must run once (it publishes the outputs)`);
  const unitPhases = phases.slice(0, -1).map((p) => {
    if (p.unit === "once") throw new Error(`phase "${p.name}" runs once, so it can only be the last phase`);
    const marker = p.done("0");
    // The cloud fan-in counts a phase's markers by listing `<name>/` for names ending in `/_DONE.json`.
    if (!marker.startsWith(`${p.name}/`) || !marker.endsWith("/_DONE.json")) throw new Error(`phase "${p.name}": markers must be named ${p.name}/…/_DONE.json (its fan-in lists that folder), not ${marker}`);
    return p;
  });
  const shardPhase = shardPhaseOf(phases);
  const byName = new Map(phases.map((p) => [p.name, p]));
  return {
    phases,
    unitPhases,
    final,
    shardPhase,
    get(name) {
      const p = byName.get(name);
      if (!p) throw new Error(`unknown phase "${name}" (phases: ${phases.map((x) => x.name).join(", ")})`);
      return p;
    },
    previous: (name) => phases.find((p) => p.next === name) ?? null,
  };
}

export const BUILTIN_PIPELINE = definePipeline([extractPhase, groupPhase, dedupPhase, aggregatePhase]);
