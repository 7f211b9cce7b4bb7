/** Group task: one image partition from every shard → candidate pairs partitioned by caption texts. */
import { groupPairsCounter } from "../core/counter-names.ts";
import type { Counters } from "../core/counters.ts";
import { partitionOf } from "../core/hash.ts";
import { phaseShape } from "../core/phase-names.ts";
import { ShuffleRef } from "../core/records.ts";
import type { BlobStore } from "../io/blob-store.ts";
import { readJsonl } from "../io/jsonl.ts";
import { uniqueKey } from "../pipeline/dedup-stage.ts";
import { groupStage } from "../pipeline/group-stage.ts";
import { taskStageContext } from "./item-cache.ts";
import { layout } from "./layout.ts";
import type { RunManifest } from "./manifest.ts";
import type { TaskMarker } from "./markers.ts";
import { PartitionedWriter } from "./partitioned-writer.ts";
import { partitionTask } from "./phase-task.ts";
import { writeSetSizeBound } from "./set-size-bound-file.ts";

export const groupPhase = partitionTask({
  ...phaseShape("group"),
  done: (key) => layout.groupDone(Number(key)),
  outputs: (manifest, p) => Array.from({ length: manifest.config.partitions }, (_, q) => layout.groupPart(p, q)),
  workDirs: [layout.groupPartsRoot],
  run: groupPartition,
  // The dedup tasks need the run's equivalence-set size bound, which needs every group partition.
  afterPhase: ({ manifest, work }) => writeSetSizeBound(manifest, work),
});

/** One group task outside a runner's phase loop (tests): the same marker rules. */
export const runGroupTask = (manifest: RunManifest, partition: number, work: BlobStore): Promise<TaskMarker> => groupPhase.runPartition(manifest, partition, work);

async function groupPartition(manifest: RunManifest, partition: number, work: BlobStore, counters: Counters): Promise<void> {
  async function* refs() {
    for (const shard of manifest.shards) {
      yield* readJsonl(work, layout.extractPart(shard.id, partition), ShuffleRef);
    }
  }
  const out = new PartitionedWriter(work, (q) => layout.groupPart(partition, q));
  try {
    for await (const pair of groupStage(manifest.config).run(refs(), taskStageContext(work, counters))) {
      await out.write(partitionOf(uniqueKey(pair), manifest.config.partitions), pair);
      counters.inc(groupPairsCounter(pair.tier));
    }
  } catch (err) {
    await out.abort();
    throw err;
  }
  await out.close();
}
