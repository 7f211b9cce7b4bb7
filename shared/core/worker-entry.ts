/**
 * Where a worker thread's entry module is. Running from the sources or the per-file build: beside the
 * module that starts the worker (`.ts` or `.js` like it). The CLI's bundle (scripts/build.mjs) builds
 * the entries too and replaces this module with one whose BUNDLED_ENTRIES names them, so a worker
 * loads a few bundled chunks instead of its ~200 modules.
 */

/** Bundled entry URLs by name (see scripts/build.mjs); null outside the bundle. */
export const BUNDLED_ENTRIES: Readonly<Record<string, string>> | null = null;

/**
 * The URL of worker entry `name` (a module file name without extension) that lies beside the module at
 * `beside` (its import.meta.url).
 */
export function workerEntry(name: string, beside: string): string {
  return BUNDLED_ENTRIES?.[name] ?? new URL(`./${name}${beside.endsWith(".ts") ? ".ts" : ".js"}`, beside).href;
}
