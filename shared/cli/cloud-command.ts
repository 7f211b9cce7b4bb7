/** `paracap cloud upload|status|fetch`: works against Google Cloud or the local emulators. */
import { Storage } from "@google-cloud/storage";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { GcsStore } from "../io/gcs-store.ts";
import { findMultistreamIndex } from "../runner/local-shards.ts";
import { formatStatus, runStatus } from "../cloud/run-status.ts";
import { UserError } from "./errors.ts";

const USAGE = `paracap cloud upload <dump>… [--bucket <input bucket>]
paracap cloud status <run-id> [--work-bucket <b>] [--output-bucket <b>] [--json]
paracap cloud fetch <run-id> <dir> [--output-bucket <b>]
Buckets default to $PARACAP_INPUT_BUCKET, $PARACAP_WORK_BUCKET, $PARACAP_OUTPUT_BUCKET (see 'pulumi stack output').
--endpoint <url> (or $STORAGE_EMULATOR_HOST) talks to a local emulator instead of Google Cloud.`;

export async function cloudCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      bucket: { type: "string" },
      "work-bucket": { type: "string" },
      "output-bucket": { type: "string" },
      endpoint: { type: "string" },
      project: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const endpoint = values.endpoint ?? process.env.STORAGE_EMULATOR_HOST;
  const storage = endpoint ? new Storage({ apiEndpoint: endpoint, projectId: values.project ?? "paracap-local" }) : new Storage();
  const need = (v: string | undefined, env: string, flag: string) => {
    const b = v ?? process.env[env];
    if (!b) throw new UserError(`no bucket: pass ${flag} or set ${env}`);
    return b;
  };
  switch (sub) {
    case "upload": {
      if (positionals.length === 0) throw new UserError(USAGE);
      const bucket = storage.bucket(need(values.bucket, "PARACAP_INPUT_BUCKET", "--bucket"));
      for (const path of positionals) {
        if (!existsSync(path)) throw new UserError(`no such file: ${path}`);
        // The index goes first: the dump's upload is what starts the run.
        const index = findMultistreamIndex(path);
        for (const f of index ? [index, path] : [path]) {
          process.stderr.write(`uploading ${f} → gs://${bucket.name}/${basename(f)}\n`);
          await bucket.upload(f, { destination: basename(f), resumable: true });
        }
      }
      return 0;
    }
    case "status": {
      const [runId] = positionals;
      if (!runId) throw new UserError(USAGE);
      const work = new GcsStore(storage.bucket(need(values["work-bucket"], "PARACAP_WORK_BUCKET", "--work-bucket")), `runs/${runId}/`);
      const output = new GcsStore(storage.bucket(need(values["output-bucket"], "PARACAP_OUTPUT_BUCKET", "--output-bucket")), `${runId}/`);
      const status = await runStatus(runId, work, output);
      process.stdout.write((values.json ? JSON.stringify(status, null, 2) : formatStatus(status)) + "\n");
      return status.shards.failed.length > 0 || status.deadLettered.length > 0 ? 3 : 0;
    }
    case "fetch": {
      const [runId, dir] = positionals;
      if (!runId || !dir) throw new UserError(USAGE);
      const bucket = storage.bucket(need(values["output-bucket"], "PARACAP_OUTPUT_BUCKET", "--output-bucket"));
      const [files] = await bucket.getFiles({ prefix: `${runId}/` });
      if (files.length === 0) throw new UserError(`no outputs for run ${runId} in gs://${bucket.name}/ (is it finished? try 'paracap cloud status ${runId}')`);
      await mkdir(dir, { recursive: true });
      for (const f of files) {
        const dest = join(dir, f.name.slice(runId.length + 1));
        await mkdir(join(dest, ".."), { recursive: true });
        await f.download({ destination: dest });
        process.stderr.write(`fetched ${f.name}\n`);
      }
      return 0;
    }
    default:
      throw new UserError(USAGE);
  }
}
