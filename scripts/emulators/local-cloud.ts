/**
 * The cloud runner wired up on the local emulators, the way infra/ deploys it: three buckets, a
 * finalize notification from the input bucket to `plan`, one topic per stage with a push
 * subscription (dead-letter topic after `maxDeliveryAttempts`, plus a hold subscription that keeps
 * dead messages listable), and push subscriptions from every dead-letter topic to `deadletter`.
 * Pushes go raw to `/projects/P/topics/T` on the function, as in production.
 *
 * The functions run in this process (functions-host.ts), one port per entry point. They read their
 * configuration from process.env, which startLocalCloud fills in; the functions framework's
 * registry is per process, so one in-process local cloud per process. With `builtDir` they run
 * instead from the deployable build (npm run build:functions), one child process per entry point
 * started by the real functions framework CLI, as Cloud Functions runs them.
 */
import { fileURLToPath } from "node:url";
import { PubSub } from "@google-cloud/pubsub";
import type { Emulators } from "./emulate.ts";
import { createPushSubscription, serveBuiltFunction, serveFunction, type FunctionHost } from "./functions-host.ts";
import { pubsubClientOptions } from "./pubsub-emulator.ts";
import { storageClient } from "../../shared/io/gcs-client.ts";

import { DEADLETTER_FUNCTION, DEPLOYED_PIPELINE_SHAPES, functionNames, PLAN_FUNCTION, servedPhases, topicEnvName } from "../../shared/core/phase-names.ts";

/** An entry point: plan, a phase, or deadletter. */
export type FunctionTarget = string;

export const DEFAULT_FUNCTIONS_SOURCE = fileURLToPath(new URL("../../functions/index.ts", import.meta.url));

export interface LocalCloudOptions {
  emulators: Emulators;
  /** module that registers the entry points in this process (default: functions/index.ts); null: already registered by the caller */
  source?: string | null;
  /** the phases served: one topic and function each (default: every phase of the built-in and the pixel pipeline, as infra deploys them) */
  phases?: readonly { name: string }[];
  /** serve the entry points from this build output in child processes instead (`source` is ignored) */
  builtDir?: string;
  /** resource name prefix, as `paracap:prefix` in infra (default "paracap") */
  prefix?: string;
  partitions?: number;
  tiers?: string;
  /** target compressed bytes per extract shard of a multistream dump */
  shardBytes?: number;
  /** each push and finalize event reaches its function this many times (default 1) */
  deliveries?: number;
  /** deliveries before dead-lettering (Pub/Sub: 5..100; default 5) */
  maxDeliveryAttempts?: number;
  /** retry backoff bounds in seconds (default 0 and 1: the emulator redelivers within ~1-3 s anyway) */
  minimumBackoff?: number;
  maximumBackoff?: number;
}

export interface LocalCloud {
  /** everything a function or the CLI needs: emulator endpoints, buckets, topics */
  env: Record<string, string>;
  buckets: { input: string; work: string; output: string };
  /** trigger topic of each phase */
  topics: Record<string, string>;
  functions: Record<FunctionTarget, FunctionHost>;
  /** changes how often every push and event is delivered from now on */
  setDeliveries(n: number): void;
  /** stops the function hosts (the emulators are the caller's) */
  stop(): Promise<void>;
}

export async function startLocalCloud(opts: LocalCloudOptions): Promise<LocalCloud> {
  const { emulators } = opts;
  const projectId = emulators.projectId;
  const prefix = opts.prefix ?? "paracap";
  const buckets = { input: `${prefix}-input`, work: `${prefix}-work`, output: `${prefix}-output` };
  const phases = opts.phases ?? servedPhases(DEPLOYED_PIPELINE_SHAPES);
  const targets = functionNames(phases);
  const topics: Record<string, string> = Object.fromEntries(phases.map((p) => [p.name, `${prefix}-${p.name}`]));
  const env: Record<string, string> = {
    ...emulators.env,
    PARACAP_PROJECT: projectId,
    PARACAP_INPUT_BUCKET: buckets.input,
    PARACAP_WORK_BUCKET: buckets.work,
    PARACAP_OUTPUT_BUCKET: buckets.output,
    ...Object.fromEntries(phases.map((p) => [topicEnvName(p.name), topics[p.name]!])),
    ...(opts.partitions !== undefined ? { PARACAP_PARTITIONS: String(opts.partitions) } : {}),
    ...(opts.tiers !== undefined ? { PARACAP_TIERS: opts.tiers } : {}),
    ...(opts.shardBytes !== undefined ? { PARACAP_SHARD_BYTES: String(opts.shardBytes) } : {}),
  };
  if (!opts.builtDir) Object.assign(process.env, env);

  const storage = storageClient({ apiEndpoint: emulators.gcsUrl, projectId });
  for (const b of Object.values(buckets)) {
    try {
      await storage.createBucket(b);
    } catch (e) {
      if ((e as { code?: number }).code !== 409) throw e;
    }
  }

  const hosts: Record<FunctionTarget, FunctionHost> = {};
  const stop = async () => {
    await Promise.all(Object.values(hosts).map((h) => h.close()));
  };
  try {
    if (opts.builtDir) {
      const dir = opts.builtDir;
      await Promise.all(targets.map(async (target) => (hosts[target] = await serveBuiltFunction({ dir, target, env }))));
      if (opts.deliveries !== undefined && opts.deliveries !== 1) throw new Error("deliveries needs in-process functions");
    } else {
      const source = opts.source === null ? undefined : (opts.source ?? DEFAULT_FUNCTIONS_SOURCE);
      for (const target of targets) hosts[target] = await serveFunction({ target, source, deliveries: opts.deliveries });
    }
    const fn = hosts;
    const plan = fn[PLAN_FUNCTION.name]!;
    const deadletter = fn[DEADLETTER_FUNCTION.name]!;

    const pubsub = new PubSub(pubsubClientOptions(emulators.pubsubHost, projectId));
    try {
      const retry = { minimumBackoff: opts.minimumBackoff ?? 0, maximumBackoff: opts.maximumBackoff ?? 1 };
      for (const { name: stage } of phases) {
        const topic = topics[stage]!;
        const dlq = `${topic}-dlq`;
        await createPushSubscription(pubsub, topic, `${topic}-push`, fn[stage]!.rawPushEndpoint(topic, projectId), {
          deadLetterTopic: dlq,
          maxDeliveryAttempts: opts.maxDeliveryAttempts ?? 5,
          ...retry,
        });
        const hold = pubsub.topic(dlq).subscription(`${dlq}-hold`);
        if (!(await hold.exists())[0]) await pubsub.topic(dlq).createSubscription(`${dlq}-hold`);
        await createPushSubscription(pubsub, dlq, `${prefix}-deadletter-from-${stage}`, deadletter.rawPushEndpoint(dlq, projectId), retry);
      }
    } finally {
      await pubsub.close();
    }
    emulators.gcs.addNotification(buckets.input, plan.url);

    return {
      env,
      buckets,
      topics,
      functions: fn,
      setDeliveries: (n) => {
        for (const h of Object.values(fn)) h.setDeliveries(n);
      },
      async stop() {
        emulators.gcs.removeNotification(buckets.input, plan.url);
        await stop();
      },
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
