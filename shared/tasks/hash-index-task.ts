/**
 * The near-duplicate index phase of the pixel pipeline: images whose perceptual hashes are within
 * the mode's Hamming threshold become one group (pixels/hash-index.ts: multi-index hashing, exact
 * recall, no pair of all images compared).
 *
 * Partitioned so tasks stay independent: the index's work is cut into slices (chunk c, top bits of
 * the chunk value; pixels/index-slices.ts), partition task q does the slices s ≡ q (mod partitions)
 * and writes the edges it finds (`image-edges`, between hash values); every pair within the
 * threshold is found by exactly one slice. A task reads only its partition of `image-hashes`: the
 * distinct hashes its slices store or probe from, which the shard phase wrote there. After the last
 * task, one step connects the edges into groups with the chaining guard (a component wider than
 * `maxDiameter` is split around centres, counted) and stores image key → group centre as the summary
 * `image-groups`, which the rekey phase reads. That step reads every image's facts once (the first
 * record of an image key wins, as in rekey) and needs all of them: the guard measures distances
 * across a whole component, which may span every slice. md5 needs no index: its groups are exact keys.
 *
 * Its tasks also resolve the crawl's revisits across shards (pixel-extract-task.ts): task q holds the
 * image captures of partition q (by the keys a revisit may name them by; the first capture in the
 * run's order wins), streams the pending revisits of that partition past them and writes each
 * resolved revisit's facts under its own image key (`revisit-facts`, read after `image-facts` by the
 * grouping step and by rekey) and counts it as its shard counts one it resolves. Done here rather
 * than in a phase of its own so that runs with nothing to join keep their phases and outputs; the
 * revisit's hash is its original's, which the original's shard wrote to `image-hashes` already.
 */
import { z } from "zod";
import { pixelIdentityCounter } from "../core/counter-names.ts";
import type { ParacapConfig } from "../core/config.ts";
import { isPixelPivot } from "../core/plugin-names.ts";
import type { BlobStore } from "../io/blob-store.ts";
import { collapseIdentical, candidateEdges, groupEdges, packHashes, type Edge, type HashedItem, type PackedHashes } from "../pixels/hash-index.ts";
import { hashFromHex, hashToHex, type PerceptualMode } from "../pixels/hashes.ts";
import { indexLayout, pairwiseSliceEdges, PAIRWISE_MAX } from "../pixels/index-slices.ts";
import { ImageFactsRecord, perceptualHashOf, pixelIdentity, pixelVerdict, type PixelIdentity } from "../pixels/pixel-identity.ts";
import { DatasetReader, taskFileName, withWriter, type SummarySpec } from "./datasets.ts";
import type { RunManifest } from "./manifest.ts";
import { partitionOfUnit, partitionTask, unitsOf, type Phase, type PhaseEndContext, type UnitContext, type UnitPhase } from "./phase-task.ts";
import { countImageFacts, IMAGE_CAPTURES, IMAGE_FACTS, IMAGE_HASHES, REVISIT_WANTS, type ImageCaptureRecord, type ImageHashRecord, type RevisitWantRecord } from "./pixel-extract-task.ts";
import { partitionOf } from "../core/hash.ts";
import { revisitLinksOf } from "../sources/image-bytes.ts";

/** Two hash values (hex) within the threshold. */
export const ImageEdge = z.object({ a: z.string(), b: z.string(), distance: z.number().int().min(0).max(64) });
export type ImageEdge = z.infer<typeof ImageEdge>;

export const ImageGroups = z.object({
  mode: z.string(),
  threshold: z.number().int(),
  maxDiameter: z.number().int(),
  /** the index's counts (hashes, edges, components, split_components, split_singletons, groups, grouped_images) */
  stats: z.record(z.string(), z.number()),
  /** image key → hex hash of its group's centre, for images in a group of ≥ 2 */
  centres: z.record(z.string(), z.string()),
});
export type ImageGroups = z.infer<typeof ImageGroups>;

export const IMAGE_GROUPS: SummarySpec<ImageGroups> = { name: "image-groups", schema: ImageGroups };

