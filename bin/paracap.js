#!/usr/bin/env node
// Runs the TypeScript sources directly (no build step) through tsx's loader.
import { register } from "tsx/esm/api";
register();
const { main } = await import("../shared/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
