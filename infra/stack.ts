/**
 * The whole cloud runner: APIs, buckets, source archive, project-level service-agent grants and
 * one StageFunction per stage. Stages are created downstream-first because each one is granted
 * publish rights on the next stage's topic, which that stage owns.
 */
import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { enableApis } from "./apis.ts";
import { createBuckets } from "./buckets.ts";
import { StageFunction, type BucketRef, type StageTrigger, type TopicRef } from "./components/stage-function.ts";
import type { ParacapConfig } from "./config.ts";
import { stageNames, topicEnvironment, type FunctionStage } from "./naming.ts";
import { functionsSource } from "./source-archive.ts";

/** Event-driven gen2 functions may run at most 540 s (and push waits at most 600 s). */
export const FUNCTION_TIMEOUT_SECONDS = 540;

/** What the stack exports. */
export interface ParacapStackOutputs {
  project: string;
  region: string;
  buckets: { input: pulumi.Output<string>; work: pulumi.Output<string>; output: pulumi.Output<string>; source: pulumi.Output<string> };
  topics: Record<"extract" | "group" | "dedup" | "aggregate", pulumi.Output<string>>;
  deadLetterTopics: Record<"extract" | "group" | "dedup" | "aggregate", pulumi.Output<string>>;
  deadLetterHoldSubscriptions: Record<"extract" | "group" | "dedup" | "aggregate", pulumi.Output<string>>;
  functionUris: Record<FunctionStage, pulumi.Output<string>>;
  runtimeServiceAccounts: Record<FunctionStage, pulumi.Output<string>>;
  triggerServiceAccounts: Record<FunctionStage, pulumi.Output<string>>;
  buildServiceAccount: pulumi.Output<string>;
}

