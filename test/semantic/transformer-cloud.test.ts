/**
 * The cloud runner's config for the transformer scorers: the deployment names the model
 * (PARACAP_MODEL), runs then score with it unless their manifest names scorers. The dedup task that
 * runs the scorers is the local runner's (tasks/dedup-task.ts), tested end to end in
 * transformer-cli.test.ts.
 */
import { describe, expect, it } from "vitest";
import { baseConfig, deploymentLayer } from "../../shared/cloud/cloud-stages.ts";
import { readCloudEnv } from "../../shared/cloud/env.ts";
import { UploadConfig } from "../../shared/cloud/messages.ts";
import { resolveConfig } from "../../shared/core/config.ts";

const env = (extra: Record<string, string> = {}) => readCloudEnv({ PARACAP_INPUT_BUCKET: "i", PARACAP_WORK_BUCKET: "w", PARACAP_OUTPUT_BUCKET: "o", ...extra });

describe("cloud config of the transformer scorers", () => {
  it("PARACAP_MODEL adds the embedding and bertscore scorers; a manifest can still name its scorers", () => {
    const deployment = env({ PARACAP_MODEL: "Xenova/all-MiniLM-L6-v2" });
    const base = baseConfig(deployment);
    expect(base.scoring.scorers).toEqual(["syntactic", "wordVectors", "embedding", "bertscore"]);
    expect(base.scoring.transformer.model).toBe("Xenova/all-MiniLM-L6-v2");
    // an upload's config is resolved on the deployment's layer (planRun)
    const upload = UploadConfig.parse({ scoring: { scorers: ["syntactic", "bertscore"] } });
    expect(resolveConfig(deploymentLayer(deployment), upload).scoring.scorers).toEqual(["syntactic", "bertscore"]);
    expect(resolveConfig(deploymentLayer(deployment), UploadConfig.parse({ preset: "paper" })).scoring).toEqual({ ...base.scoring });
  });

  it("without PARACAP_MODEL, a manifest asking for a transformer scorer is a config error; an upload cannot name a model", () => {
    const base = baseConfig(env());
    expect(base.scoring.scorers).toEqual(["syntactic", "wordVectors"]);
    expect(() => resolveConfig(deploymentLayer(env()), UploadConfig.parse({ scoring: { scorers: ["embedding"] } }))).toThrow(/scorer embedding needs a model/);
    // the operator picks the model (a download, code run on the functions), not whoever uploads a dump
    expect(UploadConfig.safeParse({ scoring: { transformer: { model: "evil/model" } } }).success).toBe(false);
  });
});
