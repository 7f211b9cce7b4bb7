/**
 * The config's environment layer is one schema read the same way by `paracap run` and by the cloud
 * functions (PARACAP_MIN_WORDS used to work locally only), and a deployment writes it back exactly.
 */
import { describe, expect, it } from "vitest";
import { baseConfig } from "../../shared/cloud/cloud-stages.ts";
import { readCloudEnv } from "../../shared/cloud/env.ts";
import { resolveConfig } from "../../shared/core/config.ts";
import { configFromEnv, envFromLayer } from "../../shared/core/env-layer.ts";

const BUCKETS = { PARACAP_INPUT_BUCKET: "in", PARACAP_WORK_BUCKET: "work", PARACAP_OUTPUT_BUCKET: "out" };
const ENV = { PARACAP_TIERS: "gold, silver", PARACAP_PARTITIONS: "8", PARACAP_MIN_WORDS: "10", PARACAP_CLASSIFIER: "paper", PARACAP_WARC_BASE_URL: "http://127.0.0.1:8080/crawl/" };

describe("the environment layer", () => {
  it("gives the same config in both runners", () => {
    const local = resolveConfig(configFromEnv(ENV));
    expect(local).toMatchObject({ tiers: ["gold", "silver"], partitions: 8, captions: { minWords: 10, classifier: "paper" }, extraction: { warcBaseUrl: "http://127.0.0.1:8080/crawl/" } });
    expect(baseConfig(readCloudEnv({ ...BUCKETS, ...ENV }))).toEqual(local);
  });

  it("unset or empty variables leave the defaults, in both runners", () => {
    const defaults = resolveConfig({});
    expect(resolveConfig(configFromEnv({ PARACAP_MIN_WORDS: "", PARACAP_TIERS: "" }))).toEqual(defaults);
    expect(baseConfig(readCloudEnv({ ...BUCKETS, PARACAP_MIN_WORDS: "" }))).toEqual(defaults);
  });

  it.each([
    ["PARACAP_PARTITIONS", "5000"],
    ["PARACAP_PARTITIONS", "many"],
    ["PARACAP_MIN_WORDS", "-1"],
    ["PARACAP_TIERS", "gold,platinum"],
    ["PARACAP_CLASSIFIER", "clever"],
    ["PARACAP_WARC_BASE_URL", "data.commoncrawl.org"],
  ])("%s=%s is refused naming the variable, in both runners", (name, value) => {
    expect(() => configFromEnv({ [name]: value })).toThrow(new RegExp(`invalid environment: ${name}`));
    expect(() => readCloudEnv({ ...BUCKETS, [name]: value })).toThrow(new RegExp(`misconfigured: ${name}`));
  });

  it("a deployment's variables read back as the layer it wrote", () => {
    const layer = { tiers: ["bronze" as const], partitions: 64, captions: { minWords: 10, classifier: "improved" as const }, extraction: { warcBaseUrl: "https://crawl.example/" } };
    expect(configFromEnv(envFromLayer(layer))).toEqual(layer);
    expect(envFromLayer({ partitions: 4, captions: {} })).toEqual({ PARACAP_PARTITIONS: "4" });
  });
});
