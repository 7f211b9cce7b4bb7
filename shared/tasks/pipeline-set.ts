/**
 * The pipelines one deployment serves. Every phase name of every pipeline is one cloud function and
 * topic (a name shared by pipelines, such as extract or group, is one function); each run's pipeline
 * is chosen from its own config, at planning and again by every task from the run's manifest, so a
 * Wikipedia run and a pixel-pivot run go through the same deployment, each along its own phases.
 */
import type { ParacapConfig } from "../core/config.ts";
import { servedPhases } from "../core/phase-names.ts";
import type { Phase } from "./phase-task.ts";
import { BUILTIN_PIPELINE, PIXEL_PIPELINE, pivotMismatch, type Pipeline } from "./phases.ts";

export interface PipelineSet {
  readonly pipelines: readonly Pipeline[];
  /** one phase per name, upstream first (for a shared name, the first pipeline's): functions, topics, message schemas */
  readonly phases: readonly Phase[];
  /** the pipeline a run of `config` runs, or why none of the served ones can run it */
  choose(config: Pick<ParacapConfig, "pivot">): Pipeline | { refused: string };
}

/** What a runner may be given: one pipeline (every run goes through it) or a set chosen from per run. */
export type ServedPipelines = Pipeline | PipelineSet;

/**
 * A set serving `pipelines`: a run goes through the first one that can run its config (pivotMismatch),
 * so for the built-in pair the choice is `pipelineFor(config)`'s.
 */
export function servePipelines(pipelines: readonly Pipeline[]): PipelineSet {
  const served = servedPhases(pipelines.map((p) => p.phases));
  const byName = new Map<string, Phase>();
  for (const p of pipelines) for (const phase of p.phases) if (!byName.has(phase.name)) byName.set(phase.name, phase);
  return {
    pipelines,
    phases: served.map((s) => byName.get(s.name)!),
    choose(config) {
      const fit = pipelines.find((p) => pivotMismatch(p, config) === null);
      return fit ?? { refused: pivotMismatch(pipelines[0]!, config)! };
    },
  };
}

export function asPipelineSet(served: ServedPipelines): PipelineSet {
  return "choose" in served ? served : servePipelines([served]);
}

/** What a deployment serves by default: the built-in pipeline and the pixel pipeline. */
export const BUILTIN_PIPELINES: PipelineSet = servePipelines([BUILTIN_PIPELINE, PIXEL_PIPELINE]);
