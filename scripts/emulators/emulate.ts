/**
 * Local cloud for paracap: the Cloud Storage emulator and the official Pub/Sub emulator, started
 * together, with the cloud runner's functions wired up on them (local-cloud.ts).
 * `npm run emulate` prints the endpoints and env vars, then runs until Ctrl-C; with them set,
 * `paracap cloud upload|status|fetch` run the whole cloud pipeline locally. `--bare` starts only
 * the emulators.
 */
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { startGcsServer, type GcsServer, type GcsServerOptions } from "./gcs-server.ts";
import { startPubSubEmulator, type PubSubEmulator } from "./pubsub-emulator.ts";
import type { LocalCloud } from "./local-cloud.ts";

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
      bare: { type: "boolean", default: false },
      partitions: { type: "string" },
      "shard-bytes": { type: "string" },
    },
  });
  const t0 = Date.now();
  const emu = await startEmulators({
    projectId: values.project,
    gcs: { port: Number(values["gcs-port"]), dir: values.dir, buckets: values.bucket },
    pubsubPort: Number(values["pubsub-port"]),
  });
  let cloud: LocalCloud | null = null;
  if (!values.bare) {
    try {
      const { startLocalCloud } = await import("./local-cloud.ts");
      cloud = await startLocalCloud({
        emulators: emu,
        partitions: values.partitions ? Number(values.partitions) : undefined,
        shardBytes: values["shard-bytes"] ? Number(values["shard-bytes"]) : undefined,
      });
    } catch (e) {
      await emu.stop();
      throw e;
    }
  }
  const env = cloud?.env ?? emu.env;
  const lines = [
    `Emulators ready in ${Date.now() - t0} ms (project "${emu.projectId}")`,
    `  Cloud Storage: ${emu.gcsUrl}   (data in ${emu.gcs.dir})`,
    `  Pub/Sub:       ${emu.pubsubHost}`,
    ...(cloud
      ? [
          `  Functions:     ${Object.entries(cloud.functions).map(([t, h]) => `${t} ${h.url}`).join(", ")}`,
          `  Buckets:       ${Object.values(cloud.buckets).join(", ")} (uploads to ${cloud.buckets.input} start runs)`,
        ]
      : []),
    "Environment for clients:",
    ...Object.entries(env).map(([k, v]) => `  export ${k}=${v}`),
    ...(cloud ? ["Then: node bin/paracap.js cloud upload <dump>… ; node bin/paracap.js cloud status <run> ; node bin/paracap.js cloud fetch <run> <dir>"] : []),
    "Ctrl-C to stop.",
  ];
  process.stdout.write(lines.join("\n") + "\n");
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      await cloud?.stop();
      await emu.stop();
    })().then(() => process.exit(0));
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
