/**
 * `npm run build:functions` produces a deployable source directory (what infra/ zips and Cloud
 * Functions `npm install`s and starts), and the real functions framework CLI serves it: one entry
 * point answers an event, and with the emulators all six run a whole job from the build.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulators, type Emulators } from "../../scripts/emulators/emulate.ts";
import { startGcsServer } from "../../scripts/emulators/gcs-server.ts";
import { runId as planRunId } from "../../shared/cloud/plan-run.ts";
import { serveBuiltFunction, type FunctionHost } from "../../scripts/emulators/functions-host.ts";
import { upload } from "../../shared/cli/cloud-command.ts";
import { runStatusOf } from "../cloud/in-process-cloud.ts";
import { startLocalCloud, type LocalCloud } from "../../scripts/emulators/local-cloud.ts";
import { BUILTIN_PHASE_SHAPES, servedPhases } from "../../shared/core/phase-names.ts";
import { comparable, pubsubEmulatorMissing, readDir, readObjects, ROOT, SAMPLE_CURRENT, skipMessage, waitForRun } from "../cloud/helpers.ts";
import { runLocal } from "../../shared/runner/local-runner.ts";
import { resolveConfig } from "../../shared/core/config.ts";

let out: string;
let buildMs = 0;

beforeAll(() => {
  out = join(mkdtempSync(join(tmpdir(), "paracap-build-")), "functions");
  const t0 = Date.now();
  const r = spawnSync("npm", ["run", "--silent", "build:functions", "--", "--out", out], { cwd: ROOT, encoding: "utf8" });
  buildMs = Date.now() - t0;
  if (r.status !== 0) throw new Error(`build:functions failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  // What `npm install` does in Cloud Functions' build, without the network: the repo's packages.
  symlinkSync(join(ROOT, "node_modules"), join(out, "node_modules"), "dir");
});

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    if (e === "node_modules") return [];
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

const missing = pubsubEmulatorMissing();
if (missing) skipMessage("built functions on the emulators", missing);

/** A finalize event of an object no source reads, posted to a built plan child: answered, logged and recorded as ignored. */
async function builtPlanHandlesAnEvent(fn: FunctionHost & { output(): string }, gcsUrl: string, input: string, work: string): Promise<void> {
  const res = await fetch(fn.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "ce-id": "e1",
      "ce-specversion": "1.0",
      "ce-type": "google.cloud.storage.object.v1.finalized",
      "ce-source": `//storage.googleapis.com/projects/_/buckets/${input}`,
      "ce-subject": "objects/notes.txt",
    },
    body: JSON.stringify({ bucket: input, name: "notes.txt", generation: "1", size: "5" }),
  });
  expect(res.status).toBe(204);
  // the log line may trail the response: wait for it (the test's own timeout bounds the wait)
  while (!fn.output().includes("plan: ignored")) await new Promise((r) => setTimeout(r, 50));
  expect(fn.output()).toContain("Function: plan");
  expect(fn.output()).toContain("plan: ignored: notes.txt is none of the inputs the planner reads");
  const [record] = await new Storage({ apiEndpoint: gcsUrl, projectId: "test" }).bucket(work).file(`runs/${planRunId("notes.txt", "1")}/plan.json`).download();
  expect(JSON.parse(record.toString())).toMatchObject({ status: "ignored" });
}

