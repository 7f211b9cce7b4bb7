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

/** Where the run's equivalence-set size bound is kept between the group and dedup phases. */
const SET_SIZE_BOUND = "group/_SET_SIZE_BOUND.json";

/**
 * Computes the run's equivalence-set size bound from the set-size moments every group task counted
 * and stores it for the dedup tasks: called once when the group phase is complete (local runner,
 * cloud group fan-in), so a dedup task reads one object, not one marker per partition. Deterministic:
 * a repeated call writes the same bytes.
 */
export async function writeSetSizeBound(manifest: RunManifest, work: BlobStore): Promise<void> {
  if ((await work.readText(SET_SIZE_BOUND)) !== null) return; // a resumed run: already there
  const z = manifest.config.images.setSizeZ;
  let images = 0;
  const m = { sets: 0, sum: 0, sumSq: 0 };
  if (z !== null) {
    for (let p = 0; p < manifest.config.partitions; p++) {
      const c = (await readMarker(work, layout.groupDone(p)))?.counters ?? {};
      images += c["group.web.images"] ?? 0;
      m.sets += c["group.web.sets"] ?? 0;
      m.sum += c["group.web.sets.sum"] ?? 0;
      m.sumSq += c["group.web.sets.sum_sq"] ?? 0;
    }
  }
  const max = z === null || images === 0 ? null : boundFromMoments(m, z).max;
  await work.writeText(SET_SIZE_BOUND, JSON.stringify({ max: max === Infinity ? "Infinity" : max }) + "\n");
}

/** The bound written by writeSetSizeBound; null when no image came from a caption list (or none was written). */
async function readSetSizeBound(work: BlobStore): Promise<number | null> {
  const text = await work.readText(SET_SIZE_BOUND);
  if (text === null) return null;
  const { max } = JSON.parse(text) as { max: number | "Infinity" | null };
  return max === "Infinity" ? Infinity : max;
}
