/**
 * The pipeline definition: the phase table of core/phase-names.ts bound to the tasks the phases
 * run. Both runners walk it (local-runner.ts, cloud/cloud-stages.ts), the cloud messages and
 * function handlers are built from it; a pipeline is a value, so a caller may run another one.
 *
 * | phase     | unit      | consumes → produces    | marker                      | after the phase                     |
 * |-----------|-----------|------------------------|-----------------------------|-------------------------------------|
 * | extract   | shard     | input → refs           | extract/<shard>/_DONE.json  | stop if no document read            |
 * | group     | partition | refs → pairs           | group/p-*\/_DONE.json       | summary: equivalence-set size bound |
 * | dedup     | partition | pairs → scored (tiers) | dedup/p-*\/_DONE.json       |                                     |
 * | aggregate | once      | scored, markers → outputs | _SUCCESS (output)        |                                     |
 *
 * Datasets live under data/<producer>/<dataset>/ (datasets.ts); a consumed name is wired to the
 * latest earlier phase that produced it.
 *
 * The pixel pivots (md5, ahash, …) run the pixel pipeline, which decides identity from pixels:
 *
 * | phase      | unit      | consumes → produces                        | after the phase                 |
 * |------------|-----------|--------------------------------------------|---------------------------------|
 * | extract    | shard     | input → refs, image-facts (by image key), image-hashes (by index task), image-captures, revisit-wants (by how a revisit names its original) | stop if no document read |
 * | hash-index | partition | image-hashes → image-edges (index slices); image-captures, revisit-wants → revisit-facts (a crawl's revisits joined across shards) | summary: image-groups |
 * | rekey      | partition | refs, image-facts, revisit-facts → refs (by pixel identity) |                   |
 * | group, dedup, aggregate: as above, reading rekey's refs                                               |
 *
 * A cloud deployment serves both (pipeline-set.ts): one function per phase name of their union.
 */
import { checkPhaseChain } from "../core/phase-names.ts";
import { aggregatePhase } from "./aggregate-task.ts";
import type { DatasetSpec, SummarySpec } from "./datasets.ts";
import { dedupPhase } from "./dedup-task.ts";
import { extractPhase } from "./extract-task.ts";
import { groupPhase } from "./group-task.ts";
import { hashIndexPhase } from "./hash-index-task.ts";
import { pixelExtractPhase } from "./pixel-extract-task.ts";
import { rekeyPhase } from "./rekey-task.ts";
import { isPixelPivot } from "../core/plugin-names.ts";
import type { ParacapConfig } from "../core/config.ts";
import { shardPhaseOf, type OncePhase, type Phase, type UnitPhase, type Wiring } from "./phase-task.ts";

export interface Pipeline {
  /** in run order */
  readonly phases: readonly Phase[];
  /** the phases whose tasks leave markers (every one but the last) */
  readonly unitPhases: readonly UnitPhase[];
  /** the last phase: publishes the outputs */
  readonly final: OncePhase;
  /** the one phase over input shards (the others do partitions or run once) */
  readonly shardPhase: UnitPhase;
  /** which phase wrote each dataset a phase reads */
  readonly wiring: Wiring;
  get(name: string): Phase;
  /** the phase whose last task starts `name`, or null for the first */
  previous(name: string): Phase | null;
}

const DATASET_NAME = /^[a-z][a-z0-9-]{0,39}$/;

/**
 * A checked pipeline: the phases in run order, each naming the next; every phase but the last does
 * shards or partitions (exactly one reads the input shards), the last runs once and publishes the
 * outputs; every dataset and summary a phase reads was produced by an earlier phase.
 */
export function definePipeline(phases: readonly Phase[]): Pipeline {
  checkPhaseChain(phases);
  const final = phases.at(-1)!;
  if (final.unit !== "once") throw new Error(`the last phase "${final.name}" must run once (it publishes the outputs)`);
  const unitPhases = phases.slice(0, -1).map((p) => {
    if (p.unit === "once") throw new Error(`phase "${p.name}" runs once, so it can only be the last phase`);
    return p;
  });
  const shardPhase = shardPhaseOf(phases);
  if (phases[0] !== shardPhase) throw new Error(`the first phase must be the one over input shards ("${shardPhase.name}"), not "${phases[0]!.name}"`);
  const wiring = wire(phases);
  const byName = new Map(phases.map((p) => [p.name, p]));
  return {
    phases,
    unitPhases,
    final,
    shardPhase,
    wiring,
    get(name) {
      const p = byName.get(name);
      if (!p) throw new Error(`unknown phase "${name}" (phases: ${phases.map((x) => x.name).join(", ")})`);
      return p;
    },
    previous: (name) => phases.find((p) => p.next === name) ?? null,
  };
}

