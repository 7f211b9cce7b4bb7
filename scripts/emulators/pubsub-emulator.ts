/**
 * Starts Google's official Pub/Sub emulator (the Java jar shipped by the Debian package
 * `google-cloud-cli-pubsub-emulator`) on a free loopback port. It runs the jar with `java -jar`
 * directly: same server `gcloud beta emulators pubsub start` runs, without gcloud's Python
 * start-up, under a watchdog that stops it when this process dies, so no JVM is ever orphaned.
 *
 * Point clients at it with `new PubSub({ apiEndpoint: host, projectId })` (emulator mode, no
 * credentials needed) or `PUBSUB_EMULATOR_HOST=host`.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

export interface PubSubEmulator {
  /** `127.0.0.1:PORT`: value for `PUBSUB_EMULATOR_HOST` or the `apiEndpoint` option. */
  host: string;
  port: number;
  projectId: string;
  /** the watchdog shell's pid (its process group holds the JVM) */
  pid: number | null;
  stop(): Promise<void>;
}

export interface PubSubEmulatorOptions {
  /** 0 or unset picks a free port. */
  port?: number;
  projectId?: string;
  startTimeoutMs?: number;
  /** The option that set `port`, named in a "port taken" error. */
  portFlag?: string;
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

/**
 * Runs the JVM under a watchdog shell that holds a pipe from this process: when this process dies
 * in any way (even SIGKILL) the pipe closes and the watchdog kills the JVM, so no emulator is
 * left holding its port. The shell exits with the JVM, so an early exit is still seen. On SIGTERM
 * (stop()) the shell stays until the JVM has gone: a JVM that served subscriptions takes ~0.5 s to
 * shut down, and stop() resolving before that left its port taken for a restart.
 */
const WATCHDOG = `exec 3<&0
"$@" </dev/null 3<&- & pid=$!
( while read -r _ <&3; do :; done; kill -KILL $pid 2>/dev/null ) & dog=$!
trap 'kill -TERM $pid 2>/dev/null' TERM
while :; do wait $pid; code=$?; kill -0 $pid 2>/dev/null || break; done
kill $dog 2>/dev/null
exit $code`;

/** JVM flag that marks the emulators paracap starts, so a later start can tell its own orphans. */
export const EMULATOR_MARK = "-Dparacap.emulator=1";

/** Starts the emulator and resolves once it answers HTTP on its port. */
export async function startPubSubEmulator(opts: PubSubEmulatorOptions = {}): Promise<PubSubEmulator> {
  checkJava();
  const jar = findEmulatorJar();
  const projectId = opts.projectId ?? "test";
  const port = opts.port || (await freePort());
  if (opts.port) await claimPort(port, opts.portFlag ?? "port");
  const host = `127.0.0.1:${port}`;
  // Short-lived test JVM: C1 only starts faster and is plenty for an emulator.
  const java = ["java", EMULATOR_MARK, "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-jar", jar, "--host=127.0.0.1", `--port=${port}`];
  const child = spawn("sh", ["-c", WATCHDOG, "sh", ...java], {
    detached: true, // own process group, so stop() can signal everything it spawned
    stdio: ["pipe", "pipe", "pipe"],
  });
  let log = "";
  const onLog = (b: Buffer) => {
    const s = b.toString();
    log = (log + s).slice(-4000);
    if (opts.verbose) process.stderr.write(s);
  };
  child.stdout!.on("data", onLog);
  child.stderr!.on("data", onLog);
  child.stdin!.on("error", () => {}); // the watchdog gone first: nothing to tell it
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
    child.stdin!.destroy();
  };

  const deadline = Date.now() + (opts.startTimeoutMs ?? 180_000);
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
      throw new Error(`Pub/Sub emulator did not become ready on ${host} within ${opts.startTimeoutMs ?? 180_000} ms:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { host, port, projectId, pid: child.pid ?? null, stop };
}

/** Thrown when a fixed port is held by a process that is not an emulator paracap left behind. */
export class PortTakenError extends Error {
  override readonly name = "PortTakenError";
}

/**
 * Makes sure a fixed port is free before the emulator binds it: a Pub/Sub emulator paracap started
 * and lost (a killed `npm run emulate` of an older version left its JVM running) is stopped; any
 * other holder is an error naming the port and the flag that moves it.
 */
export async function claimPort(port: number, flag: string): Promise<void> {
  if (await canBind(port)) return;
  const holder = listenerOf(port);
  const cmd = holder === null ? "" : readCmdline(holder);
  const ours = holder !== null && cmd.includes("cloud-pubsub-emulator") && cmd.includes(`--port=${port}`) && (cmd.includes(EMULATOR_MARK) || cmd.includes("-XX:TieredStopAtLevel=1 -Xshare:auto -jar"));
  if (!ours) {
    const who = holder === null ? "another process" : `pid ${holder}${cmd ? ` (${cmd.slice(0, 80)})` : ""}`;
    throw new PortTakenError(`port ${port} (${flag}) is taken by ${who}: stop it, or pass ${flag} <another port>`);
  }
  process.stderr.write(`stopping an orphaned Pub/Sub emulator (pid ${holder}) left on port ${port} by an earlier run\n`);
  try {
    process.kill(holder, "SIGKILL");
  } catch {
    // gone meanwhile
  }
  const deadline = Date.now() + 30_000;
  while (!(await canBind(port))) {
    if (Date.now() > deadline) throw new PortTakenError(`port ${port} (${flag}) is still taken after stopping pid ${holder}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Whether a loopback listener could bind `port` right now. */
export function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });
}

/** The pid listening on a TCP port, from /proc (Linux); null when unknown. */
export function listenerOf(port: number): number | null {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is ADDR:PORT; state 0A = LISTEN; inode is the 10th field.
      if (f.length > 9 && f[1]!.endsWith(`:${hex}`) && f[3] === "0A") inodes.add(f[9]!);
    }
  }
  if (inodes.size === 0) return null;
  let pids: string[] = [];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m && inodes.has(m[1]!)) return Number(pid);
      } catch {
        // closed meanwhile
      }
    }
  }
  return null;
}

function readCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "";
  }
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
