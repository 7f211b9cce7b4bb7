/**
 * parallelExtract's back-pressure: documents in flight on the worker threads are bounded in
 * characters, all batches together (not per worker), and results come back in input order from the
 * serialised chunk groups the workers send.
 */
import { serialize } from "node:v8";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import type { RevisionRefs } from "../../shared/pipeline/extract-stage.ts";
import { parallelExtract } from "../../shared/runner/parallel-extract.ts";
import type { ExtractBatchPayload, ExtractBatchResult } from "../../shared/runner/worker.ts";
import type { WorkerPool } from "../../shared/runner/worker-pool.ts";
import type { Source } from "../../shared/sources/source.ts";

interface Doc { id: number; chars: number }

const source = { name: "fake", pack: (docs: Doc[]) => docs, size: (d: Doc) => d.chars } as unknown as Source;

/** A pool whose jobs finish a few ticks later, recording the characters it holds at once. */
function fakePool(size: number) {
  let inFlight = 0;
  const seen = { maxChars: 0, jobs: 0 };
  const pool = {
    size,
    async run(_job: string, payload: ExtractBatchPayload): Promise<ExtractBatchResult> {
      const docs = payload.docs as Doc[];
      const chars = docs.reduce((n, d) => n + d.chars, 0);
      inFlight += chars;
      seen.maxChars = Math.max(seen.maxChars, inFlight);
      seen.jobs++;
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
      inFlight -= chars;
      const revs: RevisionRefs[] = docs.map((d) => ({ kind: "current", page: `P${d.id}`, pageId: d.id, revisionId: d.id, refs: [] }));
      // two groups per batch, as a worker sends them
      const half = Math.ceil(revs.length / 2);
      return { revisions: [serialize(revs.slice(0, half)), serialize(revs.slice(half))].map((b) => new Uint8Array(b)), counters: { "extract.current.revisions": docs.length }, samples: {} };
    },
  };
  return { pool: pool as unknown as WorkerPool, seen };
}

async function* docs(n: number, chars: number): AsyncGenerator<Doc> {
  for (let i = 1; i <= n; i++) yield { id: i, chars };
}

describe("parallelExtract", () => {
  it("holds at most maxInFlightChars (plus one batch) of documents in flight, however many workers, and keeps the input order", async () => {
    const { pool, seen } = fakePool(64);
    const counters = new Counters();
    const out: number[] = [];
    for await (const r of parallelExtract(source, docs(200, 300), "current", resolveConfig({}), counters, pool, { batchChars: 300, maxInFlightChars: 1_000 })) out.push(r.pageId as number);
    expect(out).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(counters.get("extract.current.revisions")).toBe(200);
    expect(seen.jobs).toBe(200);
    // 64 workers × 2 batches each would be 38,400 characters
    expect(seen.maxChars).toBeLessThanOrEqual(1_000 + 300);
  });

  it("makes batches smaller when many workers share the character bound", async () => {
    const { pool, seen } = fakePool(8);
    const out: number[] = [];
    for await (const r of parallelExtract(source, docs(64, 100), "current", resolveConfig({}), new Counters(), pool, { maxInFlightChars: 1_600 })) out.push(r.pageId as number);
    expect(out.length).toBe(64);
    // 1,600 characters over 16 batches in flight: 100 characters (one document) a batch
    expect(seen.jobs).toBe(64);
  });
});
