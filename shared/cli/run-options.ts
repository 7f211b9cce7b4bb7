/**
 * The options of `paracap run` as node:util parseArgs reads them, apart from the command so that the
 * launcher can read a run's inputs (node-flags.ts launchFlags) without loading it.
 */
import { parseCommandArgs } from "./parse-args.ts";
import { expandArgs } from "./argv.ts";

const RUN_OPTIONS = {
  input: { type: "string", multiple: true },
  history: { type: "string", multiple: true },
  images: { type: "string", multiple: true },
  out: { type: "string", default: "out" },
  tiers: { type: "string" },
  config: { type: "string" },
  partitions: { type: "string" },
  workers: { type: "string" },
  model: { type: "string" },
  "warc-base-url": { type: "string" },
  encoding: { type: "string" },
  fresh: { type: "boolean", default: false },
  quiet: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** `paracap run`'s arguments (after the command) parsed; throws a UserError on a mistyped option. */
export function parseRunArgs(argv: readonly string[]) {
  return parseCommandArgs("run", {
    args: expandArgs(argv, ["--input", "--history", "--images"], ["--partitions", "--workers"]),
    options: RUN_OPTIONS,
    strict: true,
  }).values;
}