/** Declare every resource of the cloud runner for `cfg`; `cwd` resolves `cfg.sourceDir`. */
export function buildParacapStack(cfg: ParacapConfig, cwd = process.cwd()): ParacapStackOutputs {
  const { project, region, prefix } = cfg;
  const source = functionsSource(cfg.sourceDir, cwd);
  const apis = cfg.enableApis ? enableApis(project) : [];
  const afterApis: pulumi.CustomResourceOptions = { dependsOn: apis };

  const buckets = createBuckets(
    { project, prefix, location: region, forceDestroy: cfg.forceDestroy, workLifecycleDays: cfg.workLifecycleDays },
    afterApis,
  );
  const archive = new gcp.storage.BucketObject(
    `${prefix}-functions-archive`,
    { bucket: buckets.source.name, name: source.objectName, source: new pulumi.asset.FileArchive(source.dir) },
    afterApis,
  );

  const projectInfo = gcp.organizations.getProjectOutput({ projectId: project });
  const pubsubServiceAgent = pulumi.interpolate`serviceAccount:service-${projectInfo.number}@gcp-sa-pubsub.iam.gserviceaccount.com`;
  // Gen2 storage triggers deliver through Pub/Sub: the Cloud Storage service agent must be allowed
  // to publish project-wide (Eventarc creates the transport topic, so no narrower scope exists).
  const gcsAgent = gcp.storage.getProjectServiceAccountOutput({ project });
  const gcsAgentPublisher = new gcp.projects.IAMMember(
    `${prefix}-gcs-agent-publisher`,
    { project, role: "roles/pubsub.publisher", member: gcsAgent.member },
    afterApis,
  );

  // A dedicated build account: since 2024 GCF builds as the Compute default account unless told
  // otherwise, and that account is often unprivileged (or over-privileged) by org policy.
  const buildAccount = new gcp.serviceaccount.Account(
    `${prefix}-build`,
    { project, accountId: `${prefix}-build`, displayName: "paracap function builds" },
    afterApis,
  );
  // What a function build needs, and no more (roles/cloudbuild.builds.builder would add project-wide
  // storage admin: a build could overwrite published datasets): write its logs, push its image,
  // and read the source archive from its bucket only.
  const buildLogs = new gcp.projects.IAMMember(`${prefix}-build-logs`, { project, role: "roles/logging.logWriter", member: buildAccount.member }, afterApis);
  const buildImages = new gcp.projects.IAMMember(`${prefix}-build-images`, { project, role: "roles/artifactregistry.writer", member: buildAccount.member }, afterApis);
  const buildSource = new gcp.storage.BucketIAMMember(
    `${prefix}-build-reads-source`,
    { bucket: buckets.source.name, role: "roles/storage.objectViewer", member: buildAccount.member },
    afterApis,
  );
  const buildRoles = [buildLogs, buildImages, buildSource];

  const environment: Record<string, pulumi.Input<string>> = {
    PARACAP_PROJECT: project,
    PARACAP_INPUT_BUCKET: buckets.input.name,
    PARACAP_WORK_BUCKET: buckets.work.name,
    PARACAP_OUTPUT_BUCKET: buckets.output.name,
    PARACAP_PARTITIONS: String(cfg.partitions),
    PARACAP_TIERS: cfg.tiers,
    ...topicEnvironment(prefix),
    ...(cfg.shardBytes !== undefined ? { PARACAP_SHARD_BYTES: String(cfg.shardBytes) } : {}),
  };
  const bucket = {
    input: { label: "input", bucket: buckets.input.name },
    work: { label: "work", bucket: buckets.work.name },
    output: { label: "output", bucket: buckets.output.name },
  } satisfies Record<string, BucketRef>;

  const stage = (name: FunctionStage, access: { reads: BucketRef[]; writes: BucketRef[]; publishes: TopicRef[] }, trigger: StageTrigger, extraDeps: pulumi.Resource[] = []) =>
    new StageFunction(name, {
      stage: name,
      names: stageNames(prefix, name),
      project,
      region,
      source: { bucket: buckets.source.name, object: archive.name },
      buildServiceAccount: buildAccount.id,
      memory: cfg.memory[name],
      maxInstances: cfg.maxInstancesPerStage[name] ?? cfg.maxInstances,
      timeoutSeconds: FUNCTION_TIMEOUT_SECONDS,
      environment,
      pubsubServiceAgent,
      retry: { minimumBackoff: `${cfg.minBackoffSeconds}s`, maximumBackoff: `${cfg.maxBackoffSeconds}s` },
      trigger,
      dependsOn: [...apis, ...buildRoles, ...extraDeps],
      ...access,
    });
  const topicTrigger: StageTrigger = { kind: "topic", maxDeliveryAttempts: cfg.dlqMaxDeliveryAttempts };
  const topicOf = (s: StageFunction, label: string): TopicRef => {
    if (!s.topic) throw new Error(`stage ${label} has no trigger topic`);
    return { label, topic: s.topic };
  };
  const deadLetterOf = (s: StageFunction, label: string): TopicRef => {
    if (!s.deadLetterTopic) throw new Error(`stage ${label} has no dead-letter topic`);
    return { label, topic: s.deadLetterTopic };
  };

  const aggregate = stage("aggregate", { reads: [bucket.work], writes: [bucket.output], publishes: [] }, topicTrigger);
  const dedup = stage("dedup", { reads: [], writes: [bucket.work], publishes: [topicOf(aggregate, "aggregate")] }, topicTrigger);
  const group = stage("group", { reads: [], writes: [bucket.work], publishes: [topicOf(dedup, "dedup")] }, topicTrigger);
  const extract = stage("extract", { reads: [bucket.input], writes: [bucket.work], publishes: [topicOf(group, "group")] }, topicTrigger);
  const plan = stage(
    "plan",
    { reads: [bucket.input], writes: [bucket.work], publishes: [topicOf(extract, "extract")] },
    { kind: "storage", bucket: buckets.input.name },
    [gcsAgentPublisher],
  );
  const topicStages = { extract, group, dedup, aggregate };
  // The recorder marks dead shards failed and, for extract, completes the fan-in so the run does
  // not wait forever on a shard that will never finish; hence it publishes to the group topic.
  const deadletter = stage(
    "deadletter",
    { reads: [], writes: [bucket.work], publishes: [topicOf(group, "group")] },
    { kind: "deadLetters", topics: (Object.entries(topicStages) as [string, StageFunction][]).map(([label, s]) => deadLetterOf(s, label)) },
  );
  const all: Record<FunctionStage, StageFunction> = { plan, extract, group, dedup, aggregate, deadletter };

  const perTopicStage = (pick: (s: StageFunction) => pulumi.Output<string> | undefined) => {
    const out = {} as Record<keyof typeof topicStages, pulumi.Output<string>>;
    for (const [label, s] of Object.entries(topicStages) as [keyof typeof topicStages, StageFunction][]) {
      const value = pick(s);
      if (!value) throw new Error(`stage ${label} lacks a topic resource`);
      out[label] = value;
    }
    return out;
  };
  const perStage = (pick: (s: StageFunction) => pulumi.Output<string>) => {
    const out = {} as Record<FunctionStage, pulumi.Output<string>>;
    for (const [label, s] of Object.entries(all) as [FunctionStage, StageFunction][]) out[label] = pick(s);
    return out;
  };

  return {
    project,
    region,
    buckets: { input: buckets.input.name, work: buckets.work.name, output: buckets.output.name, source: buckets.source.name },
    topics: perTopicStage((s) => s.topic?.name),
    deadLetterTopics: perTopicStage((s) => s.deadLetterTopic?.name),
    deadLetterHoldSubscriptions: perTopicStage((s) => s.deadLetterHold?.name),
    functionUris: perStage((s) => s.uri),
    runtimeServiceAccounts: perStage((s) => s.runtimeServiceAccount.email),
    triggerServiceAccounts: perStage((s) => s.triggerServiceAccount.email),
    buildServiceAccount: buildAccount.email,
  };
}
