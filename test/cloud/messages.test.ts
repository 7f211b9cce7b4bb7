import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { UploadConfig } from "../../shared/cloud/messages.ts";
import { BUILTIN_SOURCES } from "../../shared/sources/registry.ts";
import { uploadKind } from "../../shared/cloud/upload-kind.ts";

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

  it("takes the settings cloud upload writes for a non-English dump (its language and file aliases)", () => {
    const upload = UploadConfig.parse({ extraction: { language: "bg", fileAliases: ["Файл", "Картинка"] } });
    expect(resolveConfig(upload).extraction).toMatchObject({ language: "bg", fileAliases: ["Файл", "Картинка"] });
  });
});

describe("upload roles", () => {
  it("Wikimedia's dump names, split ones included, are inputs; their indexes companions", () => {
    for (const name of ["enwiki-20260101-pages-articles.xml.bz2", "enwiki-20260101-pages-articles1.xml-p1p41242.bz2", "enwiki-20260101-pages-meta-history1.xml-p1p812.bz2", "dump.xml", "dump.xml.gz"]) {
      expect(BUILTIN_SOURCES.uploadRole(name)?.role, name).toBe("input");
    }
    expect(BUILTIN_SOURCES.uploadRole("enwiki-20260101-pages-articles-multistream-index.txt.bz2")?.role).toBe("companion");
    expect(BUILTIN_SOURCES.uploadRole("notes.txt")).toBeNull();
  });

  it("caption lists in every layout the caption-list source reads are inputs of it, a .json one too (JSON lines, COCO captions or a Karpathy split, told by its bytes); a run manifest is the planner's", () => {
    for (const name of ["gcc-train.tsv", "cc12m.TSV", "laion-part-00000.parquet", "coyo.csv", "redcaps.jsonl", "datacomp.ndjson", "dataset_coco.json", "captions_val2014.JSON"]) {
      expect(BUILTIN_SOURCES.uploadRole(name), name).toMatchObject({ role: "input", source: { name: "caption-tsv" } });
    }
    expect(uploadKind("run.manifest.json", BUILTIN_SOURCES)).toEqual({ kind: "manifest" });
  });
});
