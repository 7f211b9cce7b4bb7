/**
 * One pipeline stage as a Pulumi component: its service accounts, trigger, dead-letter topic,
 * Cloud Function (gen2) and the least-privilege IAM that ties them together.
 *
 * Why topic-triggered stages use an explicit push subscription instead of `eventTrigger.pubsubTopic`:
 * a gen2 Pub/Sub trigger makes Eventarc create (and own) the subscription, and neither the
 * Cloud Functions API nor Pulumi can put a dead-letter policy or retry backoff on it
 * (firebase-functions #1322; the documented fix is to edit that subscription by hand after every
 * deploy). Without a dead-letter policy a poison message is retried until retention expires and is
 * then silently lost. So the function is deployed without an event trigger and this component owns
 * a push subscription with `deadLetterPolicy` + `retryPolicy`, pushing to the function's URI with
 * an OIDC token of the stage's trigger service account. The functions framework turns the raw
 * push body into the same CloudEvent a Pub/Sub trigger would deliver (`pubsub_middleware.ts`).
 *
 * `plan` keeps a real Eventarc trigger: Cloud Storage events have no topic of ours to subscribe
 * to, and a storage event that keeps failing only concerns one upload.
 */
import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import type { StageNames } from "../naming.ts";

/** How the function is invoked. */
export type StageTrigger =
  /** Eventarc trigger on objects finalized in `bucket` (the `plan` stage) */
  | { kind: "storage"; bucket: pulumi.Input<string> }
  /** own topic + push subscription with dead-lettering after `maxDeliveryAttempts` */
  | { kind: "topic"; maxDeliveryAttempts: number }
  /** push subscriptions on other stages' dead-letter topics (the dead-letter recorder) */
  | { kind: "deadLetters"; topics: TopicRef[] };

/** A bucket the stage touches; `label` names the IAM resource. */
export interface BucketRef {
  label: string;
  bucket: pulumi.Input<string>;
}

/** A topic the stage touches; `label` names the IAM resource. */
export interface TopicRef {
  label: string;
  topic: gcp.pubsub.Topic;
}

export interface StageFunctionArgs {
  /** stage name = entry point in functions/index.ts */
  stage: string;
  names: StageNames;
  project: string;
  region: string;
  /** zipped source in the functions-source bucket */
  source: { bucket: pulumi.Input<string>; object: pulumi.Input<string> };
  /** `projects/<p>/serviceAccounts/<email>` of the Cloud Build account; GCF's default when unset */
  buildServiceAccount?: pulumi.Input<string>;
  /** Artifact Registry repository the build pushes the function's image to (`projects/…/repositories/…`) */
  dockerRepository?: pulumi.Input<string>;
  memory: string;
  maxInstances: number;
  timeoutSeconds: number;
  environment: Record<string, pulumi.Input<string>>;
  /** buckets read only: roles/storage.objectViewer */
  reads: BucketRef[];
  /**
   * buckets written: roles/storage.objectUser, because paracap creates with ifGenerationMatch and
   * also overwrites and lists markers; objectCreator cannot overwrite (needs delete) or list.
   */
  writes: BucketRef[];
  /** topics published to: roles/pubsub.publisher on each topic, nothing project-wide */
  publishes: TopicRef[];
  /** `serviceAccount:service-<number>@gcp-sa-pubsub.iam.gserviceaccount.com` */
  pubsubServiceAgent: pulumi.Input<string>;
  /** push redelivery backoff, e.g. "10s" / "600s" */
  retry: { minimumBackoff: string; maximumBackoff: string };
  trigger: StageTrigger;
  /** resources every child must wait for (enabled APIs, project-level grants) */
  dependsOn?: pulumi.Resource[];
}

/** Pub/Sub keeps unacknowledged messages at most this long by default; the DLQ hold keeps its copies as long. */
const RETENTION = "604800s";
/** Push waits at most 600 s for an answer; the function's 540 s timeout fits inside. */
const ACK_DEADLINE_SECONDS = 600;

