/**
 * `paracap cloud upload --history <dump>`: a full-history dump whose name does not say "history" is
 * read as history in the cloud run, as `paracap run --history` reads it locally (the planner takes
 * each input's kind from the uploaded manifest, else from the name). The CLI runs by its main() in
 * this process (inProcessCli: its arguments, output and exit code; a child costs ~1.4 CPU-s), with the
 * emulator's settings in process.env only for the call.
 */
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGcsServer, type GcsServer } from "../../scripts/emulators/gcs-server.ts";
import { UploadManifest } from "../../shared/cloud/messages.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";
import { inProcessCli, type InProcessResult } from "../support/in-process-cli.ts";

const SAMPLE = new URL("../../shared/sample/", import.meta.url).pathname;
let gcs: GcsServer;

beforeAll(async () => {
  gcs = await startGcsServer({ buckets: ["input"] });
});

afterAll(async () => {
  await gcs?.close();
  removeTempDirs();
});

/** `paracap <args>` in-process with `env` set for the call and restored after it (this worker runs other files). */
async function runCli(args: string[], { env }: { env: Record<string, string> }): Promise<InProcessResult> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    return await inProcessCli(args);
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe("cloud upload --history", () => {
  it("marks its dumps history in the run manifest, the positional ones by their names", async () => {
    const dir = tempDir();
    // the Anarchism history excerpt under a name that does not say "history"
    const hist = join(dir, "enwiki-anarchism-revisions.xml.bz2");
    copyFileSync(join(SAMPLE, "enwiki-Anarchism-history-sample.xml.bz2"), hist);
    const current = join(dir, "enwiki-sample.xml.bz2");
    copyFileSync(join(SAMPLE, "enwiki-2016-pages-articles1-sample.xml.bz2"), current);
    const env = { PARACAP_INPUT_BUCKET: "input", STORAGE_EMULATOR_HOST: gcs.url, GOOGLE_CLOUD_PROJECT: "test" };
    const up = await runCli(["cloud", "upload", current, "--history", hist, "--name", "both"], { env });
    expect(up.code, up.stderr).toBe(0);
    const [text] = await new Storage({ apiEndpoint: gcs.url, projectId: "test" }).bucket("input").file("both.manifest.json").download();
    expect(UploadManifest.parse(JSON.parse(text.toString())).shards).toEqual([
      { object: "enwiki-sample.xml.bz2", kind: "current" },
      { object: "enwiki-anarchism-revisions.xml.bz2", kind: "history" },
    ]);
    // alone, it goes up through a manifest too: a lone upload's kind is its name's
    const alone = await runCli(["cloud", "upload", "--history", hist], { env });
    expect(alone.code, alone.stderr).toBe(0);
    expect(alone.stdout).toMatch(/^enwiki-anarchism-revisions-[0-9a-f]{8}\n$/);
    const [one] = await new Storage({ apiEndpoint: gcs.url, projectId: "test" }).bucket("input").file("enwiki-anarchism-revisions.manifest.json").download();
    expect(UploadManifest.parse(JSON.parse(one.toString())).shards).toEqual([{ object: "enwiki-anarchism-revisions.xml.bz2", kind: "history" }]);
  });

  it("a file whose name no source claims is told by its first bytes, as `paracap run` tells it, and goes up through a manifest; a file nothing reads is refused", async () => {
    const dir = tempDir();
    // a real dump excerpt whose name lacks ".xml"
    const dump = join(dir, "enwiki-pages-shortened.bz2");
    copyFileSync(join(SAMPLE, "enwiki-2016-pages-articles1-sample.xml.bz2"), dump);
    const env = { PARACAP_INPUT_BUCKET: "input", STORAGE_EMULATOR_HOST: gcs.url, GOOGLE_CLOUD_PROJECT: "test" };
    const up = await runCli(["cloud", "upload", dump], { env });
    expect(up.code, up.stderr).toBe(0);
    const [text] = await new Storage({ apiEndpoint: gcs.url, projectId: "test" }).bucket("input").file("enwiki-pages-shortened.bz2.manifest.json").download();
    expect(UploadManifest.parse(JSON.parse(text.toString())).shards).toEqual([{ object: "enwiki-pages-shortened.bz2", kind: "current" }]);
    const image = join(dir, "photo.png");
    copyFileSync(new URL("../../../shared/data/images/imagehash/bigbuckbunny.png", import.meta.url).pathname, image);
    const refused = await runCli(["cloud", "upload", image], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/photo\.png is none of the inputs the planner reads .*: not uploaded/);
  });
});
