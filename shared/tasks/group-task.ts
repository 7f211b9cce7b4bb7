/** Group task: one image partition from every shard → candidate pairs partitioned by caption texts. */
import { Counters } from "../core/counters.ts";
import { partitionOf } from "../core/hash.ts";
import { ShuffleRef } from "../core/records.ts";
import { silentContext } from "../core/stage.ts";
import type { BlobStore } from "../io/blob-store.ts";
import { readJsonl } from "../io/jsonl.ts";
import { uniqueKey } from "../pipeline/dedup-stage.ts";
import { groupStage } from "../pipeline/group-stage.ts";
import { layout } from "./layout.ts";
import type { RunManifest } from "./manifest.ts";
import { marker, readMarker, writeMarker, type TaskMarker } from "./markers.ts";
import { PartitionedWriter } from "./partitioned-writer.ts";

export async function runGroupTask(manifest: RunManifest, partition: number, work: BlobStore): Promise<TaskMarker> {
  const doneName = layout.groupDone(partition);
  const existing = await readMarker(work, doneName);
  if (existing && existing.fingerprint === manifest.fingerprint) return existing;

  const counters = new Counters();
  async function* refs() {
    for (const shard of manifest.shards) {
      yield* readJsonl(work, layout.extractPart(shard.id, partition), ShuffleRef);
    }
  }
  const out = new PartitionedWriter(work, (q) => layout.groupPart(partition, q));
  try {
    for await (const pair of groupStage(manifest.config).run(refs(), silentContext(counters))) {
      await out.write(partitionOf(uniqueKey(pair), manifest.config.partitions), pair);
      counters.inc(`group.${pair.tier}.pairs`);
    }
  } catch (err) {
    await out.abort();
    throw err;
  }
  await out.close();
  counters.inc("group.partitions");
  const m = marker(`group:${partition}`, manifest.fingerprint, counters);
  await writeMarker(work, doneName, m);
  return m;
}
