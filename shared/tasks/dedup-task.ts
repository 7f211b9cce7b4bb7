/** Dedup task: one pair partition from every group partition → filtered, scored pairs per tier, sorted by id. */
import { Counters } from "../core/counters.ts";
import { CandidatePair } from "../core/records.ts";
import { silentContext } from "../core/stage.ts";
import type { BlobStore } from "../io/blob-store.ts";
import { JsonlWriter, readJsonl } from "../io/jsonl.ts";
import { dedupStage } from "../pipeline/dedup-stage.ts";
import { boundFromMoments } from "../pipeline/set-size-bound.ts";
import { layout } from "./layout.ts";
import type { RunManifest } from "./manifest.ts";
import { marker, readMarker, writeMarker, type TaskMarker } from "./markers.ts";

export async function runDedupTask(manifest: RunManifest, partition: number, work: BlobStore): Promise<TaskMarker> {
  const doneName = layout.dedupDone(partition);
  const existing = await readMarker(work, doneName);
  if (existing && existing.fingerprint === manifest.fingerprint) return existing;

  const counters = new Counters();
  const setSizeMax = await runSetSizeBound(manifest, work);
  async function* pairs() {
    for (let p = 0; p < manifest.config.partitions; p++) {
      yield* readJsonl(work, layout.groupPart(p, partition), CandidatePair);
    }
  }
  // Every tier gets an object, even an empty one, so the aggregate can tell "no pairs" from "missing".
  const writers = new Map(manifest.config.tiers.map((t) => [t, new JsonlWriter(work.writer(layout.dedupPart(partition, t)))]));
  try {
    for await (const pair of dedupStage(manifest.config, { setSizeMax }).run(pairs(), silentContext(counters))) {
      await writers.get(pair.tier as (typeof manifest.config.tiers)[number])!.write(pair);
    }
  } catch (err) {
    for (const w of writers.values()) await w.abort();
    throw err;
  }
  for (const w of writers.values()) await w.close();
  counters.inc("dedup.partitions");
  const m = marker(`dedup:${partition}`, manifest.fingerprint, counters);
  await writeMarker(work, doneName, m);
  return m;
}

/**
 * The run's equivalence-set size bound, from the set-size moments every group task counted (all
 * group tasks are done before any dedup task starts); null when no image came from a caption list.
 */
async function runSetSizeBound(manifest: RunManifest, work: BlobStore): Promise<number | null> {
  const z = manifest.config.images.setSizeZ;
  if (z === null) return null;
  let images = 0;
  const m = { sets: 0, sum: 0, sumSq: 0 };
  for (let p = 0; p < manifest.config.partitions; p++) {
    const c = (await readMarker(work, layout.groupDone(p)))?.counters ?? {};
    images += c["group.web.images"] ?? 0;
    m.sets += c["group.web.sets"] ?? 0;
    m.sum += c["group.web.sets.sum"] ?? 0;
    m.sumSq += c["group.web.sets.sum_sq"] ?? 0;
  }
  return images === 0 ? null : boundFromMoments(m, z).max;
}
