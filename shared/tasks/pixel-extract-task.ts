/**
 * The shard phase of the pixel pipeline: the extract phase's references (`refs`, by image key), plus
 * each image's facts and hashes (`image-facts`, partitioned by the same key, so a partition of refs
 * meets the facts of its images). Every image's bytes are decoded once per content (sha256) through
 * the run's item cache (pixels/pixel-judge.ts), so a rerun or a retried task reads instead of
 * decoding and gives byte-identical records. Decodes overlap (sharp works on libuv's pool) while the
 * documents stay in order.
 *
 * For the index phase it also writes each taking-part image's hash of the run's mode (`image-hashes`)
 * to the hash-index tasks that read it (pixels/index-slices.ts), so an index task reads only what its
 * slices store or probe from instead of every image of the run.
 *
 * A crawl's revisits the source could not resolve in the shard (image-bytes.ts) go to
 * `revisit-wants`, by the key naming their original, and every image capture's facts to
 * `image-captures`, once per key a revisit may name it by: the hash-index tasks join the two.
 */
import { corruptShardsCounter, extractCounter, pixelIdentityCounter } from "../core/counter-names.ts";
import type { Counters } from "../core/counters.ts";
import { partitionOf } from "../core/hash.ts";
import { InputKind, ShuffleRef } from "../core/records.ts";
import type { StageContext } from "../core/stage.ts";
import { collapseUses, documentExtractor, type RevisionRefs } from "../pipeline/extract-stage.ts";
import { z } from "zod";
import { isPixelPivot } from "../core/plugin-names.ts";
import { hashFromHex } from "../pixels/hashes.ts";
import { indexLayout, tasksNeeding, type IndexLayout } from "../pixels/index-slices.ts";
import { ImageFactsRecord, pixelIdentity, pixelVerdict } from "../pixels/pixel-identity.ts";
import { PIXEL_FACTS_DECODE, PixelFactsSchema, pixelFacts, type PixelFacts } from "../pixels/pixel-judge.ts";
import type { DecodeOptions } from "../pixels/decode.ts";
import { THESIS_IMAGE_BOUNDS } from "../pixels/image-filters.ts";
import { imageBytesOf, revisitLinksOf, type ImageBytes } from "../sources/image-bytes.ts";
import type { ShardSpec } from "../sources/shard-spec.ts";
import type { AnySource } from "../sources/source.ts";
import { extractPhase } from "./extract-task.ts";
import { taskStageContext } from "./item-cache.ts";
import type { DatasetWriter } from "./datasets.ts";
import type { UnitContext, UnitOutcome, UnitPhase } from "./phase-task.ts";

/** Documents whose images are being decoded at once. */
const IN_FLIGHT = 8;

export const IMAGE_FACTS = { name: "image-facts", schema: ImageFactsRecord };

/** A distinct hash of the run's mode, in the partition of each hash-index task that needs it. */
export const ImageHashRecord = z.object({ hash: z.string().regex(/^[0-9a-f]{16}$/) });
export type ImageHashRecord = z.infer<typeof ImageHashRecord>;
export const IMAGE_HASHES = { name: "image-hashes", schema: ImageHashRecord };

/** An image capture's facts under one key a revisit may name it by. */
export const ImageCaptureRecord = z.object({ key: z.string(), facts: PixelFactsSchema.nullable() });
export type ImageCaptureRecord = z.infer<typeof ImageCaptureRecord>;
export const IMAGE_CAPTURES = { name: "image-captures", schema: ImageCaptureRecord };

/** A revisit its shard could not resolve (image-bytes.ts PendingRevisit), with where it was read. */
export const RevisitWantRecord = z.object({ original: z.string(), image: z.string().nullable(), counted: z.boolean(), source: z.string(), kind: InputKind });
export type RevisitWantRecord = z.infer<typeof RevisitWantRecord>;
export const REVISIT_WANTS = { name: "revisit-wants", schema: RevisitWantRecord };

export const pixelExtractPhase: UnitPhase = {
  ...extractPhase,
  unit: "shard",
  next: "hash-index",
  produces: [...extractPhase.produces, IMAGE_FACTS, IMAGE_HASHES, IMAGE_CAPTURES, REVISIT_WANTS],
  // the mode and threshold decide which hash is written and to which index tasks
  configKeys: [...extractPhase.configKeys, "pixels"],
  run: (ctx) => {
    if (ctx.unit.unit !== "shard") throw new Error(`extract runs on shards, not on ${ctx.unit.unit}s`);
    return pixelExtractShard(ctx, ctx.unit.shard);
  },
};

async function pixelExtractShard(ctx: UnitContext, shard: ShardSpec): Promise<UnitOutcome> {
  const { manifest, runner, counters } = ctx;
  const partitions = manifest.config.partitions;
  const source = runner.sources.get(shard.source);
  const docs = source.documents(shard, runner.bytes(shard), manifest.config, counters);
  const refsOut = ctx.write<ShuffleRef>("refs");
  const factsOut = ctx.write<ImageFactsRecord>(IMAGE_FACTS.name);
  const hashesOut = ctx.write<ImageHashRecord>(IMAGE_HASHES.name);
  const capturesOut = ctx.write<ImageCaptureRecord>(IMAGE_CAPTURES.name);
  const wantsOut = ctx.write<RevisitWantRecord>(REVISIT_WANTS.name);
  const writers = [refsOut, factsOut, hashesOut, capturesOut, wantsOut];
  const revisions = withPixels(source, docs, shard, ctx, { facts: factsOut, captures: capturesOut, wants: wantsOut }, indexHashWriter(manifest.config, hashesOut));
  let outcome: UnitOutcome = { status: "ok", error: null };
  try {
    for await (const ref of collapseUses(revisions, counters)) {
      await refsOut.write(partitionOf(ref.image, partitions), ref);
      counters.inc(extractCounter(ref.kind, "shuffle_records"));
    }
  } catch (err) {
    if (!runner.isCorruptInput(err)) {
      await Promise.all(writers.map((w) => w.abort()));
      throw err;
    }
    outcome = { status: "corrupt", error: err instanceof Error ? err.message : String(err), damage: { file: shard.uri, offset: typeof (err as { offset?: unknown }).offset === "number" ? (err as { offset: number }).offset : null } };
    counters.inc(corruptShardsCounter(pixelExtractPhase.name));
  }
  for (const w of writers) await w.close();
  return outcome;
}

