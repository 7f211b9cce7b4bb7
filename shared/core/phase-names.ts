/**
 * The shape of the pipeline as plain data: phase names, units of work, the next phase and the
 * buckets each phase touches. Everything that only needs names derives from this table: the cloud
 * functions and their topics, the topic environment variables, who may publish where. It imports
 * nothing, so infra/ (compiled by Pulumi on its own) can use it without pulling in stage code; the
 * tasks the phases run are bound in shared/tasks/phases.ts.
 */

/** What one task of a phase works on: one input shard, one hash partition, or the whole run. */
export type PhaseUnit = "shard" | "partition" | "once";

/** Buckets of a deployment a phase may touch (infra turns them into IAM grants). */
export type BucketRole = "input" | "work" | "output";

export interface PhaseShape {
  readonly name: string;
  readonly unit: PhaseUnit;
  /** the phase the last finished task of this one starts; null ends the run */
  readonly next: string | null;
  /** buckets read only (the work bucket is also read by every phase that writes it): infra's IAM grants, not datasets */
  readonly reads: readonly BucketRole[];
  readonly writes: readonly BucketRole[];
  /** memory of its cloud function unless the deployment says otherwise */
  readonly memory: string;
}

/** The built-in phases in run order: extract (shard) → group (partition) → dedup (partition) → aggregate (once). */
export const BUILTIN_PHASE_SHAPES = [
  { name: "extract", unit: "shard", next: "group", reads: ["input"], writes: ["work"], memory: "2Gi" },
  { name: "group", unit: "partition", next: "dedup", reads: [], writes: ["work"], memory: "2Gi" },
  { name: "dedup", unit: "partition", next: "aggregate", reads: [], writes: ["work"], memory: "1Gi" },
  { name: "aggregate", unit: "once", next: null, reads: ["work"], writes: ["output"], memory: "2Gi" },
] as const satisfies readonly PhaseShape[];

/** A built-in phase's shape, by name. */
export function phaseShape(name: (typeof BUILTIN_PHASE_SHAPES)[number]["name"]): PhaseShape {
  return BUILTIN_PHASE_SHAPES.find((p) => p.name === name)!;
}

/** The cloud functions that are not phases: `plan` (an upload starts a run) and the dead-letter recorder. */
export const PLAN_FUNCTION = { name: "plan", reads: ["input"], writes: ["work"], memory: "512Mi" } as const;
export const DEADLETTER_FUNCTION = { name: "deadletter", reads: [], writes: ["work"], memory: "512Mi" } as const;

/**
 * A checked phase list: names unique and usable in resource names, listed in run order with each
 * `next` naming the phase after it and the last ending the run (next: null), so no phase is
 * unreachable and none runs twice.
 */
export function checkPhaseChain<P extends PhaseShape>(phases: readonly P[]): readonly P[] {
  if (phases.length === 0) throw new Error("a pipeline needs at least one phase");
  const byName = new Map<string, P>();
  const reserved: string[] = [PLAN_FUNCTION.name, DEADLETTER_FUNCTION.name];
  for (const p of phases) {
    if (!PHASE_NAME.test(p.name)) throw new Error(`phase name "${p.name}": 1-10 lowercase letters, digits or single hyphens, starting with a letter and not ending with a hyphen (it names functions, topics and service accounts)`);
    if (reserved.includes(p.name)) throw new Error(`phase name "${p.name}" is reserved for a cloud function`);
    if (byName.has(p.name)) throw new Error(`duplicate phase "${p.name}"`);
    byName.set(p.name, p);
  }
  phases.forEach((p, i) => {
    const expected = phases[i + 1]?.name ?? null;
    if (p.next !== expected) {
      if (p.next !== null && !byName.has(p.next)) throw new Error(`phase "${p.name}" names an unknown next phase "${p.next}"`);
      throw new Error(`phase "${p.name}" is followed by ${expected === null ? "nothing" : `"${expected}"`} but names ${p.next === null ? "no next phase" : `"${p.next}"`} as next: list phases in run order`);
    }
  });
  return phases;
}

/**
 * A phase name: it becomes part of function, topic and service-account names (`<prefix>-<phase>-run`
 * must stay within a service account id's 30 characters, hence 10), so lowercase letters, digits and
 * single inner hyphens (`pixel-hash`).
 */
export const PHASE_NAME = /^[a-z](?:[a-z0-9]|-(?=[a-z0-9])){0,9}$/;

/** `PARACAP_TOPIC_<PHASE>`: the environment variable holding a phase's trigger topic (hyphens become underscores). */
export function topicEnvName(phase: string): string {
  return `PARACAP_TOPIC_${phase.toUpperCase().replaceAll("-", "_")}`;
}

/** Every cloud function: `plan`, one per phase (entry point = phase name), the dead-letter recorder. */
export function functionNames(phases: readonly PhaseShape[]): string[] {
  return [PLAN_FUNCTION.name, ...phases.map((p) => p.name), DEADLETTER_FUNCTION.name];
}

/**
 * The topics each function may publish to: plan starts the first phase, a phase's last task starts
 * its next, and the dead-letter recorder completes the fan-in of a phase whose task died, so it may
 * start any phase that has a predecessor.
 */
export function publishTargets(phases: readonly PhaseShape[]): Record<string, string[]> {
  const out: Record<string, string[]> = { [PLAN_FUNCTION.name]: [phases[0]!.name] };
  for (const p of phases) out[p.name] = p.next === null ? [] : [p.next];
  out[DEADLETTER_FUNCTION.name] = phases.flatMap((p) => (p.next === null ? [] : [p.next]));
  return out;
}