/** A revisit resolved across shards: its own image key with its original capture's facts. */
export const REVISIT_FACTS = { name: "revisit-facts", schema: ImageFactsRecord };

export const hashIndexPhase = partitionTask({
  name: "hash-index",
  next: "rekey",
  reads: [],
  writes: ["work"],
  memory: "2Gi",
  consumes: [IMAGE_HASHES.name, IMAGE_CAPTURES.name, REVISIT_WANTS.name],
  produces: [{ name: "image-edges", schema: ImageEdge }, REVISIT_FACTS],
  summaries: [IMAGE_GROUPS],
  configKeys: ["partitions", "pivot", "pixels"],
  run: indexSlices,
  afterPhase: connectGroups,
});

function identityOf(config: ParacapConfig): PixelIdentity {
  if (!isPixelPivot(config.pivot)) throw new Error(`the pixel pipeline needs a pixel pivot, not "${config.pivot}"`);
  return pixelIdentity(config.pivot, config.pixels);
}

/** Every image that takes part, once per key (first record wins: its shards' facts, then a revisit's joined ones), as hashes collapsed to distinct values. */
async function indexInput(facts: readonly DatasetReader<ImageFactsRecord>[], partitions: number, mode: PerceptualMode): Promise<{ unique: PackedHashes; copies: string[][] }> {
  const items: HashedItem[] = [];
  const seen = new Set<string>();
  for (let q = 0; q < partitions; q++) {
    for (const reader of facts) {
      for await (const r of reader.read(q)) {
        if (seen.has(r.image)) continue;
        seen.add(r.image);
        if (r.facts?.ok && pixelVerdict(r.facts) === true) items.push({ key: r.image, hash: perceptualHashOf(r.facts, mode) });
      }
    }
  }
  return collapseIdentical(packHashes(items));
}

async function indexSlices(ctx: UnitContext): Promise<void> {
  await joinRevisits(ctx, partitionOfUnit("hash-index", ctx.unit));
  await indexPartition(ctx);
}

/**
 * The pending revisits of partition q met with the image captures of partition q (both keyed by how
 * a revisit names its original): memory holds one partition's captures, the revisits stream past.
 */
async function joinRevisits(ctx: UnitContext, q: number): Promise<void> {
  const { manifest, counters, runner } = ctx;
  await withWriter(ctx.write<ImageFactsRecord>(REVISIT_FACTS.name), async (out) => {
    const captures = new Map<string, ImageCaptureRecord["facts"]>();
    for await (const c of ctx.read<ImageCaptureRecord>(IMAGE_CAPTURES.name).read(q)) if (!captures.has(c.key)) captures.set(c.key, c.facts);
    if (captures.size === 0) return;
    for await (const want of ctx.read<RevisitWantRecord>(REVISIT_WANTS.name).read(q)) {
      if (!captures.has(want.original)) continue;
      const facts = captures.get(want.original)!;
      const links = revisitLinksOf(runner.sources.get(want.source));
      if (!links) throw new Error(`source "${want.source}" handed on a revisit but cannot count one resolved (image-bytes.ts countResolvedRevisit)`);
      links.countResolvedRevisit(want, want.kind, counters);
      if (want.image === null) continue;
      countImageFacts(counters, facts);
      await out.write(partitionOf(want.image, manifest.config.partitions), { image: want.image, facts });
    }
  });
}

