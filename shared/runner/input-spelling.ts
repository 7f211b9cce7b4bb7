/**
 * A rerun naming an input by another path than the earlier run in the same --out (relative or
 * absolute, through a symlink, `./x` or `a/../x`) reads the same file: it takes the earlier run's
 * spelling, so its plan (shard ids and fingerprints hold the path as named) is the earlier plan and
 * the run resumes instead of being refused as a run over other inputs. The earlier spelling is taken
 * only when it still leads, from here, to the very same file or folder.
 */
import { realpathSync } from "node:fs";
import type { LocalInput } from "./local-shards.ts";

function realpathOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null; // not a local path (a URL), or gone
  }
}

/** `inputs` with each path that names the same file as one of `earlier` (the earlier run's inputs) spelled as it was there. */
export function spelledAsBefore(inputs: readonly LocalInput[], earlier: readonly string[]): LocalInput[] {
  const named = new Set(inputs.map((i) => i.path));
  const byReal = new Map<string, string>();
  for (const path of earlier) {
    const real = realpathOrNull(path);
    if (real !== null && !byReal.has(real)) byReal.set(real, path);
  }
  return inputs.map((input) => {
    if (byReal.size === 0 || earlier.includes(input.path)) return input;
    const real = realpathOrNull(input.path);
    const before = real === null ? undefined : byReal.get(real);
    // never two inputs of this run onto one spelling: a path named twice stays as named
    return before === undefined || named.has(before) ? input : { ...input, path: before };
  });
}
