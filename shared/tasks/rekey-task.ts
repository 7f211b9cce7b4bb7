/**
 * The rekey phase of the pixel pipeline: one partition of `refs` (by the source's image key) meets
 * the facts of its images (`image-facts`, partitioned by the same key) and the index's groups, and
 * re-produces `refs` keyed by pixel identity (md5 of the pixels, or the group's centre hash), so
 * the group phase pairs captions only inside a group. Images without bytes, that do not decode or
 * fail the thesis' filters are dropped here: one funnel row (`image_pixels_thesis_v1`) with the
 * reason of each drop, weighted by references like every image row.
 */
import { filterCounter, pixelIdentityCounter } from "../core/counter-names.ts";
import type { Counters } from "../core/counters.ts";
import { countFilterVerdict, exampleOf } from "../core/filter.ts";
import { partitionOf } from "../core/hash.ts";
import { isPixelPivot } from "../core/plugin-names.ts";
import { ShuffleRef } from "../core/records.ts";
import { countImageRow, useState } from "../pipeline/funnel.ts";
import { tierInput } from "../pipeline/tiers.ts";
import { ImageFactsRecord, identityKey, pixelIdentity, pixelIdentityInfo, pixelVerdict } from "../pixels/pixel-identity.ts";
import { withWriter } from "./datasets.ts";
import { IMAGE_GROUPS, REVISIT_FACTS, type ImageGroups } from "./hash-index-task.ts";
import { partitionOfUnit, partitionTask, type UnitContext } from "./phase-task.ts";
import { IMAGE_FACTS } from "./pixel-extract-task.ts";

export const rekeyPhase = partitionTask({
  name: "rekey",
  next: "group",
  reads: [],
  writes: ["work"],
  memory: "1Gi",
  consumes: ["refs", IMAGE_FACTS.name, REVISIT_FACTS.name],
  produces: [{ name: "refs", schema: ShuffleRef }],
  configKeys: ["tiers", "partitions", "pivot", "pixels"],
  funnelFilters: () => [pixelIdentityInfo],
  run: rekeyPartition,
});

async function rekeyPartition(ctx: UnitContext): Promise<void> {
  const q = partitionOfUnit("rekey", ctx.unit);
  const { manifest, counters } = ctx;
  const { config } = manifest;
  if (!isPixelPivot(config.pivot)) throw new Error(`the pixel pipeline needs a pixel pivot, not "${config.pivot}"`);
  const id = pixelIdentity(config.pivot, config.pixels);
  const groups = await ctx.summary<ImageGroups>(IMAGE_GROUPS.name);
  if (!groups) throw new Error("rekey: the hash-index phase wrote no image groups");
  // the index's counts and the mode, once per run
  if (q === 0) {
    for (const [k, v] of Object.entries(groups.stats)) counters.inc(pixelIdentityCounter(`index.${k}`), v);
    counters.inc(pixelIdentityCounter(`mode.${id.mode}`));
    counters.inc(pixelIdentityCounter("threshold"), id.threshold);
    counters.inc(pixelIdentityCounter("max_diameter"), id.maxDiameter);
  }

  const facts = new Map<string, ImageFactsRecord["facts"]>();
  // the shards' facts first, then those of revisits resolved across shards (the first record of a key wins)
  for (const name of [IMAGE_FACTS.name, REVISIT_FACTS.name]) for await (const r of ctx.read<ImageFactsRecord>(name).read(q)) if (!facts.has(r.image)) facts.set(r.image, r.facts);
  // one partition's references by image, in the order met (bounded by the partition, as in the group phase)
  const byImage = new Map<string, ShuffleRef[]>();
  for await (const ref of ctx.read<ShuffleRef>("refs").read(q)) {
    const list = byImage.get(ref.image);
    if (list) list.push(ref);
    else byImage.set(ref.image, [ref]);
  }
  await withWriter(ctx.write<ShuffleRef>("refs"), async (out) => {
    for (const [image, refs] of byImage) {
      const f = facts.get(image);
      const verdict = pixelVerdict(f);
      countRow(counters, config.tiers, image, refs, verdict === true ? true : verdict.drop);
      if (verdict !== true || !f?.ok) continue;
      const key = identityKey(id, f, Object.hasOwn(groups.centres, image) ? groups.centres[image] : undefined);
      for (const ref of refs) await out.write(partitionOf(key, config.partitions), { ...ref, image: key });
    }
  });
}

/**
 * The row's filter counts and, for kept images, its funnel columns, in every tier the references
 * feed; a dropped image is an example of its reason, as the image rows' filters give (the image, on a page).
 */
function countRow(counters: Counters, tiers: readonly string[], image: string, refs: readonly ShuffleRef[], verdict: true | string): void {
  for (const tier of tiers) {
    const mine = refs.filter((r) => r.kind === tierInput(tier));
    if (mine.length === 0) continue;
    countFilterVerdict(pixelIdentityInfo, counters, tier, verdict, mine.reduce((n, r) => n + r.uses, 0));
    if (verdict === true) countImageRow(counters, tier, pixelIdentityInfo.id, mine.map(useState));
    else counters.samples.add(filterCounter(tier, pixelIdentityInfo.id, "dropped", verdict), exampleOf({ image, page: mine[0]!.page })!);
  }
}