async function indexPartition(ctx: UnitContext): Promise<void> {
  const q = partitionOfUnit("hash-index", ctx.unit);
  const { manifest, counters } = ctx;
  const id = identityOf(manifest.config);
  await withWriter(ctx.write<ImageEdge>("image-edges"), async (out) => {
    if (id.mode === "md5") return;
    // this task's partition: the distinct hashes its slices store or probe from (keyed by their hex)
    const values = new Set<string>();
    for await (const r of ctx.read<ImageHashRecord>(IMAGE_HASHES.name).read(q)) values.add(r.hash);
    const unique = packHashes([...values].map((hex) => ({ key: hex, hash: hashFromHex(hex) })));
    const layout = indexLayout(id.threshold, manifest.config.partitions);
    const { plan, slices } = layout;
    const mine: number[] = [];
    for (let s = q; s < slices.length; s += manifest.config.partitions) mine.push(s);
    // a few thousand hashes: every pair compared costs less than the plan's tables (same edges, same order)
    const pairwise = unique.keys.length <= PAIRWISE_MAX ? pairwiseSliceEdges(unique, layout, mine) : null;
    for (const s of mine) {
      const { chunk, count, index } = slices[s]!;
      for (const e of pairwise?.get(s) ?? candidateEdges(unique, plan, chunk, { count, index })) {
        await out.write(q, { a: unique.keys[e.a]!, b: unique.keys[e.b]!, distance: e.distance });
        counters.inc(pixelIdentityCounter("index.edges"));
      }
    }
  });
}

/** The reader of a dataset as `self` reads it: written by the latest phase before it that produces it (or by itself). */
function readerFor(phases: readonly Phase[], self: UnitPhase, name: string, manifest: RunManifest, work: BlobStore): DatasetReader<unknown> {
  const upTo = phases.slice(0, phases.indexOf(self) + 1);
  const producer = [...upTo].reverse().find((p): p is UnitPhase => p.unit !== "once" && p.produces.some((d) => d.name === name));
  if (!producer) throw new Error(`phase "${self.name}": no phase produces "${name}"`);
  const spec = producer.produces.find((d) => d.name === name)!;
  return new DatasetReader(work, producer.name, spec, unitsOf(producer, manifest).map(taskFileName));
}

async function connectGroups({ manifest, work, phases, self, writeSummary }: PhaseEndContext): Promise<void> {
  const id = identityOf(manifest.config);
  const base = { mode: id.mode, threshold: id.threshold, maxDiameter: id.maxDiameter };
  if (id.mode === "md5") return writeSummary(IMAGE_GROUPS.name, { ...base, stats: {}, centres: {} });
  const partitions = manifest.config.partitions;
  const facts = [IMAGE_FACTS.name, REVISIT_FACTS.name].map((name) => readerFor(phases, self, name, manifest, work) as DatasetReader<ImageFactsRecord>);
  const { unique, copies } = await indexInput(facts, partitions, id.mode);
  const hexOf = new Map(unique.keys.map((k, i) => [k, hashToHex((BigInt(unique.hi[i]!) << 32n) | BigInt(unique.lo[i]!))]));
  // edges are between hash values; each distinct value of the index is one entry of `unique`
  const at = new Map(unique.keys.map((k, i) => [hexOf.get(k)!, i]));
  const edges: Edge[] = [];
  const edgeReader = readerFor(phases, self, "image-edges", manifest, work) as DatasetReader<ImageEdge>;
  for (let q = 0; q < partitions; q++) {
    for await (const e of edgeReader.read(q)) {
      const a = at.get(e.a);
      const b = at.get(e.b);
      // a value only a later record of an image key had (its first record, which wins, differs)
      if (a === undefined || b === undefined) continue;
      edges.push({ a: Math.min(a, b), b: Math.max(a, b), distance: e.distance });
    }
  }
  const { groups, stats } = groupEdges(unique, edges, { threshold: id.threshold, maxDiameter: id.maxDiameter }, copies);
  const centres = new Map<string, string>();
  for (const g of groups) {
    // the centre is a distinct hash's first key (collapseIdentical), so it is in the index
    const hex = hexOf.get(g.centre)!;
    for (const m of g.members) centres.set(m.key, hex);
  }
  await writeSummary(IMAGE_GROUPS.name, {
    ...base,
    stats: { hashes: stats.items, edges: stats.edges, components: stats.components, split_components: stats.splitComponents, split_singletons: stats.splitSingletons, groups: stats.groups, grouped_images: stats.groupedItems },
    // defined as own properties (any key, `__proto__` included, stays data)
    centres: Object.fromEntries(centres),
  });
}
