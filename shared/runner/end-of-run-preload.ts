/**
 * What a run's last phases load, loaded while the decoder still runs. After the decoder's last byte only
 * one core works (extraction's tail, group, dedup, the aggregate) and no decoder runs, so every load left
 * there is serial wall time: the word vectors (dedup's wordVectors scorer, ~20–40 ms from the binary
 * copy) and the shipped reference maps' first schema check (the aggregate's report.html). While a long
 * input decodes, this thread mostly waits on the decoder. Each load is what the later phase asks for
 * anyway (the vectors through processWordVectors' per-thread cache), so nothing is loaded twice; a load
 * that fails here is dropped and fails again, as before, where it is needed. (The charts' vega loads on
 * its own thread once the decoders are done: output/chart-thread.ts.)
 *
 * Only a long run preloads (PRELOAD_AFTER_DECODED_BYTES decoded): a small one has no decoding time to
 * hide them in, and may need none of them (no pairs, no vectors).
 */
import type { ParacapConfig } from "../core/config.ts";
import { shippedReferenceMaps } from "../compare/reference-maps.ts";
import { processWordVectors } from "../semantic/vector-scorer.ts";

/** Decoded input bytes after which a run starts its preloads (the decoder is then surely running, and the input long). */
export const PRELOAD_AFTER_DECODED_BYTES = 32 << 20;

/** Pause between two loads, so this thread reads the decoder's output between them (each load is one synchronous stretch). */
const PAUSE_MS = 20;

/** A function to call as input decodes: the first call at or past the threshold starts the loads, once. */
export function endOfRunPreloader(config: ParacapConfig): (decodedBytes: number) => void {
  let started = false;
  return (decodedBytes) => {
    if (started || decodedBytes < PRELOAD_AFTER_DECODED_BYTES) return;
    started = true;
    const loads: (() => unknown)[] = [];
    if (config.scoring.scorers.includes("wordVectors")) loads.push(() => processWordVectors(config.scoring.vectors.maxWords));
    loads.push(shippedReferenceMaps);
    const next = (i: number) => {
      if (i < loads.length) setTimeout(() => void Promise.resolve().then(loads[i]).catch(() => undefined).finally(() => next(i + 1)), PAUSE_MS).unref();
    };
    next(0);
  };
}
