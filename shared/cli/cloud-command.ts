/** `paracap cloud upload|status|fetch`: works against Google Cloud or the local emulators. */
import { withInputSettings } from "../sources/input-settings.ts";
import type { Bucket } from "@google-cloud/storage";
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdir, open, rm } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { parseCommandArgs } from "./parse-args.ts";
import { PART_OF_MANIFEST, UploadConfig, type UploadManifest } from "../cloud/messages.ts";
import { runId as planRunId } from "../cloud/plan-run.ts";
import { DEFAULT_EMULATOR_DIR, emulatorEnvPath, isAlive, readEmulatorEnv } from "../cloud/emulator-env.ts";
import { RUN_FAILED } from "../cloud/run-records.ts";
import { formatStatus, isIncomplete, planOutcome, runStatus } from "../cloud/run-status.ts";
import { notAnInput, sniffDump, uploadKind } from "../cloud/upload-kind.ts";
import { storageClient } from "../io/gcs-client.ts";
import { cloudUserError } from "./cloud-errors.ts";
import { GcsStore } from "../io/gcs-store.ts";
import { LOCAL_VIEW, looksLikeHistory } from "../runner/local-shards.ts";
import { BUILTIN_SOURCES } from "../sources/registry.ts";
import { OUTPUT_FILES } from "../tasks/aggregate-task.ts";
import { readConfigFile } from "./config-file.ts";
import { resolveConfig, TierName } from "../core/config.ts";
import { checkSemanticConfig } from "../semantic/semantic-score.ts";
import { UserError } from "../core/errors.ts";

const COMMON = `Where: --emulator <dir> reads the local emulator's settings from <dir>/env.json (written by
'npm run emulate'); without any of the settings below, ./${DEFAULT_EMULATOR_DIR}/env.json is used
when it exists. Otherwise buckets come from --bucket/--work-bucket/--output-bucket or
$PARACAP_INPUT_BUCKET, $PARACAP_WORK_BUCKET, $PARACAP_OUTPUT_BUCKET (see 'pulumi stack output'),
and --endpoint <url> (or $STORAGE_EMULATOR_HOST) talks to another Cloud Storage emulator.`;

const HELP = {
  upload: `paracap cloud upload <dump>… [--history <dump>]… [--name <run name>] [--config <file>] [--bucket <input bucket>]

One dump starts one run (a multistream dump's index is uploaded first, found next to it as
<name>-index.txt.bz2). Several dumps (e.g. current + history), --config or --history make one run
through an uploaded <name>.manifest.json. A dump is read as full history when its name contains
"history" or it is given with --history (as for 'paracap run'). Each file is checked first (name and first bytes, as the plan
function reads them); nothing is uploaded if one is not an input a source reads. Prints the run id on stdout.`,
  status: `paracap cloud status <run-id> [--json] [--work-bucket <b>] [--output-bucket <b>]

Progress per phase, damaged, failed and dead-lettered tasks, and whether the run finished
complete; for an upload that started no run, why (not a dump, a bad manifest, the same bytes as an
earlier run). Exit status 0 when the run is complete or still running without problems, 3 when it
is (or will be) incomplete or failed.`,
  fetch: `paracap cloud fetch <run-id> <dir> [--output-bucket <b>]

Downloads a finished run's outputs (gold/silver/bronze.jsonl.gz and .parquet, stats.json, report.md, report.html, README.md,
config.json, _SUCCESS) into <dir>. Object names that would land outside <dir> are refused.`,
};

const USAGE = `paracap cloud upload <dump>… [--history <dump>]… [--name <run name>] [--config <file>]
paracap cloud status <run-id> [--json]
paracap cloud fetch <run-id> <dir>
('paracap cloud <command> --help' for each)

${HELP.upload.split("\n\n")[1]}

${COMMON}`;

