/**
 * `paracap cloud upload` and `cloud status` called in-process, for the cloud tests that need their
 * results but do not test the CLI itself (a CLI child costs ~1.4 CPU-s; the CLI's own handling of
 * arguments, output and exit codes is tested with real children in e2e, cli and emulator tests).
 */
import type { Storage } from "@google-cloud/storage";
import { upload } from "../../shared/cli/cloud-command.ts";
import { formatStatus, isIncomplete, runStatus, type RunStatus } from "../../shared/cloud/run-status.ts";
import { GcsStore } from "../../shared/io/gcs-store.ts";
import type { LocalCloud } from "../../scripts/emulators/local-cloud.ts";
import { inProcessCli, type InProcessResult } from "../support/in-process-cli.ts";

/** Uploads `paths` as one run named `name` (as `paracap cloud upload <paths> --name <name>`); the run id. */
export function uploadRun(storage: Storage, cloud: LocalCloud, paths: string[], name: string): Promise<string> {
  return upload(storage.bucket(cloud.buckets.input), paths, name, undefined);
}

/** What `paracap cloud status <runId>` prints and exits with, for a planned run. */
export async function runStatusOf(storage: Storage, cloud: LocalCloud, runId: string): Promise<{ code: number; stdout: string; status: RunStatus }> {
  const status = await runStatus(runId, new GcsStore(storage.bucket(cloud.buckets.work), `runs/${runId}/`), new GcsStore(storage.bucket(cloud.buckets.output), `${runId}/`));
  return { code: isIncomplete(status) ? 3 : 0, stdout: formatStatus(status) + "\n", status };
}

/**
 * `paracap <args>` (e.g. `cloud upload … --config …`) by the CLI's main() in this process, for files
 * whose functions run in-process: startLocalCloud put the emulators' settings into process.env, where
 * the CLI reads them as a child given `cloud.env` would. Not for built functions (their settings are
 * the children's only).
 */
export function cloudCli(args: string[]): Promise<InProcessResult> {
  if (!process.env.PARACAP_INPUT_BUCKET || !process.env.STORAGE_EMULATOR_HOST) throw new Error("cloudCli: no local cloud's settings in process.env (start one with in-process functions first)");
  return inProcessCli(args);
}
