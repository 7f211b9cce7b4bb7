/** Dedup task: one partition of `pairs` from every group task → filtered, scored pairs per tier (`scored`), sorted by id. */
import { phaseShape } from "../core/phase-names.ts";
import { CandidatePair, ScoredPair } from "../core/records.ts";
import { dedupStage } from "../pipeline/dedup-stage.ts";
import { taskStageContext } from "./item-cache.ts";
import { withWriter } from "./datasets.ts";
import { partitionOfUnit, partitionTask, type UnitContext } from "./phase-task.ts";
import { SET_SIZE_BOUND, setSizeMax } from "./set-size-bound-file.ts";
import { spillingSorter } from "./sorted-groups.ts";

/** Work-store folder of the sorted runs of a partition's pairs (see sortedRecords). */
const SPILL_DIR = "spill/dedup";
/**
 * Pairs held before a sorted run is written: ~0.9 KB each with its key, and a task holds two sorts'
 * worth (the survivors' run fills while the candidates' runs are merged), on every worker at once.
 */
const RUN_PAIRS = 16_384;

export const dedupPhase = partitionTask({
  ...phaseShape("dedup"),
  consumes: ["pairs"],
  // one part per tier, so the aggregate merges a tier without reading the others
  produces: [{ name: "scored", schema: ScoredPair, parts: (config) => config.tiers }],
  // (preset: ROUGE and BLEU tokens, rouge-tokens.ts)
  configKeys: ["preset", "tiers", "partitions", "images", "captions", "pairs", "scoring"],
  workDirs: [SPILL_DIR],
  run: dedupPartition,
});

async function dedupPartition(ctx: UnitContext): Promise<void> {
  const partition = partitionOfUnit("dedup", ctx.unit);
  const { manifest, counters } = ctx;
  const bound = setSizeMax(await ctx.summary<{ max: number | "Infinity" | null }>(SET_SIZE_BOUND.name));
  const pairs = ctx.read<CandidatePair>("pairs").read(partition);
  await withWriter(ctx.write<ScoredPair>("scored"), async (out) => {
    // a partition's pairs are sorted in bounded runs (spill/dedup/), not held whole
    const sort = spillingSorter(ctx.work, `${SPILL_DIR}/q-${partition}`, { runRecords: RUN_PAIRS });
    for await (const pair of dedupStage(manifest.config, { setSizeMax: bound, sort }).run(pairs, taskStageContext(ctx.work, counters))) {
      await out.write(partition, pair, pair.tier);
    }
    // Every tier gets an object, even an empty one, so the aggregate can tell "no pairs" from "missing".
    await out.touch(partition, manifest.config.tiers);
  });
}
