/** Worker-thread side of the local runner: the same task functions the cloud handlers call. */
import { serialize } from "node:v8";
import { parentPort } from "node:worker_threads";
import { Counters } from "../core/counters.ts";
import type { SampleSnapshot } from "../core/samples.ts";
import type { ParacapConfig } from "../core/config.ts";
import type { InputKind } from "../core/records.ts";
import { LocalStore } from "../io/local-store.ts";
import type { RevisionRefs } from "../pipeline/extract-stage.ts";
import { BUILTIN_SOURCES } from "../sources/registry.ts";
import { documentChunks, EXTRACT_CHUNK_REFS } from "../pipeline/extract-stage.ts";
import { runPartitionTask } from "../tasks/run-task.ts";
import { BUILTIN_PIPELINE } from "../tasks/phases.ts";
import type { RunManifest } from "../tasks/manifest.ts";
import type { JobRequest, JobResponse } from "./worker-pool.ts";

export interface ExtractBatchPayload { config: ParacapConfig; kind: InputKind; source: string; docs: unknown }
/**
 * `revisions`: the batch's revisions in chunks (documentChunks), serialised (v8) in groups of about
 * EXTRACT_CHUNK_REFS references: a few compact buffers cross the thread boundary, and the receiver
 * turns one group at a time back into objects.
 */
/** A batch's references, the counters it added and the examples of what its filters dropped. */
export interface ExtractBatchResult { revisions: Uint8Array[]; counters: Record<string, number>; samples: SampleSnapshot }
export interface PartitionPayload { phase: string; manifest: RunManifest; partition: number; workDir: string }

// One extractor per source and config, kept across batches: loading the language model is the expensive part.
let extractor: { key: string; counters: Counters; fn: (doc: unknown, kind: InputKind) => Iterable<RevisionRefs> } | null = null;

const jobs: Record<string, (payload: never) => Promise<unknown>> = {
  async extractBatch(p: ExtractBatchPayload): Promise<ExtractBatchResult> {
    const key = `${p.source}\u0000${JSON.stringify(p.config)}`;
    // Worker threads know the built-in sources only (a runner with extra sources runs them inline).
    const source = BUILTIN_SOURCES.get(p.source);
    if (!extractor || extractor.key !== key) {
      const counters = new Counters();
      extractor = { key, counters, fn: documentChunks(source, p.config, counters, EXTRACT_CHUNK_REFS, await source.prepare?.(p.config)) };
    }
    const before = extractor.counters.toJSON();
    const revisions: Uint8Array[] = [];
    let group: RevisionRefs[] = [];
    let refs = 0;
    for (const doc of source.unpack(p.docs)) {
      for (const chunk of extractor.fn(doc, p.kind)) {
        group.push(chunk);
        refs += chunk.refs.length + 1;
        if (refs >= EXTRACT_CHUNK_REFS) {
          revisions.push(serialize(group));
          group = [];
          refs = 0;
        }
      }
    }
    if (group.length > 0) revisions.push(serialize(group));
    const after = extractor.counters.toJSON();
    const delta: Record<string, number> = {};
    for (const [k, v] of Object.entries(after)) if (v !== (before[k] ?? 0)) delta[k] = v - (before[k] ?? 0);
    // the examples go with the batch (bottom-k sets merge to the same examples in any order)
    return { revisions, counters: delta, samples: extractor.counters.samples.take() };
  },
  /** one partition task of a built-in phase */
  async partition(p: PartitionPayload) {
    return runPartitionTask(p.phase, p.manifest, p.partition, new LocalStore(p.workDir), BUILTIN_PIPELINE);
  },
};

parentPort!.on("message", async (req: JobRequest) => {
  let res: JobResponse;
  try {
    const fn = jobs[req.job];
    if (!fn) throw new Error(`unknown job ${req.job}`);
    res = { id: req.id, ok: true, result: await fn(req.payload as never) };
  } catch (err) {
    res = { id: req.id, ok: false, error: err instanceof Error ? `${err.message}\n${err.stack ?? ""}` : String(err) };
  }
  parentPort!.postMessage(res);
});
