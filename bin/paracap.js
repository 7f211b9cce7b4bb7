#!/usr/bin/env node
// Runs the compiled CLI in dist/node. The build (scripts/build.mjs) is redone first only when a
// source file is newer than it, so a checkout being edited never runs stale code; where dist cannot
// be written (a read-only install without a build), the TypeScript sources run through tsx.
// A long command (`run` on large inputs) starts node once more with its V8 heap flags (shared/cli/node-flags.ts).
// The CLI's modules come from the bundle of the build (one file per command instead of some 300
// modules to resolve and compile; see bundleCli in scripts/build.mjs), or, when the build has none,
// from the per-file build.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

// Where the CLI's modules are, as found below: handed to the node that `run` starts again with its
// flags (shared/cli/node-flags.ts), which then skips the build check its launcher has just made.
const CLI_ENV = "PARACAP_CLI_MODULES";
const handed = process.env.PARACAP_NODE_FLAGS_APPLIED && process.channel ? process.env[CLI_ENV]?.split(" ") : undefined;
let [cli, ext] = handed?.length === 2 ? handed : [new URL("../dist/node/shared/cli/", import.meta.url).href, ".js"];
if (handed?.length === 2) {
  if (ext === ".ts") (await import("tsx/esm/api")).register();
} else {
  try {
    const { BUNDLE_DIR, ensureBuilt } = await import("../scripts/build.mjs");
    ensureBuilt();
    const bundle = new URL(`../dist/node/${BUNDLE_DIR}/`, import.meta.url);
    if (existsSync(new URL("main.js", bundle))) cli = bundle.href;
  } catch (e) {
    const { register } = await import("tsx/esm/api").catch(() => {
      process.stderr.write(`paracap: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}; run 'npm run build'\n`);
      process.exit(1);
    });
    register();
    cli = new URL("../shared/cli/", import.meta.url).href;
    ext = ".ts";
  }
  process.env[CLI_ENV] = `${cli} ${ext}`;
}
const argv = process.argv.slice(2);
const script = fileURLToPath(import.meta.url);
const { dieWithParent, launchFlags, relaunch } = await import(`${cli}node-flags${ext}`);
dieWithParent();
// `run` on large inputs goes on in a node started with its V8 flags (shared/cli/node-flags.ts): at
// once when its arguments tell, before the CLI's modules load here; else maybe from the run command
const flags = launchFlags(argv);
if (flags.length > 0) process.exitCode = await relaunch(flags, script, argv);
else {
  const { main } = await import(`${cli}main${ext}`);
  process.exitCode = await main(argv, { script });
}
// The command is done. Once nothing is pending ('beforeExit' comes only when the event loop is empty, so
// no write or child is cut short), the process ends at once instead of by node's teardown, which frees
// the heap and joins worker threads: after a large run, tens of ms in which nothing is written.
process.once("beforeExit", () => process.exit());
