import { describe, expect, it } from "vitest";
import { parseDeploymentConfig } from "../../infra/config.ts";
import { FUNCTION_STAGES, stageNames } from "../../infra/naming.ts";

describe("parseDeploymentConfig", () => {
  it("fills the documented defaults", () => {
    const c = parseDeploymentConfig({ project: "p" });
    expect(c).toMatchObject({
      region: "europe-west1",
      prefix: "paracap",
      partitions: 64,
      tiers: ["gold", "silver", "bronze"],
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
    expect(parseDeploymentConfig({ project: "p" }).maxInstancesPerStage).toEqual({ extract: 50 });
    expect(parseDeploymentConfig({ project: "p", maxInstancesPerStage: { group: 30 } }).maxInstancesPerStage).toEqual({ extract: 50, group: 30 });
    expect(parseDeploymentConfig({ project: "p", maxInstancesPerStage: { extract: 200 } }).maxInstancesPerStage).toEqual({ extract: 200 });
  });

  it("merges per-stage memory over the defaults", () => {
    const c = parseDeploymentConfig({ project: "p", memory: { group: "8Gi" } });
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
    [{ tiers: "gold,platinum" }, "tiers"],
    [{ tiers: "" }, "tiers"],
    // the core config's own pieces: the same bounds as `paracap run` and an upload's config
    [{ partitions: 4097 }, "partitions"],
    [{ partitions: 0 }, "partitions"],
    [{ minWords: -1 }, "minWords"],
    [{ classifier: "clever" }, "classifier"],
    [{ warcBaseUrl: "data.commoncrawl.org" }, "warcBaseUrl"],
    [{ warcBaseUrl: "ftp://crawl.example/" }, "warcBaseUrl"],
  ])("rejects %j naming %s", (bad, field) => {
    expect(() => parseDeploymentConfig({ project: "p", ...bad })).toThrow(field);
  });

  it("carries a deployment's transformer model to the functions' environment layer, read back as the same config", async () => {
    const { envFromLayer, configFromEnv } = await import("../../shared/core/env-layer.ts");
    const c = parseDeploymentConfig({ project: "p", model: "Xenova/all-MiniLM-L6-v2" });
    expect(c.model).toBe("Xenova/all-MiniLM-L6-v2");
    const env = envFromLayer({ scoring: { transformer: { model: c.model! } } });
    expect(env).toEqual({ PARACAP_MODEL: "Xenova/all-MiniLM-L6-v2" });
    expect(configFromEnv(env)).toEqual({ scoring: { transformer: { model: "Xenova/all-MiniLM-L6-v2" } } });
    expect(parseDeploymentConfig({ project: "p" }).model).toBeUndefined();
  });

  it("carries a deployment's WARC base URL to the functions' environment; unset leaves the core's Common Crawl default", async () => {
    const { envFromLayer, configFromEnv } = await import("../../shared/core/env-layer.ts");
    const { ParacapConfig } = await import("../../shared/core/config.ts");
    const c = parseDeploymentConfig({ project: "p", warcBaseUrl: "https://crawl.example/warcs/" });
    const env = envFromLayer({ extraction: { warcBaseUrl: c.warcBaseUrl! } });
    expect(env).toEqual({ PARACAP_WARC_BASE_URL: "https://crawl.example/warcs/" });
    expect(configFromEnv(env)).toEqual({ extraction: { warcBaseUrl: "https://crawl.example/warcs/" } });
    expect(parseDeploymentConfig({ project: "p" }).warcBaseUrl).toBeUndefined();
    expect(ParacapConfig.parse({}).extraction.warcBaseUrl).toBe("https://data.commoncrawl.org/");
  });

  it("requires gcp:project", () => {
    expect(() => parseDeploymentConfig({})).toThrow(/project/);
  });

  it("keeps every service-account id valid for the longest allowed prefix", () => {
    const prefix = parseDeploymentConfig({ project: "p", prefix: "abcdefghijklmno" }).prefix;
    for (const stage of FUNCTION_STAGES) {
      const n = stageNames(prefix, stage);
      for (const id of [n.runtimeAccountId, n.triggerAccountId, `${prefix}-build`]) {
        expect(id, id).toMatch(/^[a-z](?:[-a-z0-9]{4,28}[a-z0-9])$/);
      }
    }
  });
});
