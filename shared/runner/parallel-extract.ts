/**
 * Fans the per-revision half of the extract stage out over the worker pool in batches and yields
 * results in input order (so collapsing history uses stays sequential and deterministic). In-flight
 * batches are bounded in number and in characters together (not per worker: memory must not grow
 * with the cores), which is the dump reader's back-pressure; results come back as serialised groups
 * of chunks (worker.ts) and are turned into objects one group at a time, as the consumer takes them.
 */
import { deserialize } from "node:v8";
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
  /** characters of documents in flight, all batches together */
  maxInFlightChars?: number;
}

/** Characters of documents in flight by default: results are a few times their documents. */
const IN_FLIGHT_CHARS = 32_000_000;

export async function* parallelExtract(
  source: Source,
  docs: AsyncIterable<unknown>,
  kind: InputKind,
  config: ParacapConfig,
  counters: Counters,
  pool: WorkerPool,
  opts: ParallelExtractOptions = {},
): AsyncGenerator<RevisionRefs> {
  const maxInFlight = opts.maxInFlight ?? pool.size * 2;
  const maxInFlightChars = opts.maxInFlightChars ?? IN_FLIGHT_CHARS;
  // many workers: smaller batches, so that all of them still have one within the character bound
  const batchChars = opts.batchChars ?? Math.min(4_000_000, Math.floor(maxInFlightChars / maxInFlight));
  const inflight: { result: Promise<ExtractBatchResult>; chars: number }[] = [];
  let inflightChars = 0;
  let batch: unknown[] = [];
  let chars = 0;
  const submit = () => {
    // The source packs the batch (MediaWiki texts travel still encoded and are decoded in the worker).
    const p = pool.run<ExtractBatchResult>("extractBatch", { config, kind, source: source.name, docs: source.pack(batch) });
    p.catch(() => {}); // observed when awaited in order below
    inflight.push({ result: p, chars });
    inflightChars += chars;
    batch = [];
    chars = 0;
  };
  const take = async function* () {
    const head = inflight.shift()!;
    const r = await head.result;
    inflightChars -= head.chars;
    counters.merge(r.counters);
    counters.samples.merge(r.samples);
    const groups = r.revisions;
    for (let i = 0; i < groups.length; i++) {
      const group = deserialize(groups[i]!) as RevisionRefs[];
      (groups as unknown[])[i] = null; // let each group go once taken
      yield* group;
    }
  };
  let readError: unknown = null;
  try {
    for await (const doc of docs) {
      batch.push(doc);
      chars += source.size(doc);
      if (chars >= batchChars || batch.length >= 1000) submit();
      while (inflight.length >= maxInFlight || (inflight.length > 0 && inflightChars >= maxInFlightChars)) yield* take();
    }
  } catch (err) {
    // Keep what was read before the damage: finish the batches in flight, then report the error.
    readError = err;
  }
  if (batch.length > 0) submit();
  while (inflight.length > 0) yield* take();
  if (readError !== null) throw readError;
}