const OPTIONS = {
  bucket: { type: "string" },
  "work-bucket": { type: "string" },
  "output-bucket": { type: "string" },
  endpoint: { type: "string" },
  emulator: { type: "string" },
  project: { type: "string" },
  name: { type: "string" },
  config: { type: "string" },
  history: { type: "string", multiple: true },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

export async function cloudCommand(argv: string[]): Promise<number> {
  try {
    return await cloudSubcommand(argv);
  } catch (err) {
    throw cloudUserError(err) ?? err;
  }
}

async function cloudSubcommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (!sub || sub === "help" || sub === "--help" || sub === "-h") {
    process.stdout.write(USAGE + "\n");
    return sub ? 0 : 2;
  }
  if (!(sub in HELP)) throw new UserError(`unknown cloud command "${sub}" (upload, status, fetch; see 'paracap cloud --help')`);
  const help = `${HELP[sub as keyof typeof HELP]}\n\n${COMMON}`;
  const { values, positionals } = parseCommandArgs(`cloud ${sub}`, { args: rest, allowPositionals: true, options: OPTIONS });
  if (values.help) {
    process.stdout.write(help + "\n");
    return 0;
  }
  const settings = cloudSettings(values.emulator);
  const endpoint = values.endpoint ?? settings("STORAGE_EMULATOR_HOST");
  const projectId = values.project ?? settings("PARACAP_PROJECT") ?? settings("GOOGLE_CLOUD_PROJECT");
  const storage = endpoint ? storageClient({ apiEndpoint: endpoint, projectId: projectId ?? "paracap-local" }) : storageClient(projectId ? { projectId } : {});
  const need = (v: string | undefined, env: string, flag: string) => {
    const b = v ?? settings(env);
    if (!b) throw new UserError(`no bucket: pass ${flag}, set ${env}, or start the local emulator with 'npm run emulate'`);
    return b;
  };
  const usage = () => new UserError(`${help.split("\n")[0]} (see 'paracap cloud ${sub} --help')`);
  switch (sub) {
    case "upload": {
      const history = values.history ?? [];
      const paths = [...positionals, ...history];
      if (paths.length === 0) throw usage();
      const bucket = storage.bucket(need(values.bucket, "PARACAP_INPUT_BUCKET", "--bucket"));
      // the client's resumable upload throws a missing credential outside any promise (an uncaught exception): asked first
      if (!endpoint) await storage.authClient.getClient();
      // a non-English dump's file namespace and image options, from its <siteinfo>, go in the run's config (as run sets them)
      const site = await withInputSettings(BUILTIN_SOURCES, values.config ? await readConfigFile(values.config) : undefined, paths);
      for (const line of site.notes) process.stderr.write(`paracap cloud upload: ${line}\n`);
      // the planner would refuse a bad config after the upload: say it before
      if (site.config !== undefined) checkSemanticConfig(resolveConfig(site.config));
      const id = await upload(bucket, paths, values.name, site.config, new Set(history));
      // the settings this upload was given, so that the command it suggests reaches the same emulator
      const where = [values.emulator !== undefined ? `--emulator ${values.emulator} ` : "", values.endpoint !== undefined ? `--endpoint ${values.endpoint} ` : ""].join("");
      process.stderr.write(`run ${id} started; follow it with: npx paracap cloud status ${where}${id}\n`);
      process.stdout.write(id + "\n");
      return 0;
    }
    case "status": {
      const [runId] = positionals;
      if (!runId || positionals.length > 1) throw usage();
      const workBucket = storage.bucket(need(values["work-bucket"], "PARACAP_WORK_BUCKET", "--work-bucket"));
      const outputBucket = storage.bucket(need(values["output-bucket"], "PARACAP_OUTPUT_BUCKET", "--output-bucket"));
      const stores = (id: string) => ({ work: new GcsStore(workBucket, `runs/${id}/`), output: new GcsStore(outputBucket, `${id}/`) });
      let { work, output } = stores(runId);
      if (!(await work.exists("manifest.json"))) {
        const outcome = await planOutcome(work);
        if (!outcome) throw new UserError(`no run ${runId} in ${work.description}: not planned yet (the plan function may still be reading the upload; try again in a moment), or a typo?`);
        if (outcome.status !== "duplicate" || !outcome.of) {
          if (values.json) process.stdout.write(JSON.stringify({ runId, started: false, ...outcome }, null, 2) + "\n");
          else process.stdout.write(`run ${runId}: not started (${outcome.status === "ignored" ? "upload ignored" : "planning failed"}): ${outcome.reason}\n`);
          return 3;
        }
        process.stderr.write(`run ${runId}: ${outcome.reason}; showing run ${outcome.of}\n`);
        ({ work, output } = stores(outcome.of));
        if (!(await work.exists("manifest.json"))) throw new UserError(`run ${outcome.of} is gone from ${work.description}`);
        const status = await runStatus(outcome.of, work, output);
        process.stdout.write((values.json ? JSON.stringify(status, null, 2) : formatStatus(status)) + "\n");
        return isIncomplete(status) ? 3 : 0;
      }
      const status = await runStatus(runId, work, output);
      process.stdout.write((values.json ? JSON.stringify(status, null, 2) : formatStatus(status)) + "\n");
      return isIncomplete(status) ? 3 : 0;
    }
    case "fetch": {
      const [asked, dir] = positionals;
      if (!asked || !dir || positionals.length > 2) throw usage();
      let runId = asked;
      const bucket = storage.bucket(need(values["output-bucket"], "PARACAP_OUTPUT_BUCKET", "--output-bucket"));
      const workName = values["work-bucket"] ?? settings("PARACAP_WORK_BUCKET");
      if (workName) {
        const work = new GcsStore(storage.bucket(workName), `runs/${runId}/`);
        const failed = await work.readText(RUN_FAILED);
        if (failed !== null) throw new UserError(`run ${runId} failed, it has no outputs: ${(JSON.parse(failed) as { error: string }).error}`);
        // a run that never started (an upload ignored or refused) will never finish; a duplicate's outputs are its original's
        if (!(await work.exists("manifest.json"))) {
          const outcome = await planOutcome(work);
          if (outcome === null) throw new UserError(`no run ${runId} in ${work.description}: not planned yet (try again in a moment), or a typo?`);
          if (outcome.status !== "duplicate" || !outcome.of) throw new UserError(`run ${runId} never started (${outcome.status === "ignored" ? "upload ignored" : "planning failed"}): ${outcome.reason}`);
          process.stderr.write(`run ${runId}: ${outcome.reason}; fetching run ${outcome.of}\n`);
          runId = outcome.of;
        }
      }
      const [files] = await bucket.getFiles({ prefix: `${runId}/` });
      if (!files.some((f) => f.name === `${runId}/${OUTPUT_FILES.success}`)) {
        throw new UserError(`run ${runId} has not finished: no ${OUTPUT_FILES.success} in gs://${bucket.name}/${runId}/ (try 'npx paracap cloud status ${runId}')`);
      }
      const targets = files.filter((f) => !f.name.endsWith("/")).map((f) => ({ file: f, dest: safeDestination(dir, f.name.slice(runId.length + 1)) }));
      const unsafe = targets.filter((t) => t.dest === null).map((t) => t.file.name);
      if (unsafe.length > 0) {
        throw new UserError(`refusing to fetch run ${runId}: object name${unsafe.length > 1 ? "s" : ""} ${unsafe.map((n) => JSON.stringify(n)).join(", ")} would be written outside ${dir}; nothing was fetched`);
      }
      await mkdir(dir, { recursive: true });
      // an earlier fetch's outputs this run does not have (another run's tiers) would pass for this run's
      const fetched = new Set(targets.map((t) => resolve(t.dest!)));
      const tierFiles = TierName.options.flatMap((t) => [`${t}.jsonl.gz`, `${t}.jsonl`, `${t}.parquet`]);
      const stale = tierFiles.map((n) => join(dir, n)).filter((p) => existsSync(p) && !fetched.has(resolve(p)));
      for (const p of stale) {
        await rm(p, { force: true });
        process.stderr.write(`removed ${p}: an earlier fetch's, not run ${runId}'s\n`);
      }
      for (const { file, dest } of targets) {
        await mkdir(dirname(dest!), { recursive: true });
        await file.download({ destination: dest! });
        process.stderr.write(`fetched gs://${bucket.name}/${file.name}\n`);
      }
      return 0;
    }
  }
  throw usage();
}

