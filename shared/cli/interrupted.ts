/**
 * What a run says when Ctrl-C stops it. Finished shards and tasks are kept in `<out>/.work`, so the
 * same command picks up where this one stopped; before the run has made that folder there is
 * nothing to resume, and the line says so instead.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

/** The line for a run into `outDir` (null: not known, as in a launcher whose child had not started its run). */
export function interruptedLine(outDir: string | null): string {
  if (outDir === null || !existsSync(join(outDir, ".work"))) return "\nparacap: interrupted before the run wrote anything\n";
  return `\nparacap: interrupted; run the same command again to resume (finished work in ${outDir}/.work is kept)\n`;
}