/**
 * Writes an image's hash (once per distinct value in the shard) to the index tasks that need it;
 * images that do not take part (no bytes, undecodable, failing the thesis' filters) and md5 runs
 * (grouped by exact key, no index) write nothing.
 */
function indexHashWriter(config: UnitContext["manifest"]["config"], out: DatasetWriter<ImageHashRecord>): (facts: PixelFacts | null) => Promise<void> {
  const mode = config.pivot;
  if (!isPixelPivot(mode) || mode === "md5") return async () => {};
  const layout: IndexLayout = indexLayout(pixelIdentity(mode, config.pixels).threshold, config.partitions);
  const written = new Set<string>();
  return async (facts) => {
    if (!facts?.ok || pixelVerdict(facts) !== true) return;
    const hash = facts[mode];
    if (written.has(hash)) return;
    written.add(hash);
    for (const q of tasksNeeding(hashFromHex(hash), layout)) await out.write(q, { hash });
  };
}

interface PixelWriters {
  facts: DatasetWriter<ImageFactsRecord>;
  captures: DatasetWriter<ImageCaptureRecord>;
  wants: DatasetWriter<RevisitWantRecord>;
}

/**
 * The shard's revisions, in document order, while each document's images are decoded (a window of
 * IN_FLIGHT documents) and their facts written once per image key; pending revisits are written,
 * not extracted.
 */
async function* withPixels(source: AnySource, docs: AsyncIterable<unknown>, shard: ShardSpec, ctx: UnitContext, out: PixelWriters, indexHash: (facts: PixelFacts | null) => Promise<void>): AsyncGenerator<RevisionRefs> {
  const { counters, manifest } = ctx;
  const { partitions } = manifest.config;
  const extract = documentExtractor(source, manifest.config, counters, await source.prepare?.(manifest.config));
  const imagesOf = imageBytesOf(source);
  const links = revisitLinksOf(source);
  const stage = taskStageContext(ctx.work, counters);
  // the pixel MD5 costs a pass over every decoded byte: only the md5 pivot reads it
  const decode: DecodeOptions = { ...PIXEL_FACTS_DECODE, md5: manifest.config.pivot === "md5" };
  const written = new Set<string>();
  const window: { rev: RevisionRefs; images: Promise<{ image: string; facts: PixelFacts | null }[]>; captureKeys: readonly string[] }[] = [];
  const drain = async () => {
    const { rev, images, captureKeys } = window.shift()!;
    const found = await images;
    for (const r of found) {
      if (written.has(r.image)) continue;
      written.add(r.image);
      await out.facts.write(partitionOf(r.image, partitions), r);
      await indexHash(r.facts);
    }
    // a capture is one image: its facts under every key a revisit may name it by
    if (found.length === 1) for (const key of captureKeys) await out.captures.write(partitionOf(key, partitions), { key, facts: found[0]!.facts });
    return rev;
  };
  try {
    for await (const doc of docs) {
      const pending = links?.pendingRevisitOf(doc);
      if (pending) {
        await out.wants.write(partitionOf(pending.original, partitions), { ...pending, source: shard.source, kind: shard.kind });
        continue;
      }
      const rev = extract(doc, shard.kind);
      window.push({ rev, images: Promise.all((imagesOf?.(doc) ?? []).map((img) => factsOf(img, stage, counters, decode))), captureKeys: links?.captureKeysOf(doc) ?? [] });
      if (window.length >= IN_FLIGHT) yield await drain();
    }
  } catch (err) {
    // a source that stops on damage (a cut tar, a WARC with a bad record) has still handed on the
    // documents in the window: they were read, so they go on, and their decoding ends before the error does
    while (window.length > 0) yield await drain();
    throw err;
  }
  while (window.length > 0) yield await drain();
}

async function factsOf(img: ImageBytes, stage: StageContext, counters: Counters, decode: DecodeOptions): Promise<{ image: string; facts: PixelFacts | null }> {
  // images the header already puts outside the thesis' bounds (the rekey phase judges by them) are not decoded
  const facts = img.bytes === null ? null : await pixelFacts(img.bytes, stage, decode, THESIS_IMAGE_BOUNDS);
  countImageFacts(counters, facts);
  return { image: img.image, facts };
}

/** Counts one image of the run by its facts (null: no bytes), wherever they were found (a revisit joined later too). */
export function countImageFacts(counters: Counters, facts: PixelFacts | null): void {
  counters.inc(pixelIdentityCounter("images"));
  if (facts === null) return counters.inc(pixelIdentityCounter("no_bytes"));
  counters.inc(pixelIdentityCounter(facts.ok ? "decoded" : facts.header ? `outside_bounds.${facts.reason}` : `failed.${facts.reason}`));
  // decoded, then outside the bounds (transparency, a canvas its header did not tell): no hash is indexed for it
  const verdict = facts.ok ? pixelVerdict(facts) : true;
  if (verdict !== true) counters.inc(pixelIdentityCounter(`decoded_outside_bounds.${verdict.drop}`));
}