describe("build:functions", () => {
  it("emits JavaScript, the run-time assets and a package.json Cloud Functions can install", () => {
    const pkg = JSON.parse(readFileSync(join(out, "package.json"), "utf8")) as Record<string, unknown> & { dependencies: Record<string, string> };
    expect(pkg).toMatchObject({ type: "module", main: "functions/index.js" });
    const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    for (const d of ["@google-cloud/functions-framework", "@google-cloud/storage", "@google-cloud/pubsub", "zod", "wink-nlp", "wink-eng-lite-web-model"]) {
      expect(pkg.dependencies[d], d).toBe(root.dependencies[d]);
    }
    for (const dev of ["tsx", "typescript", "vitest", "@pulumi/pulumi"]) expect(pkg.dependencies[dev]).toBeUndefined();
    expect(existsSync(join(out, "shared/caption/data/ldnoobw-en.txt"))).toBe(true);
    // the transformer scorers' runtime, installed without onnxruntime-node's CUDA download
    expect(pkg.dependencies["@huggingface/transformers"]).toBe(root.dependencies["@huggingface/transformers"]);
    expect(readFileSync(join(out, ".npmrc"), "utf8")).toBe("ignore-scripts=true\n");

    const js = files(out).filter((f) => f.endsWith(".js"));
    expect(js.map((f) => relative(out, f))).toContain("functions/index.js");
    expect(files(out).filter((f) => f.endsWith(".ts"))).toEqual([]);
    // Every relative import was rewritten to a file that exists in the build.
    for (const f of js) {
      for (const m of readFileSync(f, "utf8").matchAll(/\bfrom\s*["'](\.{1,2}\/[^"']+)["']/g)) {
        expect(m[1], `${relative(out, f)} imports ${m[1]}`).toMatch(/\.js$/);
        expect(existsSync(resolve(dirname(f), m[1]!)), `${relative(out, f)} imports ${m[1]}`).toBe(true);
      }
    }
    console.log(`build:functions took ${buildMs} ms`);
  });

  // with the emulators, the job's own built plan child below answers it (a node start and a bundle load fewer)
  it.skipIf(missing === null)("the real functions framework CLI starts the built entry point and it handles an event", async () => {
    // The plan function records the ignored upload for `cloud status`: it needs its work bucket.
    const gcs = await startGcsServer({ buckets: ["in-bucket", "work-bucket", "out-bucket"] });
    const fn = await serveBuiltFunction({
      dir: out,
      target: "plan",
      env: { PARACAP_INPUT_BUCKET: "in-bucket", PARACAP_WORK_BUCKET: "work-bucket", PARACAP_OUTPUT_BUCKET: "out-bucket", STORAGE_EMULATOR_HOST: gcs.url },
    });
    try {
      await builtPlanHandlesAnEvent(fn, gcs.url, "in-bucket", "work-bucket");
    } finally {
      await fn.close();
      await gcs.close();
    }
  });
});

describe.skipIf(missing !== null)("the built functions on the emulators", () => {
  let emu: Emulators;
  let cloud: LocalCloud;

  beforeAll(async () => {
    emu = await startEmulators();
    // the phases this job uses (the built-in pipeline's): six built-function children, not the eight a
    // deployment serves (the pixel pipeline's two are idle here, and each child costs a node start)
    cloud = await startLocalCloud({ emulators: emu, builtDir: out, partitions: 2, phases: servedPhases([BUILTIN_PHASE_SHAPES]) });
  });

  afterAll(async () => {
    await cloud?.stop();
    await emu?.stop();
  });

  it("the real functions framework CLI starts the built entry point and it handles an event", async () => {
    const plan = cloud.functions.plan as FunctionHost & { output?: () => string };
    expect(typeof plan.output).toBe("function"); // a built child's host
    await builtPlanHandlesAnEvent(plan as FunctionHost & { output(): string }, emu.gcsUrl, cloud.buckets.input, cloud.buckets.work);
  });

  it("run the whole job on the single-stream sample, as the local runner does", async () => {
    // uploaded and read in-process (the CLI is not what is tested here: e2e runs it)
    const storage = new Storage({ apiEndpoint: emu.gcsUrl, projectId: emu.projectId });
    const runId = await upload(storage.bucket(cloud.buckets.input), [SAMPLE_CURRENT], undefined, undefined);
    await waitForRun(storage, cloud.buckets.output, runId);
    const status = await runStatusOf(storage, cloud, runId);
    expect(status.stdout).toContain("finished, complete");

    const local = join(mkdtempSync(join(tmpdir(), "paracap-local-")), "out");
    const cwd = process.cwd();
    process.chdir(dirname(SAMPLE_CURRENT));
    try {
      // Current revisions only: bronze is skipped, as `paracap run` skips it.
      await runLocal({ inputs: [{ path: "enwiki-2016-pages-articles1-sample.xml.bz2", kind: "current" }], outDir: local, config: resolveConfig({ partitions: 2, tiers: ["gold", "silver"] }), workers: 1, progress: null });
    } finally {
      process.chdir(cwd);
    }
    const outputs = await readObjects(storage, cloud.buckets.output, `${runId}/`);
    expect(outputs.has("bronze.jsonl.gz")).toBe(false);
    expect(comparable(outputs, true, ["gold", "silver"])).toEqual(comparable(readDir(local), false, ["gold", "silver"]));
  });
});
