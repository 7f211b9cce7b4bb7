import { describe, expect, it } from "vitest";
import { parseParacapConfig } from "../../infra/config.ts";
import { FUNCTION_STAGES, stageNames } from "../../infra/naming.ts";

describe("parseParacapConfig", () => {
  it("fills the documented defaults", () => {
    const c = parseParacapConfig({ project: "p" });
    expect(c).toMatchObject({
      region: "europe-west1",
      prefix: "paracap",
      partitions: 64,
      tiers: "gold,silver,bronze",
      workLifecycleDays: 7,
      dlqMaxDeliveryAttempts: 5,
      sourceDir: "../dist/functions",
      forceDestroy: false,
      enableApis: true,
    });
    expect(c.memory.extract).toBe("2Gi");
    expect(c.shardBytes).toBeUndefined();
  });

  it("gives extract 50 instances unless told otherwise, and keeps that under other per-stage overrides", () => {
    expect(parseParacapConfig({ project: "p" }).maxInstancesPerStage).toEqual({ extract: 50 });
    expect(parseParacapConfig({ project: "p", maxInstancesPerStage: { group: 30 } }).maxInstancesPerStage).toEqual({ extract: 50, group: 30 });
    expect(parseParacapConfig({ project: "p", maxInstancesPerStage: { extract: 200 } }).maxInstancesPerStage).toEqual({ extract: 200 });
  });

  it("merges per-stage memory over the defaults", () => {
    const c = parseParacapConfig({ project: "p", memory: { group: "8Gi" } });
    expect(c.memory.group).toBe("8Gi");
    expect(c.memory.plan).toBe("512Mi");
  });

  it.each([
    [{ dlqMaxDeliveryAttempts: 4 }, "dlqMaxDeliveryAttempts"],
    [{ dlqMaxDeliveryAttempts: 101 }, "dlqMaxDeliveryAttempts"],
    [{ prefix: "this-prefix-is-too-long" }, "prefix"],
    [{ prefix: "Upper" }, "prefix"],
    [{ memory: { extract: "2GB" } }, "memory.extract"],
    [{ memory: { extrakt: "2Gi" } }, "memory"],
    [{ minBackoffSeconds: 60, maxBackoffSeconds: 30 }, "minBackoffSeconds"],
    [{ tiers: "gold, silver" }, "tiers"],
  ])("rejects %j naming %s", (bad, field) => {
    expect(() => parseParacapConfig({ project: "p", ...bad })).toThrow(field);
  });

  it("requires gcp:project", () => {
    expect(() => parseParacapConfig({})).toThrow(/project/);
  });

  it("keeps every service-account id valid for the longest allowed prefix", () => {
    const prefix = parseParacapConfig({ project: "p", prefix: "abcdefghijklmno" }).prefix;
    for (const stage of FUNCTION_STAGES) {
      const n = stageNames(prefix, stage);
      for (const id of [n.runtimeAccountId, n.triggerAccountId, `${prefix}-build`]) {
        expect(id, id).toMatch(/^[a-z](?:[-a-z0-9]{4,28}[a-z0-9])$/);
      }
    }
  });
});
