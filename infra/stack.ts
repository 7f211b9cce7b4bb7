/**
 * The whole cloud runner: APIs, buckets, source archive, project-level service-agent grants and
 * one StageFunction per function of the phase tables (shared/core/phase-names.ts): plan, one per
 * phase name of every pipeline the deployment serves (the built-in and the pixel pipeline: a phase
 * both have, such as extract or group, is one function), the dead-letter recorder. Which buckets each
 * reads and writes and which topics it may publish to come from the tables. Phases are created
 * downstream-first because each one is granted publish rights on its next phases' topics, which
 * those phases own.
 */
import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { enableApis } from "./apis.ts";
import { createBuckets } from "./buckets.ts";
import { StageFunction, type BucketRef, type StageTrigger, type TopicRef } from "./components/stage-function.ts";
import { DEADLETTER_FUNCTION, DEPLOYED_PIPELINE_SHAPES, PLAN_FUNCTION, publishTargets, servedPhases, type BucketRole, type PipelineShapes } from "../shared/core/phase-names.ts";
import { envFromLayer } from "../shared/core/env-layer.ts";
import type { DeploymentConfig } from "./config.ts";
import { stageNames, topicEnvironment } from "./naming.ts";
import { functionsSource } from "./source-archive.ts";

/** Event-driven gen2 functions may run at most 540 s (and push waits at most 600 s). */
export const FUNCTION_TIMEOUT_SECONDS = 540;

/** What the stack exports. */
export interface ParacapStackOutputs {
  project: string;
  region: string;
  buckets: { input: pulumi.Output<string>; work: pulumi.Output<string>; output: pulumi.Output<string>; source: pulumi.Output<string> };
  /** per phase */
  topics: Record<string, pulumi.Output<string>>;
  deadLetterTopics: Record<string, pulumi.Output<string>>;
  deadLetterHoldSubscriptions: Record<string, pulumi.Output<string>>;
  /** per function */
  functionUris: Record<string, pulumi.Output<string>>;
  runtimeServiceAccounts: Record<string, pulumi.Output<string>>;
  triggerServiceAccounts: Record<string, pulumi.Output<string>>;
  buildServiceAccount: pulumi.Output<string>;
}

/** Declare every resource of the cloud runner for `cfg` serving `pipelines`; `cwd` resolves `cfg.sourceDir`. */
export function buildParacapStack(cfg: DeploymentConfig, cwd = process.cwd(), pipelines: PipelineShapes = DEPLOYED_PIPELINE_SHAPES): ParacapStackOutputs {
  const phases = servedPhases(pipelines);
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
  // storage admin: a build could overwrite published datasets): write its logs, push its image to the
  // deployment's own image repository (not to every repository of the project), and read the source
  // archive from its bucket only.
  const images = new gcp.artifactregistry.Repository(
    `${prefix}-images`,
    { project, location: region, repositoryId: `${prefix}-functions`, format: "DOCKER", description: "paracap function images" },
    afterApis,
  );
  const buildLogs = new gcp.projects.IAMMember(`${prefix}-build-logs`, { project, role: "roles/logging.logWriter", member: buildAccount.member }, afterApis);
  const buildImages = new gcp.artifactregistry.RepositoryIamMember(
    `${prefix}-build-images`,
    { project, location: region, repository: images.name, role: "roles/artifactregistry.writer", member: buildAccount.member },
    afterApis,
  );
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
    ...envFromLayer({ tiers: cfg.tiers, partitions: cfg.partitions, captions: { minWords: cfg.minWords, classifier: cfg.classifier }, ...(cfg.model ? { scoring: { transformer: { model: cfg.model } } } : {}), ...(cfg.warcBaseUrl ? { extraction: { warcBaseUrl: cfg.warcBaseUrl } } : {}) }),
    ...topicEnvironment(prefix, phases),
    ...(cfg.shardBytes !== undefined ? { PARACAP_SHARD_BYTES: String(cfg.shardBytes) } : {}),
  };
  const bucket: Record<BucketRole, BucketRef> = {
    input: { label: "input", bucket: buckets.input.name },
    work: { label: "work", bucket: buckets.work.name },
    output: { label: "output", bucket: buckets.output.name },
  };

  const canPublish = publishTargets(pipelines);
  const all: Record<string, StageFunction> = {};
  const stage = (fn: { name: string; reads: readonly BucketRole[]; writes: readonly BucketRole[] }, trigger: StageTrigger, extraDeps: pulumi.Resource[] = []) =>
    (all[fn.name] = new StageFunction(fn.name, {
      stage: fn.name,
      names: stageNames(prefix, fn.name),
      project,
      region,
      source: { bucket: buckets.source.name, object: archive.name },
      buildServiceAccount: buildAccount.id,
      dockerRepository: images.id,
      memory: cfg.memory[fn.name]!,
      maxInstances: cfg.maxInstancesPerStage[fn.name] ?? cfg.maxInstances,
      timeoutSeconds: FUNCTION_TIMEOUT_SECONDS,
      environment,
      pubsubServiceAgent,
      retry: { minimumBackoff: `${cfg.minBackoffSeconds}s`, maximumBackoff: `${cfg.maxBackoffSeconds}s` },
      trigger,
      dependsOn: [...apis, ...buildRoles, ...extraDeps],
      reads: fn.reads.map((b) => bucket[b]),
      writes: fn.writes.map((b) => bucket[b]),
      publishes: (canPublish[fn.name] ?? []).map((target) => topicOf(target)),
    }));
  const topicOf = (phase: string): TopicRef => {
    const topic = all[phase]?.topic;
    if (!topic) throw new Error(`phase ${phase} has no trigger topic yet (phases are created downstream-first)`);
    return { label: phase, topic };
  };
  const deadLetterOf = (phase: string): TopicRef => {
    const topic = all[phase]?.deadLetterTopic;
    if (!topic) throw new Error(`phase ${phase} has no dead-letter topic`);
    return { label: phase, topic };
  };

  for (const phase of [...phases].reverse()) stage(phase, { kind: "topic", maxDeliveryAttempts: cfg.dlqMaxDeliveryAttempts });
  stage(PLAN_FUNCTION, { kind: "storage", bucket: buckets.input.name }, [gcsAgentPublisher]);
  // The recorder marks dead tasks failed and completes their phase's fan-in so the run does not wait
  // forever on a task that will never finish; hence it may start any phase but the first.
  stage(DEADLETTER_FUNCTION, { kind: "deadLetters", topics: phases.map((p) => deadLetterOf(p.name)) });

  const perPhase = (pick: (s: StageFunction) => pulumi.Output<string> | undefined) =>
    Object.fromEntries(phases.map((p) => {
      const value = pick(all[p.name]!);
      if (!value) throw new Error(`phase ${p.name} lacks a topic resource`);
      return [p.name, value];
    }));
  const perFunction = (pick: (s: StageFunction) => pulumi.Output<string>) => Object.fromEntries(Object.entries(all).map(([name, s]) => [name, pick(s)]));

  return {
    project,
    region,
    buckets: { input: buckets.input.name, work: buckets.work.name, output: buckets.output.name, source: buckets.source.name },
    topics: perPhase((s) => s.topic?.name),
    deadLetterTopics: perPhase((s) => s.deadLetterTopic?.name),
    deadLetterHoldSubscriptions: perPhase((s) => s.deadLetterHold?.name),
    functionUris: perFunction((s) => s.uri),
    runtimeServiceAccounts: perFunction((s) => s.runtimeServiceAccount.email),
    triggerServiceAccounts: perFunction((s) => s.triggerServiceAccount.email),
    buildServiceAccount: buildAccount.email,
  };
}
