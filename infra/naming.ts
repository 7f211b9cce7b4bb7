/**
 * Deterministic names of the cloud runner's resources, derived from the pipeline's phase table
 * (shared/core/phase-names.ts, plain data: no stage code reaches the Pulumi program). Topic names
 * are fixed strings (not Pulumi auto-names) because every function gets every topic name as an
 * environment variable, including topics owned by stages created later in the program.
 */
import { DEPLOYED_PIPELINE_SHAPES, functionNames, servedPhases, topicEnvName } from "../shared/core/phase-names.ts";

const DEPLOYED = servedPhases(DEPLOYED_PIPELINE_SHAPES);
/** All deployed functions: plan, one per phase of every served pipeline, the dead-letter recorder. */
export const FUNCTION_STAGES = functionNames(DEPLOYED);
/** Stages fed by a Pub/Sub topic: the phases (plan is started by a Cloud Storage event). */
export const TOPIC_STAGES = DEPLOYED.map((p) => p.name);

/** Physical names of one stage's resources. */
export interface StageNames {
  /** Cloud Function (and its Cloud Run service) name */
  function: string;
  /** topic that triggers the stage */
  topic: string;
  /** where messages go after `dlqMaxDeliveryAttempts` failed deliveries */
  deadLetterTopic: string;
  /** pull subscription that keeps dead messages listable */
  deadLetterHold: string;
  /** push subscription that delivers the trigger topic to the function */
  pushSubscription: string;
  /** service account the function runs as */
  runtimeAccountId: string;
  /** service account Pub/Sub or Eventarc uses to invoke the function */
  triggerAccountId: string;
}

/** Names for `stage` under `prefix` (validated by the config schema to keep account ids ≤ 30 chars). */
export function stageNames(prefix: string, stage: string): StageNames {
  const base = `${prefix}-${stage}`;
  return {
    function: base,
    topic: base,
    deadLetterTopic: `${base}-dlq`,
    deadLetterHold: `${base}-dlq-hold`,
    pushSubscription: `${base}-push`,
    runtimeAccountId: `${base}-run`,
    triggerAccountId: `${base}-trg`,
  };
}

/** The `PARACAP_TOPIC_<PHASE>` environment of every function. */
export function topicEnvironment(prefix: string, phases: readonly { name: string }[] = DEPLOYED): Record<string, string> {
  return Object.fromEntries(phases.map((p) => [topicEnvName(p.name), stageNames(prefix, p.name).topic]));
}
