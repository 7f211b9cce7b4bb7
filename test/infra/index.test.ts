import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";
import { TEST_PROJECT, fakeFunctionsDir, installMocks, settled, valueOf } from "./pulumi-mocks.ts";

// The program reads `pulumi config`, so config and mocks are both set before it is imported.
const recorded = installMocks();
pulumi.runtime.setAllConfig({
  "gcp:project": TEST_PROJECT,
  "paracap:region": "us-central1",
  "paracap:dlqMaxDeliveryAttempts": "9",
  "paracap:partitions": "16",
  "paracap:memory": JSON.stringify({ dedup: "3Gi" }),
  "paracap:sourceDir": fakeFunctionsDir(),
});
const program = await import("../../infra/index.ts");

beforeAll(async () => {
  await valueOf(program.functionUris);
  await settled(recorded);
});

describe("infra/index.ts reading pulumi config", () => {
  it("applies config keys to the resources", () => {
    const subs = recorded.filter((r) => r.type === "gcp:pubsub/subscription:Subscription" && r.inputs.deadLetterPolicy);
    expect(subs.map((s) => s.inputs.deadLetterPolicy.maxDeliveryAttempts)).toEqual([9, 9, 9, 9, 9, 9]);
    const fns = recorded.filter((r) => r.type === "gcp:cloudfunctionsv2/function:Function");
    expect(new Set(fns.map((f) => f.inputs.location))).toEqual(new Set(["us-central1"]));
    expect(fns.find((f) => f.inputs.name === "paracap-dedup")?.inputs.serviceConfig.availableMemory).toBe("3Gi");
    expect(fns.find((f) => f.inputs.name === "paracap-extract")?.inputs.serviceConfig.availableMemory).toBe("2Gi");
    expect(fns.every((f) => f.inputs.serviceConfig.environmentVariables.PARACAP_PARTITIONS === "16")).toBe(true);
  });

  it("defaults what is not set: prefix, tiers, lifecycle, APIs enabled", () => {
    const work = recorded.find((r) => r.type === "gcp:storage/bucket:Bucket" && r.name === "paracap-work");
    expect(work?.inputs.lifecycleRules).toEqual([{ action: { type: "Delete" }, condition: { age: 7 } }]);
    expect(work?.inputs.forceDestroy).toBe(false);
    const fn = recorded.find((r) => r.type === "gcp:cloudfunctionsv2/function:Function");
    expect(fn?.inputs.serviceConfig.environmentVariables.PARACAP_TIERS).toBe("gold,silver,bronze");
    const apis = recorded.filter((r) => r.type === "gcp:projects/service:Service").map((r) => r.inputs.service);
    expect(apis).toEqual(expect.arrayContaining(["cloudfunctions.googleapis.com", "run.googleapis.com", "eventarc.googleapis.com", "pubsub.googleapis.com"]));
  });

  it("exports names and URIs the CLI needs", async () => {
    expect(await valueOf(program.project)).toBe(TEST_PROJECT);
    expect(await valueOf(program.inputBucket)).toMatch(/^paracap-input-/);
    expect(await valueOf(program.topics)).toEqual({ extract: "paracap-extract", "hash-index": "paracap-hash-index", rekey: "paracap-rekey", group: "paracap-group", dedup: "paracap-dedup", aggregate: "paracap-aggregate" });
    const uris = await valueOf(program.functionUris);
    expect(Object.keys(uris).sort()).toEqual(["aggregate", "deadletter", "dedup", "extract", "group", "hash-index", "plan", "rekey"]);
    expect(await valueOf(program.triggerServiceAccounts)).toMatchObject({ plan: `paracap-plan-trg@${TEST_PROJECT}.iam.gserviceaccount.com` });
  });
});
