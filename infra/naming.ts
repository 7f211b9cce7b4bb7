/**
 * Deterministic names of the cloud runner's resources. Topic names are fixed strings (not
 * Pulumi auto-names) because every function gets every topic name as an environment variable,
 * including topics owned by stages created later in the program.
 */

/** Pipeline stages; each is a function whose entry point is the stage name. */
export const PIPELINE_STAGES = ["plan", "extract", "group", "dedup", "aggregate"] as const;
export type PipelineStage = (typeof PIPELINE_STAGES)[number];

/** Stages fed by a Pub/Sub topic (all but `plan`, which a Cloud Storage event starts). */
export const TOPIC_STAGES = ["extract", "group", "dedup", "aggregate"] as const satisfies readonly PipelineStage[];
export type TopicStage = (typeof TOPIC_STAGES)[number];

/** All deployed functions: the pipeline plus the dead-letter recorder (`functions/index.ts` "deadletter"). */
export const FUNCTION_STAGES = [...PIPELINE_STAGES, "deadletter"] as const;
export type FunctionStage = (typeof FUNCTION_STAGES)[number];

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
export function stageNames(prefix: string, stage: FunctionStage): StageNames {
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

/** The `PARACAP_TOPIC_*` environment of every function. */
export function topicEnvironment(prefix: string): Record<`PARACAP_TOPIC_${Uppercase<TopicStage>}`, string> {
  return {
    PARACAP_TOPIC_EXTRACT: stageNames(prefix, "extract").topic,
    PARACAP_TOPIC_GROUP: stageNames(prefix, "group").topic,
    PARACAP_TOPIC_DEDUP: stageNames(prefix, "dedup").topic,
    PARACAP_TOPIC_AGGREGATE: stageNames(prefix, "aggregate").topic,
  };
}
