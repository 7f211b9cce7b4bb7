/**
 * Local cloud for paracap: the Cloud Storage emulator and the official Pub/Sub emulator, started
 * together, with the cloud runner's functions wired up on them (local-cloud.ts).
 * `npm run emulate` writes the endpoints, buckets and topics to `<dir>/env.json` (default
 * `.paracap-emulator/`), prints them, then runs until Ctrl-C; `paracap cloud upload|status|fetch`
 * read that file and run the whole cloud pipeline locally. `--bare` starts only the emulators.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { DEFAULT_EMULATOR_DIR, emulatorEnvPath, isAlive, readEmulatorEnv, type EmulatorEnvFile } from "../../shared/cloud/emulator-env.ts";
import { parseArgs } from "node:util";
import { startGcsServer, type GcsServer, type GcsServerOptions } from "./gcs-server.ts";
import { canBind, PortTakenError, startPubSubEmulator, type PubSubEmulator } from "./pubsub-emulator.ts";
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
  if (opts.gcs?.port && !(await canBind(opts.gcs.port))) {
    throw new PortTakenError(`port ${opts.gcs.port} (--gcs-port) is taken by another process: stop it, or pass --gcs-port <another port>`);
  }
  const [gcsResult, pubsubResult] = await Promise.allSettled([
    startGcsServer(opts.gcs),
    startPubSubEmulator({ projectId, port: opts.pubsubPort, portFlag: "--pubsub-port" }),
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

const HELP = `npm run emulate [-- options]   (or: npx tsx scripts/emulators/emulate.ts [options])

Starts the Cloud Storage emulator and Google's Pub/Sub emulator with paracap's functions wired
up, writes their settings to <dir>/env.json for 'npx paracap cloud …', and runs until Ctrl-C.

  --dir <dir>          where buckets, objects and env.json live (default ${DEFAULT_EMULATOR_DIR});
                       a restart on the same dir finds every earlier run's objects again
  --gcs-port <port>    Cloud Storage port (default 9023; 0 = any free port)
  --pubsub-port <port> Pub/Sub emulator port (default 8085; 0 = any free port)
  --project <id>       project id (default test)
  --partitions <n>     shuffle partitions of the runs (default 16)
  --shard-bytes <n>    target compressed bytes per extract shard
  --bare               only the emulators, no functions
  --stop               stop the emulator running on --dir (e.g. one left running after its
                       npm/npx wrapper was killed): its node process and the Pub/Sub JVM`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      "gcs-port": { type: "string", default: "9023" },
      "pubsub-port": { type: "string", default: "8085" },
      dir: { type: "string", default: DEFAULT_EMULATOR_DIR },
      bucket: { type: "string", multiple: true },
      project: { type: "string", default: "test" },
      bare: { type: "boolean", default: false },
      stop: { type: "boolean", default: false },
      partitions: { type: "string" },
      "shard-bytes": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(HELP + "\n");
    return;
  }
  const port = (flag: "gcs-port" | "pubsub-port") => {
    const n = Number(values[flag]);
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new PortTakenError(`--${flag} must be a port number (0-65535), got ${values[flag]}`);
    return n;
  };
  const dir = resolve(values.dir);
  const { describeRunning, runningEmulator, stopEmulator } = await import("./stop-emulator.ts");
  if (values.stop) {
    for (const line of await stopEmulator(dir)) process.stdout.write(`emulate: ${line}\n`);
    return;
  }
  const previous = readEmulatorEnv(dir);
  if (previous && previous.pid !== process.pid && isAlive(previous.pid)) {
    const running = runningEmulator(previous);
    if (running.node !== null || running.pubsubGroup !== null) {
      const dirFlag = values.dir === DEFAULT_EMULATOR_DIR ? "" : ` --dir ${values.dir}`;
      throw new PortTakenError(
        `an emulator is already running on ${dir}: ${describeRunning(running)}; stop it with 'npm run emulate -- --stop${dirFlag}' (or: ${[running.node === null ? null : `kill ${running.node}`, running.pubsubGroup === null ? null : `kill -- -${running.pubsubGroup}`].filter((p) => p !== null).join("; ")}), or pass another --dir`,
      );
    }
  }
  // Signals are handled from the first moment: a Ctrl-C during start-up stops what has started
  // instead of killing this process with the JVM and function hosts still running.
  let stopRequested = false;
  let stopNow: (() => void) | null = null;
  const onSignal = () => {
    stopRequested = true;
    stopNow?.();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const t0 = Date.now();
  const emu = await startEmulators({
    projectId: values.project,
    gcs: { port: port("gcs-port"), dir, buckets: values.bucket },
    pubsubPort: port("pubsub-port"),
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
  const envFile: EmulatorEnvFile = { pid: process.pid, pubsubPid: emu.pubsub.pid, gcsPort: emu.gcs.port, pubsubPort: emu.pubsub.port, env };
  writeFileSync(emulatorEnvPath(dir), JSON.stringify(envFile, null, 2) + "\n");
  const here = relative(process.cwd(), dir) || ".";
  const flag = here === DEFAULT_EMULATOR_DIR ? "" : ` --emulator ${here}`;
  const lines = [
    `Emulators ready in ${Date.now() - t0} ms (project "${emu.projectId}")`,
    `  Cloud Storage: ${emu.gcsUrl}   (data in ${here})`,
    `  Pub/Sub:       ${emu.pubsubHost}`,
    ...(cloud
      ? [
          `  Functions:     ${Object.entries(cloud.functions).map(([t, h]) => `${t} ${h.url}`).join(", ")}`,
          `  Buckets:       ${Object.values(cloud.buckets).join(", ")} (uploads to ${cloud.buckets.input} start runs)`,
        ]
      : []),
    `Settings for clients are in ${join(here, "env.json")}${flag ? "" : " (the paracap CLI reads them from there by default)"}; as environment:`,
    ...Object.entries(env).map(([k, v]) => `  export ${k}=${v}`),
    ...(cloud
      ? [
          "In another terminal, from this directory:",
          `  npx paracap cloud upload${flag} <dump>…`,
          `  npx paracap cloud status${flag} <run-id>`,
          `  npx paracap cloud fetch${flag} <run-id> <dir>`,
        ]
      : []),
    "Ctrl-C to stop.",
  ];
  process.stdout.write(lines.join("\n") + "\n");
  let stopping = false;
  stopNow = () => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      rmSync(emulatorEnvPath(dir), { force: true });
      await cloud?.stop();
      await emu.stop();
    })().then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`emulate: stopping failed: ${e instanceof Error ? e.message : String(e)}\n`);
        process.exit(1);
      },
    );
  };
  if (stopRequested) stopNow();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    // One line for what the user can fix (a taken port, a running emulator); the detail otherwise.
    const taken = e instanceof PortTakenError || (e as NodeJS.ErrnoException).code === "EADDRINUSE";
    process.stderr.write(`emulate: ${e instanceof Error ? (taken ? e.message.split("\n")[0] : e.message) : String(e)}\n`);
    process.exit(taken ? 2 : 1);
  });
}
