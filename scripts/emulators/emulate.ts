/**
 * Local cloud for paracap: the Cloud Storage emulator and the official Pub/Sub emulator, started
 * together. `npx tsx scripts/emulators/emulate.ts` (the `npm run emulate` entry) prints the
 * endpoints and env vars, then runs until Ctrl-C. Function wiring is added on top of
 * `startEmulators()` with `serveFunction` / `createPushSubscription` from functions-host.ts.
 */
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { startGcsServer, type GcsServer, type GcsServerOptions } from "./gcs-server.ts";
import { startPubSubEmulator, type PubSubEmulator } from "./pubsub-emulator.ts";

export interface Emulators {
  /** Cloud Storage base URL: `new Storage({ apiEndpoint: gcsUrl, projectId })`. */
  gcsUrl: string;
  /** Pub/Sub `host:port`: `new PubSub(pubsubClientOptions(pubsubHost))`. */
  pubsubHost: string;
  projectId: string;
  gcs: GcsServer;
  pubsub: PubSubEmulator;
  /** Env vars that point the official clients (and gcloud/gsutil-free tools) at the emulators. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export interface EmulatorsOptions {
  projectId?: string;
  gcs?: GcsServerOptions;
  /** Fixed Pub/Sub port; default: a free one. */
  pubsubPort?: number;
}

/** Starts both emulators (in parallel); stop() shuts both down. */
export async function startEmulators(opts: EmulatorsOptions = {}): Promise<Emulators> {
  const projectId = opts.projectId ?? "test";
  const [gcsResult, pubsubResult] = await Promise.allSettled([
    startGcsServer(opts.gcs),
    startPubSubEmulator({ projectId, port: opts.pubsubPort }),
  ]);
  if (gcsResult.status === "rejected" || pubsubResult.status === "rejected") {
    if (gcsResult.status === "fulfilled") await gcsResult.value.close();
    if (pubsubResult.status === "fulfilled") await pubsubResult.value.stop();
    throw gcsResult.status === "rejected" ? gcsResult.reason : (pubsubResult as PromiseRejectedResult).reason;
  }
  const gcs = gcsResult.value;
  const pubsub = pubsubResult.value;
  return {
    gcsUrl: gcs.url,
    pubsubHost: pubsub.host,
    projectId,
    gcs,
    pubsub,
    env: {
      STORAGE_EMULATOR_HOST: gcs.url,
      PUBSUB_EMULATOR_HOST: pubsub.host,
      PUBSUB_PROJECT_ID: projectId,
      GOOGLE_CLOUD_PROJECT: projectId,
      // Keeps google-auth from probing the GCE metadata server when a client is built from env alone.
      METADATA_SERVER_DETECTION: "none",
    },
    async stop() {
      await Promise.all([gcs.close(), pubsub.stop()]);
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      "gcs-port": { type: "string", default: "9023" },
      "pubsub-port": { type: "string", default: "8085" },
      dir: { type: "string" },
      bucket: { type: "string", multiple: true },
      project: { type: "string", default: "test" },
    },
  });
  const t0 = Date.now();
  const emu = await startEmulators({
    projectId: values.project,
    gcs: { port: Number(values["gcs-port"]), dir: values.dir, buckets: values.bucket },
    pubsubPort: Number(values["pubsub-port"]),
  });
  const lines = [
    `Emulators ready in ${Date.now() - t0} ms (project "${emu.projectId}")`,
    `  Cloud Storage: ${emu.gcsUrl}   (data in ${emu.gcs.dir})`,
    `  Pub/Sub:       ${emu.pubsubHost}`,
    "Environment for clients:",
    ...Object.entries(emu.env).map(([k, v]) => `  export ${k}=${v}`),
    "Ctrl-C to stop.",
  ];
  process.stdout.write(lines.join("\n") + "\n");
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void emu.stop().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
