/**
 * Clients for one function instance. Created on first use and reused across invocations, as Cloud
 * Functions recommends (connection reuse); everything else is per call.
 */
import { PubSub, type ClientConfig } from "@google-cloud/pubsub";
import { gcsRunStores, type CloudDeps } from "../shared/cloud/cloud-stages.ts";
import { readCloudEnv, type CloudEnv } from "../shared/cloud/env.ts";
import { gcsInputBucket } from "../shared/cloud/input-bucket.ts";
import { storageClient } from "../shared/io/gcs-client.ts";

/** Clients for `env`: Google Cloud, or the local emulators when their endpoints are set. */
export function createCloudDeps(env: CloudEnv): CloudDeps & { close(): Promise<void> } {
  const storage = env.STORAGE_EMULATOR_HOST
    ? storageClient({ apiEndpoint: env.STORAGE_EMULATOR_HOST, projectId: env.PARACAP_PROJECT })
    : storageClient();
  const pubsub = new PubSub(pubsubOptions(env));
  const input = storage.bucket(env.PARACAP_INPUT_BUCKET);
  return {
    env,
    input,
    inputBucket: gcsInputBucket(input),
    ...gcsRunStores(storage.bucket(env.PARACAP_WORK_BUCKET), storage.bucket(env.PARACAP_OUTPUT_BUCKET)),
    async publish(topic, message) {
      await pubsub.topic(topic).publishMessage({ json: message });
    },
    log: (m) => console.log(m),
    close: () => pubsub.close(),
  };
}

/**
 * The emulator speaks plaintext gRPC and needs no credentials; the explicit universe domain keeps
 * google-auth from probing the GCE metadata server for it.
 */
function pubsubOptions(env: CloudEnv): ClientConfig {
  if (!env.PUBSUB_EMULATOR_HOST) return { projectId: env.PARACAP_PROJECT };
  return { apiEndpoint: env.PUBSUB_EMULATOR_HOST, projectId: env.PARACAP_PROJECT, emulatorMode: true, universeDomain: "googleapis.com" };
}

let cached: ReturnType<typeof createCloudDeps> | null = null;

/** The instance's clients, configured from process.env on first use. */
export function cloudDeps(): CloudDeps {
  cached ??= createCloudDeps(readCloudEnv());
  return cached;
}

/** Closes the instance's clients (a host shutting down in-process functions). */
export async function closeCloudDeps(): Promise<void> {
  const c = cached;
  cached = null;
  await c?.close();
}
