/**
 * `npm run emulate` killed with SIGKILL (no handler runs): its Pub/Sub JVM must not outlive it and
 * keep its port, and a restart on the same --dir, on the same ports, must set the topics and
 * subscriptions up again and still know the runs made before (status and fetch work).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isAlive, readEmulatorEnv } from "../../shared/cloud/emulator-env.ts";
import { canBind } from "../../scripts/emulators/pubsub-emulator.ts";
import { pubsubEmulatorMissing, ROOT, skipMessage } from "../cloud/helpers.ts";
import { inProcessCli } from "../support/in-process-cli.ts";
import { Storage } from "@google-cloud/storage";
import { upload } from "../../shared/cli/cloud-command.ts";
import { formatStatus, runStatus } from "../../shared/cloud/run-status.ts";
import { GcsStore } from "../../shared/io/gcs-store.ts";

const missing = pubsubEmulatorMissing();
if (missing) skipMessage("emulate-restart", missing);

const dir = mkdtempSync(join(tmpdir(), "paracap-emu-restart-"));
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGINT");
  await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once("exit", r)) : null)));
  rmSync(dir, { recursive: true, force: true });
});

/** Polls until `ok()` or the (generous, failure-only) deadline. */
async function until(ok: () => boolean | Promise<boolean>, what: string, ms = 540_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function emulate(args: string[]): Promise<{ child: ChildProcess; out: () => string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/emulators/emulate.ts", "--dir", dir, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (out += b.toString()));
  await until(() => out.includes("Ctrl-C") || child.exitCode !== null, "the emulator to start");
  expect(out, out).toContain("Ctrl-C");
  return { child, out: () => out };
}

/**
 * `paracap <args>` by the CLI's main() in this process (a child costs ~1.4 CPU-s): what is tested is the
 * restarted emulator; `--emulator <dir>` names everything the command reads, as a child's would.
 */
const paracap = (args: string[]) => inProcessCli(args);

/** A small real dump (25 KB): the runs here only need to finish. */
const DUMP = join(ROOT, "test/fixtures/data/wikipedia/wikipedia2vec-enwiki-pages-articles-sample.xml.bz2");

/** A client of the emulator's Cloud Storage, as env.json names it. */
function emulatorStorage(): { storage: Storage; env: Record<string, string> } {
  const { env } = readEmulatorEnv(dir)!;
  return { storage: new Storage({ apiEndpoint: env.STORAGE_EMULATOR_HOST!, projectId: env.GOOGLE_CLOUD_PROJECT ?? "paracap-local" }), env };
}

/**
 * Uploads in-process what `paracap cloud upload --emulator <dir>` uploads (the CLI costs ~1.4 CPU-s a
 * child; what is tested here is the emulator's restart, and the CLI's status and fetch run below).
 */
function uploadTo(path: string): Promise<string> {
  const { storage, env } = emulatorStorage();
  return upload(storage.bucket(env.PARACAP_INPUT_BUCKET!), [path], undefined, undefined);
}

/**
 * Waits for the run's `_SUCCESS` in the output bucket, read from the emulator over HTTP in this
 * process (a `cloud status` CLI per poll cost ~1 CPU-s each on a busy machine), then checks the run's
 * status in-process (the CLI's status runs after the restart).
 */
async function finished(runId: string, what: string): Promise<void> {
  const { env } = readEmulatorEnv(dir)!;
  const url = `http://${env.STORAGE_EMULATOR_HOST!.replace(/^https?:\/\//, "")}/storage/v1/b/${env.PARACAP_OUTPUT_BUCKET}/o/${encodeURIComponent(`${runId}/_SUCCESS`)}`;
  await until(async () => {
    try {
      if ((await fetch(url)).ok) return true;
    } catch (e) {
      // a kept-alive connection the server closed as this poll reused it (a busy machine stretches the
      // gap past its idle timeout): the request never reached it, so poll again; other errors fail
      if ((e as { cause?: { code?: string } }).cause?.code !== "ECONNRESET") throw e;
    }
    await new Promise((r) => setTimeout(r, 500));
    return false;
  }, what);
  const { storage, env: e } = emulatorStorage();
  const status = await runStatus(runId, new GcsStore(storage.bucket(e.PARACAP_WORK_BUCKET!), `runs/${runId}/`), new GcsStore(storage.bucket(e.PARACAP_OUTPUT_BUCKET!), `${runId}/`));
  expect(formatStatus(status)).toContain(`run ${runId}: finished`);
}

/** Pids of the processes whose command line mentions the Pub/Sub emulator jar and this port. */
function jvmOnPort(port: number): number[] {
  const pids: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, "utf8").replace(/\0/g, " ");
      if (/java/.test(cmd) && cmd.includes(`${port}`)) pids.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

describe.skipIf(missing !== null)("npm run emulate after SIGKILL", () => {
  it("leaves no JVM holding its port; a restart on the same dir and ports knows the earlier run and runs new ones", async () => {
    const first = await emulate(["--gcs-port", "0", "--pubsub-port", "0"]);
    const env = readEmulatorEnv(dir);
    expect(env).not.toBeNull();
    const { gcsPort, pubsubPort, pubsubPid } = env!;

    const runId = await uploadTo(DUMP);
    await finished(runId, "the first run to finish");

    // SIGKILL: no exit handler runs; the watchdog must take the JVM down with it
    first.child.kill("SIGKILL");
    await until(() => first.child.exitCode !== null || first.child.signalCode !== null, "the emulator to die");
    await until(() => (pubsubPid === null || !isAlive(pubsubPid)) && jvmOnPort(pubsubPort).length === 0, "the Pub/Sub JVM to stop");
    await until(() => canBind(pubsubPort), "the Pub/Sub port to be free");
    expect(await canBind(gcsPort)).toBe(true);

    // the same dir and the same ports
    const second = await emulate(["--gcs-port", String(gcsPort), "--pubsub-port", String(pubsubPort)]);
    expect(second.out()).not.toMatch(/ALREADY_EXISTS|already running/);
    const status = await paracap(["cloud", "status", "--emulator", dir, runId]);
    expect(status.stdout, status.stderr).toContain(`run ${runId}: finished, complete`);
    expect(status.code).toBe(0);
    const fetchDir = join(dir, "fetched");
    const fetched = await paracap(["cloud", "fetch", "--emulator", dir, runId, fetchDir]);
    expect(fetched.code, fetched.stderr).toBe(0);
    expect(existsSync(join(fetchDir, "stats.json"))).toBe(true);
    expect(JSON.parse(readFileSync(join(fetchDir, "stats.json"), "utf8")).complete).toBe(true);

    // the topics and subscriptions work again: a new run (another object name) finishes
    // (other bytes: the same bytes again would reuse the first run)
    const other = join(dir, "enwiki-recompressed-pages-articles.xml.bz2");
    writeFileSync(other, execFileSync("bzip2", ["-1", "-c"], { input: execFileSync("bzip2", ["-dc", DUMP], { maxBuffer: 1 << 26 }), maxBuffer: 1 << 26 }));
    const runId2 = await uploadTo(other);
    await finished(runId2, "the second run to finish");
  });
});
