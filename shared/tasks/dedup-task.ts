/** Dedup task: one pair partition from every group partition → filtered, scored pairs per tier, sorted by id. */
import type { Counters } from "../core/counters.ts";
import { phaseShape } from "../core/phase-names.ts";
import { CandidatePair } from "../core/records.ts";
import type { BlobStore } from "../io/blob-store.ts";
import { JsonlWriter, readJsonl } from "../io/jsonl.ts";
import { dedupStage } from "../pipeline/dedup-stage.ts";
import { taskStageContext } from "./item-cache.ts";
import { layout } from "./layout.ts";
import type { RunManifest } from "./manifest.ts";
import type { TaskMarker } from "./markers.ts";
import { partitionTask } from "./phase-task.ts";
import { readSetSizeBound } from "./set-size-bound-file.ts";

export const dedupPhase = partitionTask({
  ...phaseShape("dedup"),
  done: (key) => layout.dedupDone(Number(key)),
  outputs: (manifest, q) => manifest.config.tiers.map((t) => layout.dedupPart(q, t)),
  run: dedupPartition,
});

/** One dedup task outside a runner's phase loop (tests): the same marker rules. */
export const runDedupTask = (manifest: RunManifest, partition: number, work: BlobStore): Promise<TaskMarker> => dedupPhase.runPartition(manifest, partition, work);

async function dedupPartition(manifest: RunManifest, partition: number, work: BlobStore, counters: Counters): Promise<void> {
  const setSizeMax = await readSetSizeBound(work);
  // Only the group partitions that produced pairs for this partition wrote a file here (in group
  // partition order, as names sort): one listing instead of a probe per partition.
  const P = manifest.config.partitions;
  const inputs = new Set(Array.from({ length: P }, (_, p) => layout.groupPart(p, partition)));
  const names = (await work.list(layout.groupPartsFor(partition))).filter((n) => inputs.has(n));
  async function* pairs() {
    for (const name of names) yield* readJsonl(work, name, CandidatePair);
  }
  // Every tier gets an object, even an empty one, so the aggregate can tell "no pairs" from "missing".
  const writers = new Map(manifest.config.tiers.map((t) => [t, new JsonlWriter(work.writer(layout.dedupPart(partition, t)))]));
  try {
    for await (const pair of dedupStage(manifest.config, { setSizeMax }).run(pairs(), taskStageContext(work, counters))) {
      await writers.get(pair.tier as (typeof manifest.config.tiers)[number])!.write(pair);
    }
  } catch (err) {
    for (const w of writers.values()) await w.abort();
    throw err;
  }
  for (const w of writers.values()) await w.close();
}

