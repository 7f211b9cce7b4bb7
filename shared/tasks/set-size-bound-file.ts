/**
 * The run's equivalence-set size bound (thesis §5.1.2), kept in the work store between the group
 * phase, whose tasks count set-size moments, and the dedup phase, which drops sets above it.
 */
import { WEB_SET_COUNTERS } from "../core/counter-names.ts";
import type { BlobStore } from "../io/blob-store.ts";
import { boundFromMoments } from "../pipeline/set-size-bound.ts";
import { layout } from "./layout.ts";
import type { RunManifest } from "./manifest.ts";
import { readMarker } from "./markers.ts";

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
      images += c[WEB_SET_COUNTERS.images] ?? 0;
      m.sets += c[WEB_SET_COUNTERS.sets] ?? 0;
      m.sum += c[WEB_SET_COUNTERS.sum] ?? 0;
      m.sumSq += c[WEB_SET_COUNTERS.sumSq] ?? 0;
    }
  }
  const max = z === null || images === 0 ? null : boundFromMoments(m, z).max;
  await work.writeText(SET_SIZE_BOUND, JSON.stringify({ max: max === Infinity ? "Infinity" : max }) + "\n");
}

/** The bound written by writeSetSizeBound; null when no image came from a caption list (or none was written). */
export async function readSetSizeBound(work: BlobStore): Promise<number | null> {
  const text = await work.readText(SET_SIZE_BOUND);
  if (text === null) return null;
  const { max } = JSON.parse(text) as { max: number | "Infinity" | null };
  return max === "Infinity" ? Infinity : max;
}
