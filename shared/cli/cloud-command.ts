/** `paracap cloud upload|status|fetch`: works against Google Cloud or the local emulators. */
import { Storage, type Bucket } from "@google-cloud/storage";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { PART_OF_MANIFEST, type UploadManifest } from "../cloud/messages.ts";
import { runId as planRunId } from "../cloud/plan-run.ts";
import { formatStatus, runStatus } from "../cloud/run-status.ts";
import { GcsStore } from "../io/gcs-store.ts";
import { findMultistreamIndex, looksLikeHistory } from "../runner/local-shards.ts";
import { OUTPUT_FILES } from "../tasks/aggregate-task.ts";
import { UserError } from "./errors.ts";

const USAGE = `paracap cloud upload <dump>… [--bucket <input bucket>] [--name <run name>] [--config <file>]
paracap cloud status <run-id> [--work-bucket <b>] [--output-bucket <b>] [--json]
paracap cloud fetch <run-id> <dir> [--output-bucket <b>]

upload   One dump starts one run (a multistream dump's index is uploaded first, found next to it
         as <name>-index.txt.bz2). Several dumps (e.g. current + history), or --config, make one
         run through an uploaded <name>.manifest.json. Prints the run id on stdout.
status   Progress per phase, failed and dead-lettered tasks, and whether the run finished
         complete. Exit status 3 when a shard failed or a task was dead-lettered.
fetch    Downloads a finished run's outputs (gold/silver/bronze.jsonl.gz, stats.json, report.md,
         config.json, _SUCCESS) into <dir>.

Buckets default to $PARACAP_INPUT_BUCKET, $PARACAP_WORK_BUCKET, $PARACAP_OUTPUT_BUCKET (see 'pulumi stack output').
--endpoint <url> (or $STORAGE_EMULATOR_HOST) talks to a local emulator ('npm run emulate') instead of Google Cloud.`;

export async function cloudCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (!sub || sub === "help" || sub === "--help" || sub === "-h") {
    process.stdout.write(USAGE + "\n");
    return sub ? 0 : 2;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      bucket: { type: "string" },
      "work-bucket": { type: "string" },
      "output-bucket": { type: "string" },
      endpoint: { type: "string" },
      project: { type: "string" },
      name: { type: "string" },
      config: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const endpoint = values.endpoint ?? process.env.STORAGE_EMULATOR_HOST;
  const projectId = values.project ?? process.env.PARACAP_PROJECT ?? process.env.GOOGLE_CLOUD_PROJECT;
  const storage = endpoint ? new Storage({ apiEndpoint: endpoint, projectId: projectId ?? "paracap-local" }) : new Storage(projectId ? { projectId } : {});
  const need = (v: string | undefined, env: string, flag: string) => {
    const b = v ?? process.env[env];
    if (!b) throw new UserError(`no bucket: pass ${flag} or set ${env}`);
    return b;
  };
  switch (sub) {
    case "upload": {
      if (positionals.length === 0) throw new UserError(USAGE);
      const bucket = storage.bucket(need(values.bucket, "PARACAP_INPUT_BUCKET", "--bucket"));
      const config = values.config ? await readConfig(values.config) : undefined;
      const id = await upload(bucket, positionals, values.name, config);
      process.stderr.write(`run ${id} started; follow it with: paracap cloud status ${id}\n`);
      process.stdout.write(id + "\n");
      return 0;
    }
    case "status": {
      const [runId] = positionals;
      if (!runId) throw new UserError(USAGE);
      const work = new GcsStore(storage.bucket(need(values["work-bucket"], "PARACAP_WORK_BUCKET", "--work-bucket")), `runs/${runId}/`);
      const output = new GcsStore(storage.bucket(need(values["output-bucket"], "PARACAP_OUTPUT_BUCKET", "--output-bucket")), `${runId}/`);
      if (!(await work.exists("manifest.json"))) throw new UserError(`no run ${runId} in ${work.description} (not planned yet, or a typo?)`);
      const status = await runStatus(runId, work, output);
      process.stdout.write((values.json ? JSON.stringify(status, null, 2) : formatStatus(status)) + "\n");
      return status.shards.failed.length > 0 || status.deadLettered.length > 0 ? 3 : 0;
    }
    case "fetch": {
      const [runId, dir] = positionals;
      if (!runId || !dir) throw new UserError(USAGE);
      const bucket = storage.bucket(need(values["output-bucket"], "PARACAP_OUTPUT_BUCKET", "--output-bucket"));
      const [files] = await bucket.getFiles({ prefix: `${runId}/` });
      if (!files.some((f) => f.name === `${runId}/${OUTPUT_FILES.success}`)) {
        throw new UserError(`run ${runId} has not finished: no ${OUTPUT_FILES.success} in gs://${bucket.name}/${runId}/ (try 'paracap cloud status ${runId}')`);
      }
      await mkdir(dir, { recursive: true });
      for (const f of files) {
        const dest = join(dir, f.name.slice(runId.length + 1));
        await mkdir(dirname(dest), { recursive: true });
        await f.download({ destination: dest });
        process.stderr.write(`fetched gs://${bucket.name}/${f.name}\n`);
      }
      return 0;
    }
    default:
      throw new UserError(USAGE);
  }
}

