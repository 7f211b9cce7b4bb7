import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PubSub, type Message } from "@google-cloud/pubsub";
import { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulators, type Emulators } from "../../scripts/emulators/emulate.ts";

let emu: Emulators;
const warnings: string[] = [];
const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
const savedEnv = { ...process.env };

beforeAll(async () => {
  process.on("warning", onWarning);
  emu = await startEmulators();
  // Clients built from the printed env alone, as a function deployed against the emulators is.
  Object.assign(process.env, emu.env);
});

afterAll(async () => {
  process.env = savedEnv;
  process.off("warning", onWarning);
  await emu?.stop();
});

describe("startEmulators", () => {
  it("clients configured only by the exported env reach both emulators", async () => {
    const storage = new Storage();
    await storage.createBucket("env-bucket");
    await storage.bucket("env-bucket").file("a/b.txt").save("via STORAGE_EMULATOR_HOST", { resumable: false });
    const [text] = await storage.bucket("env-bucket").file("a/b.txt").download();
    expect(text.toString()).toBe("via STORAGE_EMULATOR_HOST");

    const pubsub = new PubSub();
    const [topic] = await pubsub.createTopic("env-topic");
    const [sub] = await topic.createSubscription("env-pull");
    const got = new Promise<Message>((resolve) => sub.once("message", resolve));
    await topic.publishMessage({ data: Buffer.from("via PUBSUB_EMULATOR_HOST") });
    const msg = await got;
    msg.ack();
    expect(msg.data.toString()).toBe("via PUBSUB_EMULATOR_HOST");
    await sub.close();
    await pubsub.close();
    expect(warnings.filter((w) => /Metadata/i.test(w))).toEqual([]);
  });

  it("the CLI (npm run emulate) wires up the cloud runner, prints the endpoints and exits cleanly on SIGINT", async () => {
    const dir = mkdtempSync(join(tmpdir(), "paracap-emulate-cli-"));
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/emulators/emulate.ts", "--gcs-port", "0", "--pubsub-port", "0", "--dir", dir], {
      cwd: new URL("../..", import.meta.url).pathname,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr.on("data", (b: Buffer) => (out += b.toString()));
    // no deadline of its own: the test timeout catches a hang (start-up time depends on the machine's load)
    while (!out.includes("Ctrl-C") && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
    expect(out).toMatch(/export STORAGE_EMULATOR_HOST=http:\/\/127\.0\.0\.1:\d+/);
    expect(out).toMatch(/export PUBSUB_EMULATOR_HOST=127\.0\.0\.1:\d+/);
    expect(out).toMatch(/Functions: +plan http:\/\/127\.0\.0\.1:\d+\/, extract .*deadletter http/);
    expect(out).toContain("export PARACAP_INPUT_BUCKET=paracap-input");
    expect(out).toContain("export PARACAP_TOPIC_EXTRACT=paracap-extract");
    const exited = new Promise<{ code: number | null; signal: string | null }>((r) => child.once("exit", (code, signal) => r({ code, signal })));
    child.kill("SIGINT");
    // the whole output in the message: a failure here says which signal ended it and what it printed
    expect(await exited, out).toEqual({ code: 0, signal: null });
    expect(existsSync(join(dir, "env.json")), "env.json is removed on a clean stop").toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });
});
