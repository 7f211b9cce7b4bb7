/**
 * Clients for one function instance. Created on first use and reused across invocations, as Cloud
 * Functions recommends (connection reuse); everything else is per call.
 */
import { PubSub } from "@google-cloud/pubsub";
import { Storage } from "@google-cloud/storage";
import { readCloudEnv } from "../shared/cloud/env.ts";
import type { CloudDeps } from "../shared/cloud/cloud-stages.ts";
import { gcsInputBucket } from "../shared/cloud/input-bucket.ts";

let cached: CloudDeps | null = null;

export function cloudDeps(): CloudDeps {
  if (cached) return cached;
  const env = readCloudEnv();
  const storage = env.STORAGE_EMULATOR_HOST
    ? new Storage({ apiEndpoint: env.STORAGE_EMULATOR_HOST, projectId: env.PARACAP_PROJECT })
    : new Storage();
  const pubsub = new PubSub({ projectId: env.PARACAP_PROJECT });
  const input = storage.bucket(env.PARACAP_INPUT_BUCKET);
  cached = {
    env,
    input,
    work: storage.bucket(env.PARACAP_WORK_BUCKET),
    output: storage.bucket(env.PARACAP_OUTPUT_BUCKET),
    inputBucket: gcsInputBucket(input),
    async publish(topic, message) {
      await pubsub.topic(topic).publishMessage({ json: message });
    },
    log: (m) => console.log(m),
  };
  return cached;
}