/**
 * Where an object lands under `dir`, or null when its name would escape `dir` (`..` segments, an
 * absolute name): the output bucket is written by functions, and anyone who can write it must not
 * be able to write files anywhere on the machine that fetches.
 */
export function safeDestination(dir: string, relativeName: string): string | null {
  if (relativeName === "" || relativeName.includes("\0")) return null;
  const root = resolve(dir);
  const dest = resolve(root, relativeName);
  const rel = relative(root, dest);
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  return dest;
}

/**
 * A setting by its environment name: from `--emulator <dir>` first; else the environment; else,
 * when the environment configures no cloud at all, the default emulator directory's file.
 */
function cloudSettings(emulatorDir: string | undefined): (name: string) => string | undefined {
  if (emulatorDir !== undefined) {
    const file = liveEmulator(emulatorDir, true)!;
    return (name) => file.env[name] ?? process.env[name];
  }
  const configured = ["STORAGE_EMULATOR_HOST", "PARACAP_INPUT_BUCKET", "PARACAP_WORK_BUCKET", "PARACAP_OUTPUT_BUCKET"].some((k) => process.env[k]);
  const file = configured ? null : liveEmulator(DEFAULT_EMULATOR_DIR, false);
  if (file) process.stderr.write(`paracap: using the local emulator (${emulatorEnvPath(DEFAULT_EMULATOR_DIR)})\n`);
  return (name) => process.env[name] ?? file?.env[name];
}