async function readConfig(path: string): Promise<Record<string, unknown>> {
  const text = await readFile(path, "utf8").catch(() => {
    throw new UserError(`cannot read config file ${path}`);
  });
  try {
    const json: unknown = JSON.parse(text);
    if (typeof json !== "object" || json === null || Array.isArray(json)) throw new Error("not an object");
    return json as Record<string, unknown>;
  } catch {
    throw new UserError(`config file ${path} is not a JSON object`);
  }
}

/**
 * Uploads the dumps and returns the run id the planner will give the run. A multistream dump's
 * index goes first: the planner starts a run on the dump's upload (or the manifest's).
 */
async function upload(bucket: Bucket, paths: string[], name: string | undefined, config: Record<string, unknown> | undefined): Promise<string> {
  const objects = new Map<string, string>();
  for (const path of paths) {
    if (!existsSync(path)) throw new UserError(`no such file: ${path}`);
    if (/-multistream\.xml\.bz2$/.test(path) && !findMultistreamIndex(path)) {
      throw new UserError(`${path} is a multistream dump without its index next to it (${path.replace(/\.xml\.bz2$/, "")}-index.txt.bz2); the run would wait for it`);
    }
    const object = basename(path);
    if (objects.has(object)) throw new UserError(`two inputs named ${object}: objects are named by file name`);
    objects.set(object, path);
  }
  const put = async (file: string, metadata?: Record<string, string>): Promise<string> => {
    process.stderr.write(`uploading ${file} → gs://${bucket.name}/${basename(file)}\n`);
    const [, meta] = await bucket.upload(file, { destination: basename(file), resumable: true, ...(metadata ? { metadata: { metadata } } : {}) });
    return String((meta as { generation?: string | number }).generation);
  };

  if (paths.length === 1 && config === undefined) {
    const [path] = paths as [string];
    const index = findMultistreamIndex(path);
    if (index) await put(index);
    return planRunId(basename(path), await put(path));
  }

  const manifestName = `${name ?? basename(paths[0]!).replace(/\.xml(\.bz2|\.gz)?$/, "")}.manifest.json`;
  if (objects.has(manifestName)) throw new UserError(`--name ${name} collides with an input's name`);
  const hold = { [PART_OF_MANIFEST]: manifestName };
  for (const path of paths) {
    const index = findMultistreamIndex(path);
    if (index) await put(index, hold);
    await put(path, hold);
  }
  const manifest: UploadManifest = {
    shards: [...objects.keys()].map((object) => ({ object, kind: looksLikeHistory(object) ? "history" : "current" })),
    ...(config ? { config } : {}),
  };
  process.stderr.write(`uploading run manifest → gs://${bucket.name}/${manifestName}\n`);
  const file = bucket.file(manifestName);
  await file.save(JSON.stringify(manifest, null, 2) + "\n", { resumable: false, contentType: "application/json" });
  return planRunId(manifestName, String(file.metadata.generation));
}
