/** Group task: one image partition of `refs` from every shard → candidate pairs (`pairs`) partitioned by caption texts. */
import { groupPairsCounter, WEB_SET_COUNTERS } from "../core/counter-names.ts";
import { partitionOf } from "../core/hash.ts";
import { phaseShape } from "../core/phase-names.ts";
import { CandidatePair, ShuffleRef } from "../core/records.ts";
import { uniqueKey } from "../pipeline/dedup-stage.ts";
import { groupKeyOf, groupStage } from "../pipeline/group-stage.ts";
import { boundFromMoments } from "../pipeline/set-size-bound.ts";
import { SET_SIZE_BOUND } from "./set-size-bound-file.ts";
import { sortedGroups } from "./sorted-groups.ts";

/** Work-store folder of the sorted runs of a partition's references (see sortedGroups). */
const SPILL_DIR = "spill/group";
import { taskStageContext } from "./item-cache.ts";
import { readMarker } from "./markers.ts";
import { withWriter } from "./datasets.ts";
import { doneObject, partitionOfUnit, partitionTask, unitsOf, type PhaseEndContext, type UnitContext } from "./phase-task.ts";

export const groupPhase = partitionTask({
  ...phaseShape("group"),
  consumes: ["refs"],
  produces: [{ name: "pairs", schema: CandidatePair }],
  // The dedup tasks need the run's equivalence-set size bound, which needs every group partition.
  summaries: [SET_SIZE_BOUND],
  configKeys: ["tiers", "partitions", "images", "captions", "pairs", "pivot", "pivots"],
  workDirs: [SPILL_DIR],
  run: groupPartition,
  afterPhase: writeSetSizeBound,
});

async function groupPartition(ctx: UnitContext): Promise<void> {
  const partition = partitionOfUnit("group", ctx.unit);
  const { manifest, counters } = ctx;
  const refs = ctx.read<ShuffleRef>("refs").read(partition);
  await withWriter(ctx.write<CandidatePair>("pairs"), async (out) => {
    // the reference sources of web images, as the run's sources declare them (a caption list's row, a page's img)
    const webSources = new Set(ctx.runner.sources.all().flatMap((s) => s.webReferenceSources ?? []));
    // a partition's references are sorted by image in bounded runs (spill/group/), not held whole
    const groups = (records: AsyncIterable<ShuffleRef>) => sortedGroups(records, {
      key: groupKeyOf,
      store: ctx.work,
      run: (i) => `${SPILL_DIR}/q-${partition}/run-${i}.jsonl`,
      scratch: (level, i) => `${SPILL_DIR}/q-${partition}/merge-${level}-${i}.jsonl`,
    });
    for await (const pair of groupStage(manifest.config, { webSources, groups }).run(refs, taskStageContext(ctx.work, counters))) {
      await out.write(partitionOf(uniqueKey(pair), manifest.config.partitions), pair);
      counters.inc(groupPairsCounter(pair.tier));
    }
  });
}

/**
 * The run's equivalence-set size bound (thesis §5.1.2) from the set-size moments every group task
 * counted, stored once for the dedup tasks: deterministic, so a repeated call writes the same bytes.
 */
async function writeSetSizeBound({ manifest, work, self, writeSummary }: PhaseEndContext): Promise<void> {
  const z = manifest.config.images.setSizeZ;
  let images = 0;
  const m = { sets: 0, sum: 0, sumSq: 0 };
  if (z !== null) {
    for (const unit of unitsOf(self, manifest)) {
      const c = (await readMarker(work, doneObject(self.name, unit)))?.counters ?? {};
      images += c[WEB_SET_COUNTERS.images] ?? 0;
      m.sets += c[WEB_SET_COUNTERS.sets] ?? 0;
      m.sum += c[WEB_SET_COUNTERS.sum] ?? 0;
      m.sumSq += c[WEB_SET_COUNTERS.sumSq] ?? 0;
    }
  }
  const max = z === null || images === 0 ? null : boundFromMoments(m, z).max;
  await writeSummary(SET_SIZE_BOUND.name, { max: max === Infinity ? "Infinity" : max });
}
