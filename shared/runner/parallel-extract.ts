/**
 * Fans the per-revision half of the extract stage out over the worker pool in batches and yields
 * results in input order (so collapsing history uses stays sequential and deterministic). Bounded
 * in-flight batches give back-pressure to the dump reader.
 */
import type { ParacapConfig } from "../core/config.ts";
import type { Counters } from "../core/counters.ts";
import type { InputKind } from "../core/records.ts";
import type { RevisionRefs } from "../pipeline/extract-stage.ts";
import type { Source } from "../sources/source.ts";
import type { ExtractBatchResult } from "./worker.ts";
import type { WorkerPool } from "./worker-pool.ts";

export interface ParallelExtractOptions {
  batchChars?: number;
  maxInFlight?: number;
}

export async function* parallelExtract(
  source: Source,
  docs: AsyncIterable<unknown>,
  kind: InputKind,
  config: ParacapConfig,
  counters: Counters,
  pool: WorkerPool,
  opts: ParallelExtractOptions = {},
): AsyncGenerator<RevisionRefs> {
  const batchChars = opts.batchChars ?? 4_000_000;
  const maxInFlight = opts.maxInFlight ?? pool.size * 2;
  const inflight: Promise<ExtractBatchResult>[] = [];
  let batch: unknown[] = [];
  let chars = 0;
  const submit = () => {
    // The source packs the batch (MediaWiki texts travel still encoded and are decoded in the worker).
    const p = pool.run<ExtractBatchResult>("extractBatch", { config, kind, source: source.name, docs: source.pack(batch) });
    p.catch(() => {}); // observed when awaited in order below
    inflight.push(p);
    batch = [];
    chars = 0;
  };
  const take = async function* () {
    const r = await inflight.shift()!;
    counters.merge(r.counters);
    yield* r.revisions;
  };
  let readError: unknown = null;
  try {
    for await (const doc of docs) {
      batch.push(doc);
      chars += source.size(doc);
      if (chars >= batchChars || batch.length >= 1000) submit();
      while (inflight.length >= maxInFlight) yield* take();
    }
  } catch (err) {
    // Keep what was read before the damage: finish the batches in flight, then report the error.
    readError = err;
  }
  if (batch.length > 0) submit();
  while (inflight.length > 0) yield* take();
  if (readError !== null) throw readError;
}
