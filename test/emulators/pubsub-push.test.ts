import { spawnSync } from "node:child_process";
import { PubSub, type Message } from "@google-cloud/pubsub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPushSubscription, PUBSUB_PUBLISHED_EVENT_TYPE, serveFunction, type FunctionHost } from "../../scripts/emulators/functions-host.ts";
import { pubsubClientOptions, startPubSubEmulator, type PubSubEmulator } from "../../scripts/emulators/pubsub-emulator.ts";
import { failedAttempts, recorded } from "./fixtures/recording-functions.ts";

const FIXTURE = new URL("./fixtures/recording-functions.ts", import.meta.url).pathname;

let emulator: PubSubEmulator;
let pubsub: PubSub;
let recorder: FunctionHost;
let failer: FunctionHost;

beforeAll(async () => {
  emulator = await startPubSubEmulator();
  pubsub = new PubSub(pubsubClientOptions(emulator.host));
  recorder = await serveFunction({ target: "recordMessage", source: FIXTURE });
  failer = await serveFunction({ target: "alwaysFails" });
});

afterAll(async () => {
  await recorder?.close();
  await failer?.close();
  await pubsub?.close();
  await emulator?.stop();
});

async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs = 540_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("Pub/Sub emulator", () => {
  it("starts on a free loopback port", () => {
    expect(emulator.host).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it("push subscription delivers a gen2-style CloudEvent to a functions-framework handler", async () => {
    await createPushSubscription(pubsub, "shard-ready", "shard-ready-push", recorder.pubsubPushEndpoint("shard-ready"));
    const payload = { stage: "extract", shard: 7, caption: "Ünïcode caption — “quoted”" };
    const messageId = await pubsub.topic("shard-ready").publishMessage({ json: payload, attributes: { run: "r1" } });
    const event = await waitFor("delivery", () => recorded.find((e) => e.data?.message.messageId === messageId));
    expect(event.type).toBe(PUBSUB_PUBLISHED_EVENT_TYPE);
    expect(event.specversion).toBe("1.0");
    expect(event.id).toBe(messageId);
    expect(event.source).toBe("//pubsub.googleapis.com/projects/test/topics/shard-ready");
    expect(event.data!.subscription).toBe("projects/test/subscriptions/shard-ready-push");
    expect(event.data!.message.attributes).toEqual({ run: "r1" });
    expect(Number.isNaN(Date.parse(event.data!.message.publishTime))).toBe(false);
    expect(JSON.parse(Buffer.from(event.data!.message.data, "base64").toString("utf8"))).toEqual(payload);
  });

  it("a throwing handler is retried, then the message lands in the dead-letter topic", async () => {
    const dlqSub = "poison-dlq-pull";
    await pubsub.createTopic("poison-dlq");
    const [deadLetters] = await pubsub.topic("poison-dlq").createSubscription(dlqSub);
    const arrived: Message[] = [];
    deadLetters.on("message", (m: Message) => {
      arrived.push(m);
      m.ack();
    });
    await createPushSubscription(pubsub, "poison", "poison-push", failer.pubsubPushEndpoint("poison"), {
      deadLetterTopic: "poison-dlq",
      maxDeliveryAttempts: 5, // the minimum Pub/Sub accepts
    });
    const messageId = await pubsub.topic("poison").publishMessage({ data: Buffer.from("bad record") });
    // The emulator redelivers roughly every 1-3 s whatever the retry policy says.
    const dead = await waitFor("dead letter", () => arrived[0]);
    await deadLetters.close();
    expect(dead.data.toString()).toBe("bad record");
    expect(dead.attributes.CloudPubSubDeadLetterSourceDeliveryCount).toBe("5");
    expect(dead.attributes.CloudPubSubDeadLetterSourceSubscription).toBe("poison-push");
    expect(failedAttempts.filter((id) => id === messageId)).toHaveLength(5);
  });

  // last: it stops the file's emulator (a JVM started for this case alone cost a start more)
  it("stop() leaves no emulator JVM behind", async () => {
    const port = emulator.port;
    // `--` before the pattern: pgrep took `--port=N` for an option of its own, printed nothing, and
    // the check passed whatever ran
    const running = () => spawnSync("pgrep", ["-f", "--", `--port=${port}( |$)`], { encoding: "utf8" }).stdout.trim();
    expect(running()).not.toBe("");
    await emulator.stop();
    // at once: the JVM of this file, busy with its subscriptions, takes ~0.5 s to shut down, and
    // stop() resolving before then left the port taken for a restart
    expect(running()).toBe("");
  });
});