function liveEmulator(dir: string, required: boolean) {
  const file = readEmulatorEnv(dir);
  if (!file) {
    if (required) throw new UserError(`no emulator settings in ${emulatorEnvPath(dir)}: start the emulator with 'npm run emulate -- --dir ${dir}'`);
    return null;
  }
  if (!isAlive(file.pid)) throw new UserError(`the emulator recorded in ${emulatorEnvPath(dir)} (pid ${file.pid}) is not running: start it with 'npm run emulate${dir === DEFAULT_EMULATOR_DIR ? "" : ` -- --dir ${dir}`}'`);
  return file;
}


/**
 * Uploads the dumps and returns the run id the planner will give the run. A multistream dump's
 * index goes first: the planner starts a run on the dump's upload (or the manifest's). Exported for
 * the cloud tests that upload in-process where the CLI itself is not what they test.
 */
export async function upload(bucket: Bucket, paths: string[], name: string | undefined, config: Record<string, unknown> | undefined, history: ReadonlySet<string> = new Set()): Promise<string> {
  const objects = new Map<string, string>();
  /** inputs told by their first bytes, not their names: planned through a manifest */
  const unnamed = new Set<string>();
  if (name !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name)) {
    throw new UserError(`--name must start with a letter or digit and hold only letters, digits, ".", "_" and "-" (at most 100), got ${JSON.stringify(name)}`);
  }
  // what the plan function would refuse, refused before anything is uploaded
  if (config !== undefined) {
    const checked = UploadConfig.safeParse(config);
    if (!checked.success) throw new UserError(`--config: not for an upload: ${checked.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`);
  }
  for (const path of paths) {
    if (!existsSync(path)) throw new UserError(`no such file: ${path}`);
    if (!statSync(path).isFile()) throw new UserError(`${path} is not a file: upload the input files themselves`);
    const named = uploadKind(basename(path), BUILTIN_SOURCES);
    // a name no source claims is told by its first bytes, as `paracap run` tells it; the planner reads it so in a manifest
    const detected = named === null ? BUILTIN_SOURCES.detect(basename(path), await fileHead(path)) : null;
    if (named === null && detected === null) throw new UserError(`${path} ${notAnInput(BUILTIN_SOURCES)}: not uploaded`);
    if (named === null) unnamed.add(path);
    const kind = named ?? { kind: "input" as const, source: detected! };
    if (kind.kind === "companion") throw new UserError(`${path} belongs to ${basename(kind.of)}: upload that; the files beside it go up with it`);
    if (kind.kind === "manifest") throw new UserError(`${path}: upload the inputs themselves; the run manifest is written by 'paracap cloud upload' (several inputs, --name, --config)`);
    const bad = await sniffDump(path);
    if (bad) throw new UserError(`${path} ${bad}: not uploaded`);
    // planned as one shard (a shard the file's size): what the planner would refuse or wait for, without a CSV's cutting scan
    const size = statSync(path).size;
    const planned = await kind.source.planRanges?.({ name: path, size }, Math.max(size, 1), LOCAL_VIEW);
    if (planned && "wait" in planned) throw new UserError(`${path}: ${planned.wait.replace(/ to start the run$/, "")}: put it next to the file (the run would wait for it)`);
    const object = basename(path);
    if (objects.has(object)) throw new UserError(`two inputs named ${object}: objects are named by file name`);
    objects.set(object, path);
  }
  const put = async (file: string, metadata?: Record<string, string>): Promise<string> => {
    process.stderr.write(`uploading ${file} → gs://${bucket.name}/${basename(file)}\n`);
    const [, meta] = await bucket.upload(file, { destination: basename(file), resumable: true, ...(metadata ? { metadata: { metadata } } : {}) });
    return String((meta as { generation?: string | number }).generation);
  };

  // a lone upload's kind is its name's: a dump given as history goes through a manifest, which says so
  if (paths.length === 1 && config === undefined && history.size === 0 && unnamed.size === 0) {
    const [path] = paths as [string];
    for (const companion of companionsOf(path)) await put(companion);
    return planRunId(basename(path), await put(path));
  }

  const manifestName = `${name ?? basename(paths[0]!).replace(/\.xml(\.bz2|\.gz)?$/, "")}.manifest.json`;
  if (objects.has(manifestName)) throw new UserError(`--name ${name} collides with an input's name`);
  const hold = { [PART_OF_MANIFEST]: manifestName };
  for (const path of paths) {
    for (const companion of companionsOf(path)) await put(companion, hold);
    await put(path, hold);
  }
  const manifest: UploadManifest = {
    shards: [...objects].map(([object, path]) => ({ object, kind: history.has(path) || looksLikeHistory(object) ? "history" : "current" })),
    ...(config ? { config } : {}),
  };
  process.stderr.write(`uploading run manifest → gs://${bucket.name}/${manifestName}\n`);
  const file = bucket.file(manifestName);
  await file.save(JSON.stringify(manifest, null, 2) + "\n", { resumable: false, contentType: "application/json" });
  return planRunId(manifestName, String(file.metadata.generation));
}

/** Files beside an input that its source's planner reads (a multistream index): uploaded before it. */
function companionsOf(path: string): string[] {
  const dir = dirname(path);
  return readdirSync(dir)
    .map((f) => join(dir, f))
    .filter((f) => f !== path && uploadKind(basename(f), BUILTIN_SOURCES)?.kind === "companion" && (uploadKind(basename(f), BUILTIN_SOURCES) as { of: string }).of === basename(path))
    .sort();
}

/** The first bytes of a file, to tell its source by content (as local-shards.ts does for `paracap run`). */
async function fileHead(path: string, bytes = 4096): Promise<Buffer> {
  const fh = await open(path, "r");
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}
