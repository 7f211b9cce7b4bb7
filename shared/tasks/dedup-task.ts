/** Dedup task: one pair partition from every group partition → filtered, scored pairs per tier, sorted by id. */
import { Counters } from "../core/counters.ts";
import { CandidatePair } from "../core/records.ts";
import { silentContext } from "../core/stage.ts";
import type { BlobStore } from "../io/blob-store.ts";
import { JsonlWriter, readJsonl } from "../io/jsonl.ts";
import { dedupStage } from "../pipeline/dedup-stage.ts";
import { layout } from "./layout.ts";
import type { RunManifest } from "./manifest.ts";
import { marker, readMarker, writeMarker, type TaskMarker } from "./markers.ts";

export async function runDedupTask(manifest: RunManifest, partition: number, work: BlobStore): Promise<TaskMarker> {
  const doneName = layout.dedupDone(partition);
  const existing = await readMarker(work, doneName);
  if (existing && existing.fingerprint === manifest.fingerprint) return existing;

  const counters = new Counters();
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
    for await (const pair of dedupStage(manifest.config).run(pairs(), silentContext(counters))) {
      await writers.get(pair.tier as (typeof manifest.config.tiers)[number])!.write(pair);
    }
  } catch (err) {
    for (const w of writers.values()) await w.abort();
    throw err;
  }
  for (const w of writers.values()) await w.close();
  counters.inc("dedup.partitions");
  const m = marker(`dedup:${partition}`, manifest.fingerprint, counters.toJSON());
  await writeMarker(work, doneName, m);
  return m;
}