export class StageFunction extends pulumi.ComponentResource {
  readonly function: gcp.cloudfunctionsv2.Function;
  /** the Cloud Run URI requests are pushed to */
  readonly uri: pulumi.Output<string>;
  readonly runtimeServiceAccount: gcp.serviceaccount.Account;
  readonly triggerServiceAccount: gcp.serviceaccount.Account;
  /** trigger topic (topic-triggered stages only) */
  readonly topic?: gcp.pubsub.Topic;
  /** dead-letter topic (topic-triggered stages only) */
  readonly deadLetterTopic?: gcp.pubsub.Topic;
  /** pull subscription keeping dead messages listable (`gcloud pubsub subscriptions pull <stage>-dlq-hold`) */
  readonly deadLetterHold?: gcp.pubsub.Subscription;
  /** push subscriptions delivering to the function */
  readonly pushSubscriptions: gcp.pubsub.Subscription[] = [];

  constructor(name: string, args: StageFunctionArgs, opts?: pulumi.ComponentResourceOptions) {
    super("paracap:stage:StageFunction", name, {}, opts);
    const n = args.names;
    const child: pulumi.CustomResourceOptions = { parent: this, dependsOn: args.dependsOn };
    const { project, region } = args;

    this.runtimeServiceAccount = new gcp.serviceaccount.Account(
      `${n.function}-run`,
      { project, accountId: n.runtimeAccountId, displayName: `paracap ${args.stage} function runtime` },
      child,
    );
    this.triggerServiceAccount = new gcp.serviceaccount.Account(
      `${n.function}-trg`,
      { project, accountId: n.triggerAccountId, displayName: `paracap ${args.stage} trigger (invokes the function)` },
      child,
    );
    const runtimeMember = this.runtimeServiceAccount.member;
    const triggerMember = this.triggerServiceAccount.member;

    const grants: pulumi.Resource[] = [
      ...args.reads.map(
        (b) => new gcp.storage.BucketIAMMember(`${n.function}-reads-${b.label}`, { bucket: b.bucket, role: "roles/storage.objectViewer", member: runtimeMember }, child),
      ),
      ...args.writes.map(
        (b) => new gcp.storage.BucketIAMMember(`${n.function}-writes-${b.label}`, { bucket: b.bucket, role: "roles/storage.objectUser", member: runtimeMember }, child),
      ),
      ...args.publishes.map(
        (t) =>
          new gcp.pubsub.TopicIAMMember(`${n.function}-publishes-${t.label}`, { project, topic: t.topic.name, role: "roles/pubsub.publisher", member: runtimeMember }, child),
      ),
    ];

    // Pub/Sub mints the OIDC tokens for push (and Eventarc's push) as the trigger account. Projects
    // created before April 2021 need this grant explicitly; scoped to this one account.
    new gcp.serviceaccount.IAMMember(
      `${n.function}-trg-token-creator`,
      { serviceAccountId: this.triggerServiceAccount.name, role: "roles/iam.serviceAccountTokenCreator", member: args.pubsubServiceAgent },
      child,
    );

    if (args.trigger.kind === "topic") {
      this.topic = new gcp.pubsub.Topic(`${n.function}-topic`, { project, name: n.topic }, child);
      this.deadLetterTopic = new gcp.pubsub.Topic(`${n.function}-dlq`, { project, name: n.deadLetterTopic }, child);
      // A topic without subscriptions drops what it receives: the hold subscription is what keeps dead messages.
      this.deadLetterHold = new gcp.pubsub.Subscription(
        `${n.function}-dlq-hold`,
        { project, name: n.deadLetterHold, topic: this.deadLetterTopic.name, messageRetentionDuration: RETENTION, expirationPolicy: { ttl: "" }, ackDeadlineSeconds: 60 },
        child,
      );
      // Dead-lettering is done by the Pub/Sub service agent; without these two grants it silently does nothing (google-cloud-go #1977).
      new gcp.pubsub.TopicIAMMember(
        `${n.function}-dlq-agent-publisher`,
        { project, topic: this.deadLetterTopic.name, role: "roles/pubsub.publisher", member: args.pubsubServiceAgent },
        child,
      );
    }

    const isStorage = args.trigger.kind === "storage";
    this.function = new gcp.cloudfunctionsv2.Function(
      `${n.function}-fn`,
      {
        project,
        location: region,
        name: n.function,
        description: `paracap ${args.stage} stage`,
        buildConfig: {
          runtime: "nodejs22",
          entryPoint: args.stage,
          source: { storageSource: { bucket: args.source.bucket, object: args.source.object } },
          serviceAccount: args.buildServiceAccount,
          dockerRepository: args.dockerRepository,
        },
        serviceConfig: {
          availableMemory: args.memory,
          timeoutSeconds: args.timeoutSeconds,
          maxInstanceCount: args.maxInstances,
          // One message per instance: stages size their buffers to the instance's whole memory.
          maxInstanceRequestConcurrency: 1,
          // Pub/Sub and Eventarc in the same project count as internal traffic to the run.app URL.
          ingressSettings: "ALLOW_INTERNAL_ONLY",
          allTrafficOnLatestRevision: true,
          serviceAccountEmail: this.runtimeServiceAccount.email,
          environmentVariables: args.environment,
        },
        eventTrigger:
          args.trigger.kind === "storage"
            ? {
                eventType: "google.cloud.storage.object.v1.finalized",
                eventFilters: [{ attribute: "bucket", value: args.trigger.bucket }],
                retryPolicy: "RETRY_POLICY_RETRY",
                serviceAccountEmail: this.triggerServiceAccount.email,
                // The trigger must be in the bucket's location, which is the functions' region.
                triggerRegion: region,
              }
            : undefined,
      },
      { ...child, dependsOn: [...(args.dependsOn ?? []), ...grants] },
    );
    this.uri = this.function.serviceConfig.apply((s) => {
      if (!s?.uri) throw new Error(`function ${n.function} has no service URI`);
      return s.uri;
    });

    // Only this stage's trigger account may invoke this stage's function (gen2 = Cloud Run service of the same name).
    const invoker = new gcp.cloudrunv2.ServiceIamMember(
      `${n.function}-invoker`,
      { project, location: region, name: this.function.name, role: "roles/run.invoker", member: triggerMember },
      child,
    );
    if (isStorage) {
      new gcp.projects.IAMMember(`${n.function}-event-receiver`, { project, role: "roles/eventarc.eventReceiver", member: triggerMember }, child);
    }

    const push = (suffix: string, subscriptionName: string, topic: gcp.pubsub.Topic, deadLetter?: { topic: gcp.pubsub.Topic; maxDeliveryAttempts: number }) =>
      new gcp.pubsub.Subscription(
        `${n.function}-${suffix}`,
        {
          project,
          name: subscriptionName,
          topic: topic.name,
          ackDeadlineSeconds: ACK_DEADLINE_SECONDS,
          messageRetentionDuration: RETENTION,
          expirationPolicy: { ttl: "" },
          retryPolicy: args.retry,
          deadLetterPolicy: deadLetter ? { deadLetterTopic: deadLetter.topic.id, maxDeliveryAttempts: deadLetter.maxDeliveryAttempts } : undefined,
          pushConfig: {
            // The framework reads the topic from a /projects/<p>/topics/<t> path (pubsub_middleware.ts).
            pushEndpoint: pulumi.interpolate`${this.uri}/projects/${project}/topics/${topic.name}`,
            // Cloud Run checks the audience against the service URL, not the full endpoint.
            oidcToken: { serviceAccountEmail: this.triggerServiceAccount.email, audience: this.uri },
          },
        },
        { ...child, dependsOn: [...(args.dependsOn ?? []), invoker] },
      );

    if (args.trigger.kind === "topic" && this.topic && this.deadLetterTopic) {
      const sub = push("push", n.pushSubscription, this.topic, { topic: this.deadLetterTopic, maxDeliveryAttempts: args.trigger.maxDeliveryAttempts });
      this.pushSubscriptions.push(sub);
      // The agent acknowledges the forwarded message on the source subscription.
      new gcp.pubsub.SubscriptionIAMMember(
        `${n.function}-push-agent-subscriber`,
        { project, subscription: sub.name, role: "roles/pubsub.subscriber", member: args.pubsubServiceAgent },
        child,
      );
    } else if (args.trigger.kind === "deadLetters") {
      // No dead-letter policy here: the DLQ hold subscriptions already keep every dead message.
      for (const t of args.trigger.topics) {
        this.pushSubscriptions.push(push(`from-${t.label}`, `${n.function}-from-${t.label}`, t.topic));
      }
    }

    this.registerOutputs({
      functionName: this.function.name,
      uri: this.uri,
      runtimeServiceAccount: this.runtimeServiceAccount.email,
      triggerServiceAccount: this.triggerServiceAccount.email,
      topic: this.topic?.name,
      deadLetterTopic: this.deadLetterTopic?.name,
    });
  }
}
