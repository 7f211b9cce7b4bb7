import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { UploadConfig } from "../../shared/cloud/messages.ts";

describe("UploadConfig", () => {
  it("lets an upload choose the semantic scoring settings, which the config schema then resolves", () => {
    const scoring = { scorers: ["syntactic", "wordVectors"], semantic: ["wordMoverSimilarity"], paraphraseThreshold: 0.7, vectors: { maxWords: 100_000 } };
    const upload = UploadConfig.parse({ scoring });
    expect(resolveConfig(upload).scoring).toMatchObject(scoring);
  });

  it("rejects unknown scoring keys and thresholds outside [0, 1]", () => {
    expect(() => UploadConfig.parse({ scoring: { threshold: 0.5 } })).toThrow();
    expect(() => UploadConfig.parse({ scoring: { paraphraseThreshold: 2 } })).toThrow();
    expect(() => UploadConfig.parse({ scoring: { vectors: { maxWords: 0 } } })).toThrow();
  });
});
