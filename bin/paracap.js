#!/usr/bin/env node
// Runs the compiled CLI in dist/node. The build (scripts/build.mjs) is redone first only when a
// source file is newer than it, so a checkout being edited never runs stale code; where dist cannot
// be written (a read-only install without a build), the TypeScript sources run through tsx.
import { ensureBuilt } from "../scripts/build.mjs";

let entry = new URL("../dist/node/shared/cli/main.js", import.meta.url).href;
try {
  ensureBuilt();
} catch (e) {
  const { register } = await import("tsx/esm/api").catch(() => {
    process.stderr.write(`paracap: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}; run 'npm run build'\n`);
    process.exit(1);
  });
  register();
  entry = new URL("../shared/cli/main.ts", import.meta.url).href;
}
const { main } = await import(entry);
process.exitCode = await main(process.argv.slice(2));