/** Binds each consumed dataset and summary to the latest earlier phase that produced it; refuses one nobody wrote. */
function wire(phases: readonly Phase[]): Wiring {
  const datasets = new Map<string, { phase: UnitPhase; spec: DatasetSpec }>();
  const summaries = new Map<string, { phase: UnitPhase; spec: SummarySpec }>();
  const bound = new Map<string, { phase: UnitPhase; spec: DatasetSpec }>();
  const boundSummaries = new Map<string, { phase: UnitPhase; spec: SummarySpec }>();
  for (const phase of phases) {
    for (const name of phase.consumes) {
      const p = datasets.get(name);
      if (!p) throw new Error(`phase "${phase.name}" consumes dataset "${name}", which no earlier phase produces${datasets.size ? ` (produced so far: ${[...datasets.keys()].join(", ")})` : ""}`);
      bound.set(`${phase.name}\u0000${name}`, p);
    }
    // a phase reads the summaries of every earlier phase it names: bound lazily below, by name
    for (const [name, s] of summaries) boundSummaries.set(`${phase.name}\u0000${name}`, s);
    if (phase.unit === "once") continue;
    for (const spec of phase.produces) {
      if (!DATASET_NAME.test(spec.name)) throw new Error(`phase "${phase.name}": dataset name "${spec.name}": lowercase letters, digits and hyphens, starting with a letter`);
      datasets.set(spec.name, { phase, spec });
    }
    for (const spec of phase.summaries ?? []) summaries.set(spec.name, { phase, spec });
  }
  return {
    producer(phase, dataset) {
      const p = bound.get(`${phase}\u0000${dataset}`);
      if (!p) throw new Error(`phase "${phase}" has no dataset "${dataset}" wired to it`);
      return p;
    },
    summaryProducer(phase, name) {
      const p = boundSummaries.get(`${phase}\u0000${name}`);
      if (!p) throw new Error(`phase "${phase}" reads summary "${name}", which no earlier phase writes`);
      return p;
    },
  };
}

export const BUILTIN_PIPELINE = definePipeline([extractPhase, groupPhase, dedupPhase, aggregatePhase]);

/** Identity from pixels: extract with image facts → near-duplicate index → refs re-keyed by group → group → dedup → aggregate. */
export const PIXEL_PIPELINE = definePipeline([pixelExtractPhase, hashIndexPhase, rekeyPhase, groupPhase, dedupPhase, aggregatePhase]);

/**
 * The built-in pipeline a run's config needs: the pixel pipeline for a pixel pivot, the built-in one
 * otherwise (so runs of every other pivot keep their phases, markers and outputs).
 */
export function pipelineFor(config: Pick<ParacapConfig, "pivot">): Pipeline {
  return isPixelPivot(config.pivot) ? PIXEL_PIPELINE : BUILTIN_PIPELINE;
}

/**
 * Why `pipeline` cannot run a config's pivot, or null: a pixel pivot needs the pixel pipeline's
 * index phase, and that phase needs a pixel pivot. A deployment serves one pipeline, so its planner
 * refuses an upload whose pivot needs the other instead of grouping by the wrong identity.
 */
export function pivotMismatch(pipeline: { phases: readonly Phase[] }, config: Pick<ParacapConfig, "pivot">): string | null {
  const indexes = pipeline.phases.some((p) => p.name === hashIndexPhase.name);
  if (isPixelPivot(config.pivot) && !indexes) return `pivot "${config.pivot}" decides identity from pixels and needs the pixel pipeline (PIXEL_PIPELINE, shared/tasks/phases.ts), which this runner does not serve`;
  if (!isPixelPivot(config.pivot) && indexes) return `this runner serves the pixel pipeline, which needs a pixel pivot (md5, ahash, dhash, phash, rahash, rphash), not "${config.pivot}"`;
  return null;
}
