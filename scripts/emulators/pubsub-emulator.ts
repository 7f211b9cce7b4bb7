/**
 * Starts Google's official Pub/Sub emulator (the Java jar shipped by the Debian package
 * `google-cloud-cli-pubsub-emulator`) on a free loopback port. It runs the jar with `java -jar`
 * directly: same server `gcloud beta emulators pubsub start` runs, without gcloud's Python
 * start-up, and as a single process we own so stop() leaves no orphaned JVM.
 *
 * Point clients at it with `new PubSub({ apiEndpoint: host, projectId })` (emulator mode, no
 * credentials needed) or `PUBSUB_EMULATOR_HOST=host`.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

export interface PubSubEmulator {
  /** `127.0.0.1:PORT`: value for `PUBSUB_EMULATOR_HOST` or the `apiEndpoint` option. */
  host: string;
  port: number;
  projectId: string;
  stop(): Promise<void>;
}

export interface PubSubEmulatorOptions {
  /** 0 or unset picks a free port. */
  port?: number;
  projectId?: string;
  startTimeoutMs?: number;
  /** Echo the emulator's own log lines to stderr. */
  verbose?: boolean;
}

const SDK_ROOTS = ["/usr/lib/google-cloud-sdk", "/usr/share/google-cloud-sdk", "/opt/google-cloud-sdk", join(process.env.HOME ?? "/root", "google-cloud-sdk")];

const INSTALL_HINT =
  "Install Java 17+ (Debian: `apt-get install openjdk-17-jre-headless`) and the Pub/Sub emulator " +
  "(Google's apt repo: `apt-get install google-cloud-cli-pubsub-emulator`, or `gcloud components install pubsub-emulator`), " +
  "or set PUBSUB_EMULATOR_JAR to the emulator jar.";

/** Path of the emulator jar, from PUBSUB_EMULATOR_JAR or a known Cloud SDK location. */
export function findEmulatorJar(): string {
  const fromEnv = process.env.PUBSUB_EMULATOR_JAR;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`PUBSUB_EMULATOR_JAR=${fromEnv} does not exist. ${INSTALL_HINT}`);
    return fromEnv;
  }
  const roots = [...SDK_ROOTS];
  const gcloudRoot = sdkRootFromGcloud();
  if (gcloudRoot) roots.unshift(gcloudRoot);
  for (const root of roots) {
    const lib = join(root, "platform", "pubsub-emulator", "lib");
    if (!existsSync(lib)) continue;
    const jar = readdirSync(lib).find((f) => /^cloud-pubsub-emulator-.*\.jar$/.test(f));
    if (jar) return join(lib, jar);
  }
  throw new Error(`Pub/Sub emulator jar not found under ${roots.join(", ")}. ${INSTALL_HINT}`);
}

/** Resolves the SDK root through the `gcloud` on PATH (following its symlink), if any. */
function sdkRootFromGcloud(): string | undefined {
  const r = spawnSync("sh", ["-c", "readlink -f \"$(command -v gcloud)\""], { encoding: "utf8" });
  const bin = r.status === 0 ? r.stdout.trim() : "";
  return bin.endsWith("/bin/gcloud") ? bin.slice(0, -"/bin/gcloud".length) : undefined;
}

function checkJava(): void {
  const r = spawnSync("java", ["-version"], { encoding: "utf8" });
  if (r.error || r.status !== 0) throw new Error(`java is not runnable (${r.error?.message ?? r.stderr}). ${INSTALL_HINT}`);
}

/** A port that was free a moment ago (the emulator cannot be told to pick one itself). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Starts the emulator and resolves once it answers HTTP on its port. */
export async function startPubSubEmulator(opts: PubSubEmulatorOptions = {}): Promise<PubSubEmulator> {
  checkJava();
  const jar = findEmulatorJar();
  const projectId = opts.projectId ?? "test";
  const port = opts.port || (await freePort());
  const host = `127.0.0.1:${port}`;
  // Short-lived test JVM: C1 only starts faster and is plenty for an emulator.
  const child = spawn("java", ["-XX:TieredStopAtLevel=1", "-Xshare:auto", "-jar", jar, "--host=127.0.0.1", `--port=${port}`], {
    detached: true, // own process group, so stop() can signal everything it spawned
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  const onLog = (b: Buffer) => {
    const s = b.toString();
    log = (log + s).slice(-4000);
    if (opts.verbose) process.stderr.write(s);
  };
  child.stdout!.on("data", onLog);
  child.stderr!.on("data", onLog);
  const killOnExit = () => killGroup(child, "SIGKILL");
  process.once("exit", killOnExit);

  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const stop = async () => {
    process.removeListener("exit", killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    killGroup(child, "SIGTERM");
    const timer = setTimeout(() => killGroup(child, "SIGKILL"), 3000);
    await exited;
    clearTimeout(timer);
  };

  const deadline = Date.now() + (opts.startTimeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) {
      process.removeListener("exit", killOnExit);
      throw new Error(`Pub/Sub emulator exited with code ${child.exitCode} before it was ready:\n${log}`);
    }
    try {
      const res = await fetch(`http://${host}/`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`Pub/Sub emulator did not become ready on ${host} within ${opts.startTimeoutMs ?? 30_000} ms:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { host, port, projectId, stop };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Options for `new PubSub(...)` against the emulator. `emulatorMode` gives insecure channel
 * credentials; the explicit `universeDomain` stops google-auth from probing the GCE metadata
 * server (a non-loopback address) to learn it.
 */
export function pubsubClientOptions(host: string, projectId = "test") {
  return { apiEndpoint: host, projectId, emulatorMode: true, universeDomain: "googleapis.com" } as const;
}
