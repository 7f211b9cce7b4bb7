/**
 * The function handlers' contract with their triggers, through the real functions framework:
 * 2xx acknowledges, anything else makes Pub/Sub (or Eventarc) redeliver. Malformed messages and
 * errors no retry can fix are acknowledged (and logged); transient failures are retried.
 */
import { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startGcsServer, type GcsServer } from "../../scripts/emulators/gcs-server.ts";
import { serveFunction, type FunctionHost } from "../../scripts/emulators/functions-host.ts";
import { createCloudDeps } from "../../functions/deps.ts";
import { registerFunctions } from "../../functions/handlers.ts";
import { decodeMessage } from "../../functions/pubsub-message.ts";
import type { CloudDeps } from "../../shared/cloud/cloud-stages.ts";
import { readCloudEnv } from "../../shared/cloud/env.ts";
import { ExtractTask, TaskMessage } from "../../shared/cloud/messages.ts";

let gcs: GcsServer;
let deps: CloudDeps & { close(): Promise<void> };
const hosts: Record<string, FunctionHost> = {};
const errors: string[] = [];

beforeAll(async () => {
  gcs = await startGcsServer({ buckets: ["input", "work", "output"] });
  deps = createCloudDeps(readCloudEnv({ PARACAP_INPUT_BUCKET: "input", PARACAP_WORK_BUCKET: "work", PARACAP_OUTPUT_BUCKET: "output", STORAGE_EMULATOR_HOST: gcs.url, PUBSUB_EMULATOR_HOST: "127.0.0.1:9" }));
  registerFunctions(() => deps);
  for (const t of ["plan", "extract", "deadletter"]) hosts[t] = await serveFunction({ target: t });
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void errors.push(args.map(String).join(" ")));
});

afterAll(async () => {
  vi.restoreAllMocks();
  for (const h of Object.values(hosts)) await h.close();
  await deps?.close();
  await gcs?.close();
});

/** A raw Pub/Sub push, as the deployed push subscriptions send it. */
function push(target: string, data: string, attributes: Record<string, string> = {}) {
  return fetch(hosts[target]!.rawPushEndpoint("paracap-extract"), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message: { data, messageId: "42", publishTime: new Date().toISOString(), attributes }, subscription: "projects/test/subscriptions/s" }),
  });
}
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64");

describe("task handlers", () => {
  it("drop (acknowledge) a message that is not a task", async () => {
    expect((await push("extract", Buffer.from("not json").toString("base64"))).status).toBe(204);
    expect((await push("extract", b64({ type: "extract", runId: 7 }))).status).toBe(204);
    expect(errors.join("\n")).toMatch(/extract: dropping bad message .*not base64-encoded JSON/);
    expect(errors.join("\n")).toMatch(/extract: dropping bad message .*does not match its schema/);
  });

  it("acknowledge a task of a run that does not exist (a retry cannot fix it)", async () => {
    expect((await push("extract", b64({ type: "extract", runId: "nope", shardId: "s00000-x" }))).status).toBe(204);
    expect(errors.join("\n")).toContain("extract: giving up on event 42: run nope has no manifest");
  });

  it("fail (so Pub/Sub redelivers) on any other error", async () => {
    const saved = deps;
    deps = {
      ...saved,
      workStore: () => {
        throw new Error("storage outage");
      },
    };
    try {
      const res = await push("extract", b64({ type: "extract", runId: "r", shardId: "s" }));
      expect(res.status).toBe(500);
    } finally {
      deps = saved;
    }
  });
});

describe("plan handler", () => {
  const storageEvent = (name: string, generation: string) =>
    fetch(hosts.plan!.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "ce-id": `ev-${name}`,
        "ce-specversion": "1.0",
        "ce-type": "google.cloud.storage.object.v1.finalized",
        "ce-source": "//storage.googleapis.com/projects/_/buckets/input",
        "ce-subject": `objects/${name}`,
      },
      body: JSON.stringify({ bucket: "input", name, generation, size: "10" }),
    });

  it("acknowledges a broken manifest upload after logging why", async () => {
    const file = new Storage({ apiEndpoint: gcs.url, projectId: "test" }).bucket("input").file("broken.manifest.json");
    await file.save("{ nope", { resumable: false });
    const res = await storageEvent("broken.manifest.json", String(file.metadata.generation));
    expect(res.status).toBe(204);
    expect(errors.join("\n")).toMatch(/plan: giving up on event ev-broken\.manifest\.json: plan: broken\.manifest\.json: broken\.manifest\.json: not valid JSON/);
  });

  it("ignores an event that is not a storage object", async () => {
    const res = await fetch(hosts.plan!.url, {
      method: "POST",
      headers: { "content-type": "application/json", "ce-id": "x", "ce-specversion": "1.0", "ce-type": "google.cloud.storage.object.v1.finalized", "ce-source": "//storage.googleapis.com/projects/_/buckets/input" },
      body: JSON.stringify({ hello: "world" }),
    });
    expect(res.status).toBe(204);
    expect(errors.join("\n")).toContain("plan: not a storage object event");
  });
});

describe("decodeMessage", () => {
  const data = b64({ type: "extract", runId: "r", shardId: "s" });

  it("reads the task, the message id (both spellings) and the delivery attempt", () => {
    expect(decodeMessage({ message: { data, messageId: "1" }, deliveryAttempt: 3 }, ExtractTask)).toEqual({ task: { type: "extract", runId: "r", shardId: "s" }, messageId: "1", attempts: 3 });
    expect(decodeMessage({ message: { data, message_id: "2" } }, ExtractTask)).toMatchObject({ messageId: "2", attempts: null });
  });

  it("a dead-lettered message carries its source subscription's delivery count", () => {
    expect(decodeMessage({ message: { data, messageId: "3", attributes: { CloudPubSubDeadLetterSourceDeliveryCount: "5" } } }, TaskMessage).attempts).toBe(5);
  });
});
