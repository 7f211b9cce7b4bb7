/**
 * `npm run emulate` (the CLI over startEmulators and the local cloud), started once for the file: the
 * env it prints is what clients and deployed functions are configured by, and it stops cleanly on
 * SIGINT. One emulator start serves both cases (each start is a JVM and the functions' module graph).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PubSub, type Message } from "@google-cloud/pubsub";
import { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const warnings: string[] = [];
const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
const savedEnv = { ...process.env };
const dir = mkdtempSync(join(tmpdir(), "paracap-emulate-cli-"));
let child: ChildProcess;
let out = "";
let exited: Promise<{ code: number | null; signal: string | null }>;

beforeAll(async () => {
  process.on("warning", onWarning);
  child = spawn(process.execPath, ["--import", "tsx", "scripts/emulators/emulate.ts", "--gcs-port", "0", "--pubsub-port", "0", "--dir", dir], {
    cwd: new URL("../..", import.meta.url).pathname,
    stdio: ["ignore", "pipe", "pipe"],
  });
  exited = new Promise((r) => child.once("exit", (code, signal) => r({ code, signal })));
  child.stdout!.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (out += b.toString()));
  // no deadline of its own: the hook timeout catches a hang (start-up time depends on the machine's load)
  while (!out.includes("Ctrl-C") && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
});

afterAll(async () => {
  process.env = savedEnv;
  process.off("warning", onWarning);
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill("SIGINT");
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("npm run emulate", () => {
  it("clients configured only by the env it exports reach both emulators", async () => {
    expect(out, out).toContain("Ctrl-C");
    // Clients built from the printed env alone, as a function deployed against the emulators is.
    const exported = Object.fromEntries([...out.matchAll(/^ {2}export (\w+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
    expect(Object.keys(exported)).toEqual(expect.arrayContaining(["STORAGE_EMULATOR_HOST", "PUBSUB_EMULATOR_HOST", "PUBSUB_PROJECT_ID", "GOOGLE_CLOUD_PROJECT", "METADATA_SERVER_DETECTION"]));
    Object.assign(process.env, exported);

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

  it("wires up the cloud runner, prints the endpoints and exits cleanly on SIGINT", async () => {
    expect(out).toMatch(/export STORAGE_EMULATOR_HOST=http:\/\/127\.0\.0\.1:\d+/);
    expect(out).toMatch(/export PUBSUB_EMULATOR_HOST=127\.0\.0\.1:\d+/);
    expect(out).toMatch(/Functions: +plan http:\/\/127\.0\.0\.1:\d+\/, extract .*deadletter http/);
    expect(out).toContain("export PARACAP_INPUT_BUCKET=paracap-input");
    expect(out).toContain("export PARACAP_TOPIC_EXTRACT=paracap-extract");
    child.kill("SIGINT");
    // the whole output in the message: a failure here says which signal ended it and what it printed
    expect(await exited, out).toEqual({ code: 0, signal: null });
    expect(existsSync(join(dir, "env.json")), "env.json is removed on a clean stop").toBe(false);
  });
});
