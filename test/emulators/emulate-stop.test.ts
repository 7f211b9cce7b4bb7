/**
 * `kill -9` of the `npm run emulate` wrapper kills npm alone: the emulator's node process and its
 * Pub/Sub JVM keep running. A restart names them and offers `--stop`, which ends them both.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isAlive, readEmulatorEnv } from "../../shared/cloud/emulator-env.ts";
import { pubsubEmulatorMissing, ROOT, skipMessage } from "../cloud/helpers.ts";

const missing = pubsubEmulatorMissing();
if (missing) skipMessage("emulate-stop", missing);

const dir = mkdtempSync(join(tmpdir(), "paracap-emu-stop-"));
const leftovers: number[] = [];
afterAll(() => {
  for (const pid of leftovers) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

async function until(ok: () => boolean, what: string, ms = 540_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function emulate(args: string[]) {
  return spawnSync(process.execPath, ["--import", "tsx", "scripts/emulators/emulate.ts", "--dir", dir, ...args], { cwd: ROOT, encoding: "utf8", timeout: 540_000 });
}

describe.skipIf(missing !== null)("npm run emulate -- --stop", () => {
  it("after kill -9 of the npm wrapper, a restart names the emulator's pids and --stop ends node and the JVM", async () => {
    const wrapper: ChildProcess = spawn("npm", ["run", "emulate", "--", "--dir", dir, "--bare", "--gcs-port", "0", "--pubsub-port", "0"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    wrapper.stdout!.on("data", (b: Buffer) => (out += b.toString()));
    wrapper.stderr!.on("data", (b: Buffer) => (out += b.toString()));
    await until(() => out.includes("Ctrl-C") || wrapper.exitCode !== null, "the emulator to start");
    expect(out).toContain("Ctrl-C");
    const env = readEmulatorEnv(dir)!;
    leftovers.push(env.pid);
    if (env.pubsubPid !== null) leftovers.push(-env.pubsubPid);

    wrapper.kill("SIGKILL");
    await until(() => wrapper.exitCode !== null || wrapper.signalCode !== null, "npm to die");
    // the bug: npm is gone, the emulator and its JVM are not
    expect(isAlive(env.pid)).toBe(true);
    expect(env.pubsubPid !== null && isAlive(env.pubsubPid)).toBe(true);

    const again = emulate(["--bare", "--gcs-port", "0", "--pubsub-port", "0"]);
    expect(again.status).toBe(2);
    expect(again.stderr).toContain(`pid ${env.pid} (emulator)`);
    expect(again.stderr).toContain(`Pub/Sub JVM process group ${env.pubsubPid}`);
    expect(again.stderr).toContain(`npm run emulate -- --stop --dir ${dir}`);

    const stop = emulate(["--stop"]);
    expect(stop.status, stop.stderr).toBe(0);
    expect(stop.stdout).toMatch(/stopped/);
    expect(isAlive(env.pid)).toBe(false);
    await until(() => !isAlive(env.pubsubPid!), "the JVM group to end");
    expect(existsSync(join(dir, "env.json"))).toBe(false);
    // and a second --stop has nothing to do
    expect(emulate(["--stop"]).stdout).toMatch(/nothing to stop/);
  });
});
