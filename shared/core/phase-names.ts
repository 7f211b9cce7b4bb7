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

/**
 * The pixel pipeline (identity from pixels, tasks/phases.ts PIXEL_PIPELINE): extract also writes
 * image facts, then the near-duplicate index and the rekey phase run before the built-in group,
 * dedup and aggregate.
 */
export const PIXEL_PHASE_SHAPES = [
  { ...BUILTIN_PHASE_SHAPES[0], next: "hash-index" },
  { name: "hash-index", unit: "partition", next: "rekey", reads: [], writes: ["work"], memory: "2Gi" },
  { name: "rekey", unit: "partition", next: "group", reads: [], writes: ["work"], memory: "1Gi" },
  ...BUILTIN_PHASE_SHAPES.slice(1),
] as const satisfies readonly PhaseShape[];

/** Phase chains, one per pipeline a deployment serves. */
export type PipelineShapes = readonly (readonly PhaseShape[])[];

/**
 * Every pipeline one deployment serves: the planner picks a run's pipeline from its config
 * (tasks/phases.ts pipelineFor), so one deployment takes a Wikipedia dump and a pixel-pivot upload.
 */
export const DEPLOYED_PIPELINE_SHAPES: PipelineShapes = [BUILTIN_PHASE_SHAPES, PIXEL_PHASE_SHAPES];

/** A phase as deployed for several pipelines: one function and topic, every phase it may start. */
export interface ServedPhase extends Omit<PhaseShape, "next"> {
  readonly nexts: readonly string[];
}

/**
 * The union of the pipelines' phases, one entry per name, upstream first (a topological order of the
 * `next` links, ties in the order first met). A name shared by pipelines (extract, group, …) is one
 * function: it must have one unit; it gets every bucket any of them touches and the largest memory.
 */
export function servedPhases(pipelines: PipelineShapes): ServedPhase[] {
  if (pipelines.length === 0) throw new Error("a deployment serves at least one pipeline");
  const byName = new Map<string, { name: string; unit: PhaseUnit; nexts: string[]; reads: BucketRole[]; writes: BucketRole[]; memory: string }>();
  for (const phases of pipelines) {
    checkPhaseChain(phases);
    for (const p of phases) {
      const s = byName.get(p.name);
      if (!s) {
        byName.set(p.name, { name: p.name, unit: p.unit, nexts: p.next === null ? [] : [p.next], reads: [...p.reads], writes: [...p.writes], memory: p.memory });
        continue;
      }
      if (s.unit !== p.unit) throw new Error(`phase "${p.name}" is a ${s.unit} phase in one pipeline and a ${p.unit} phase in another: one deployed function cannot be both`);
      if (p.next !== null && !s.nexts.includes(p.next)) s.nexts.push(p.next);
      for (const b of p.reads) if (!s.reads.includes(b)) s.reads.push(b);
      for (const b of p.writes) if (!s.writes.includes(b)) s.writes.push(b);
      if (memoryBytes(p.memory) > memoryBytes(s.memory)) s.memory = p.memory;
    }
  }
  // Kahn's algorithm: a phase comes after every phase that may start it
  const incoming = new Map([...byName.keys()].map((n) => [n, 0]));
  for (const s of byName.values()) for (const n of s.nexts) incoming.set(n, incoming.get(n)! + 1);
  const ready = [...byName.keys()].filter((n) => incoming.get(n) === 0);
  const out: ServedPhase[] = [];
  while (ready.length > 0) {
    const s = byName.get(ready.shift()!)!;
    out.push(s);
    for (const n of s.nexts) {
      incoming.set(n, incoming.get(n)! - 1);
      if (incoming.get(n) === 0) ready.push(n);
    }
  }
  if (out.length !== byName.size) throw new Error(`the pipelines' phases form a cycle (${[...byName.keys()].filter((n) => !out.some((s) => s.name === n)).join(", ")})`);
  return out;
}

function memoryBytes(m: string): number {
  const match = /^(\d+)(Mi|Gi)$/.exec(m);
  if (!match) throw new Error(`memory "${m}": expected e.g. 512Mi or 2Gi`);
  return Number(match[1]) * (match[2] === "Gi" ? 1024 : 1);
}

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
export function functionNames(phases: readonly { name: string }[]): string[] {
  return [PLAN_FUNCTION.name, ...phases.map((p) => p.name), DEADLETTER_FUNCTION.name];
}

/**
 * The topics each function may publish to, over every pipeline served: plan starts each pipeline's
 * first phase, a phase's last task starts its next in any pipeline, and the dead-letter recorder
 * completes the fan-in of a phase whose task died, so it may start any phase that has a predecessor.
 */
export function publishTargets(pipelines: PipelineShapes): Record<string, string[]> {
  const served = servedPhases(pipelines);
  const firsts = [...new Set(pipelines.map((phases) => phases[0]!.name))];
  const out: Record<string, string[]> = { [PLAN_FUNCTION.name]: firsts };
  for (const p of served) out[p.name] = [...p.nexts];
  out[DEADLETTER_FUNCTION.name] = [...new Set(served.flatMap((p) => p.nexts))];
  return out;
}
