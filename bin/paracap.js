#!/usr/bin/env node
// Runs the compiled CLI in dist/node. The build (scripts/build.mjs) is redone first only when a
// source file is newer than it, so a checkout being edited never runs stale code; where dist cannot
// be written (a read-only install without a build), the TypeScript sources run through tsx.
// A long command (`run`) starts node once more with its V8 heap flags (shared/cli/node-flags.ts).
import { fileURLToPath } from "node:url";
import { ensureBuilt } from "../scripts/build.mjs";

let cli = new URL("../dist/node/shared/cli/", import.meta.url).href;
let ext = ".js";
try {
  ensureBuilt();
} catch (e) {
  const { register } = await import("tsx/esm/api").catch(() => {
    process.stderr.write(`paracap: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}; run 'npm run build'\n`);
    process.exit(1);
  });
  register();
  cli = new URL("../shared/cli/", import.meta.url).href;
  ext = ".ts";
}
const argv = process.argv.slice(2);
const { nodeFlagsFor, relaunch, dieWithParent } = await import(`${cli}node-flags${ext}`);
const flags = nodeFlagsFor(argv, process.execArgv, process.env);
if (flags.length > 0) {
  process.exitCode = await relaunch(flags, fileURLToPath(import.meta.url), argv);
} else {
  dieWithParent();
  const { main } = await import(`${cli}main${ext}`);
  process.exitCode = await main(argv);
}
