/**
 * What `paracap cloud upload` refuses before it uploads anything (the plan function would refuse it
 * after the upload, and the CLI would have said "started"): a config outside the upload rules, a run
 * name the CLI could not be given back, a folder. No storage is reached: the bucket is a name only.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, runCli, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const SAMPLE = new URL("../../shared/sample/enwiki-2016-pages-articles1-sample.xml.bz2", import.meta.url).pathname;
// an unreachable emulator: any request would fail, so a refusal before the upload is the only way to a one-line error
const ENV = { PARACAP_INPUT_BUCKET: "paracap-input", STORAGE_EMULATOR_HOST: "http://127.0.0.1:9", GOOGLE_CLOUD_PROJECT: "paracap-test" };

function oneLine(r: { code: number | null; stderr: string }, pattern: RegExp) {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr.trimEnd().split("\n"), r.stderr).toHaveLength(1);
}

describe("cloud upload refuses before uploading", () => {
  it("a --config outside the upload rules, naming the key", async () => {
    const dir = tempDir();
    const config = join(dir, "big.json");
    for (const [c, key] of [[{ partitions: 300 }, /partitions/], [{ dump: { decoder: "js" } }, /dump/], [{ report: { samplesPerTier: 100 } }, /report\.samplesPerTier/]] as const) {
      writeFileSync(config, JSON.stringify(c));
      oneLine(await runCli(["cloud", "upload", SAMPLE, "--config", config], { env: ENV }), new RegExp(`--config: not for an upload: .*${key.source}`));
    }
  });

  it("a run name that is empty or starts with a dash, and a folder", async () => {
    oneLine(await runCli(["cloud", "upload", SAMPLE, "--name", ""], { env: ENV }), /--name must start with a letter or digit/);
    oneLine(await runCli(["cloud", "upload", SAMPLE, "--name=-x"], { env: ENV }), /--name must start with a letter or digit/);
    const folder = join(tempDir(), "dump.xml.bz2");
    mkdirSync(folder);
    oneLine(await runCli(["cloud", "upload", folder], { env: ENV }), /dump\.xml\.bz2 is not a file: upload the input files themselves/);
  });
});
