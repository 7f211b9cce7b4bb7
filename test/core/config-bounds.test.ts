/**
 * Settings are bounded whoever sets them: every numeric setting of the schema has an upper bound,
 * an uploaded manifest may change only the keys README.md lists as safe, and unknown keys, the
 * prototype's names included, are refused the same way wherever they come from (a JSON file's
 * `{"__proto__": …}` used to be accepted in silence: assigning it set the merged object's prototype).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { UploadConfig, UploadManifest } from "../../shared/cloud/messages.ts";
import { readConfigFile } from "../../shared/cli/config-file.ts";
import { ConfigError, ParacapConfig, resolveConfig } from "../../shared/core/config.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const README = new URL("../../README.md", import.meta.url).pathname;

/** Every leaf of a schema with its path, looking through wrappers (default, prefault, optional, nullable, arrays, pipes). */
function leaves(schema: unknown, path: string[] = [], out: { path: string; schema: z.ZodType }[] = []): typeof out {
  let s = schema as z.ZodType;
  for (let i = 0; i < 10; i++) {
    const def = (s as unknown as { _zod: { def: { innerType?: z.ZodType; element?: z.ZodType; in?: z.ZodType; type: string } } })._zod.def;
    if (def.type === "array") s = def.element!;
    else if (def.innerType) s = def.innerType;
    else if (def.type === "pipe") s = def.in!;
    else break;
  }
  if (s instanceof z.ZodObject) {
    for (const [k, v] of Object.entries(s.shape as Record<string, z.ZodType>)) leaves(v, [...path, k], out);
  } else out.push({ path: path.join("."), schema: s });
  return out;
}

describe("every numeric setting has an upper bound", () => {
  it("in the config schema (maxPageBytes 99999999999999 used to switch the page limit off)", () => {
    const numbers = leaves(ParacapConfig).filter((l) => l.schema instanceof z.ZodNumber);
    expect(numbers.length).toBeGreaterThan(15);
    const unbounded = numbers.filter((l) => !Number.isFinite((l.schema as z.ZodNumber).maxValue ?? Infinity)).map((l) => l.path);
    expect(unbounded).toEqual([]);
    expect(() => resolveConfig({ extraction: { maxPageBytes: 99999999999999 } })).toThrow(/extraction\.maxPageBytes/);
    expect(() => resolveConfig({ images: { maxRefsHistory: 10_000_000 } })).toThrow(/images\.maxRefsHistory/);
  });

  it("in an upload, and lower where one run's memory depends on it (maxRefsHistory 100000 used to pass)", () => {
    const numbers = leaves(UploadConfig).filter((l) => l.schema instanceof z.ZodNumber);
    expect(numbers.filter((l) => !Number.isFinite((l.schema as z.ZodNumber).maxValue ?? Infinity)).map((l) => l.path)).toEqual([]);
    expect(UploadConfig.safeParse({ images: { maxRefsHistory: 100_000 } }).success).toBe(false);
    expect(UploadConfig.safeParse({ images: { maxRefsHistory: 1000 } }).success).toBe(true);
  });
});

describe("an upload may change only the keys README.md lists as safe", () => {
  it("the schema's keys are exactly the README's list", () => {
    const readme = readFileSync(README, "utf8");
    const section = readme.slice(readme.indexOf("**What an upload may change.**"));
    const listed = section.slice(0, section.indexOf("Locally")).split("refused with its name:")[1]!;
    const named = [...listed.matchAll(/`([a-zA-Z.]+)`/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(15);
    expect(leaves(UploadConfig).map((l) => l.path).sort()).toEqual([...new Set(named)].sort());
  });

  it("refuses any other key, __proto__ and constructor included, at any depth", () => {
    for (const json of ['{"__proto__": {"partitions": 1}}', '{"images": {"__proto__": {"maxRefs": 5}}}', '{"constructor": 1}', '{"scoring": {"transformer": {"model": "x"}}}', '{"dump": {"decoder": "system"}}']) {
      expect(UploadConfig.safeParse(JSON.parse(json)).success, json).toBe(false);
      expect(UploadManifest.safeParse({ shards: [{ object: "a.xml.bz2" }], config: JSON.parse(json) }).success, json).toBe(false);
    }
  });
});

describe("unknown keys are refused uniformly", () => {
  it("a config file holding {\"__proto__\": …}, constructor or toString is a ConfigError naming the key", async () => {
    const dir = tempDir();
    for (const [json, name] of [
      ['{"__proto__": {"partitions": 1}}', "__proto__"],
      ['{"captions": {"__proto__": {"minWords": 1}}}', "captions.__proto__"],
      ['{"constructor": {"x": 1}}', "constructor"],
      ['{"images": {"toString": 1}}', "images.toString"],
      ['{"images": {"hasOwnProperty": 1}}', "images.hasOwnProperty"],
    ] as const) {
      const file = join(dir, "c.json");
      writeFileSync(file, json);
      const layer = await readConfigFile(file);
      expect(() => resolveConfig(layer), json).toThrow(ConfigError);
      expect(() => resolveConfig(layer), json).toThrow(new RegExp(`${name.replace(/\./g, "\\.")}: unknown key`));
    }
    // the prototype of the merged config is never touched
    expect(resolveConfig({ partitions: 3 }).partitions).toBe(3);
    expect(({} as Record<string, unknown>).partitions).toBeUndefined();
  });
});
