/**
 * How far V8 lets the heap grow past what was live at the last full collection. By default up to four
 * times when the program allocates fast, so a run's RSS followed its allocation rate rather than its
 * live data: a shard dense with distinct captions (the NLP step makes much short-lived garbage) peaked
 * near 1.5 GiB with ~150 MB live. Capped at 1.25 times, peak RSS follows the live set, which the extract
 * path bounds by design (a 2-million-reference shard stays under 1 GiB) for a few per cent more time in
 * full collections. Process-wide (worker threads share it); a flag the user gave node wins.
 */
import { setFlagsFromString } from "node:v8";

export const HEAP_GROWING_PERCENT = 25;

export function boundHeapGrowth(percent = HEAP_GROWING_PERCENT): void {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((a) => /heap[-_]growing[-_]percent/.test(a));
  if (!given) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
