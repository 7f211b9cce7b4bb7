/**
 * Extract task: one shard → references partitioned by hash(image key) (dataset `refs`) → marker.
 * A corrupt shard (truncated bz2, malformed XML) keeps what was read before the damage and is marked
 * "corrupt" with the error; the run goes on and the report lists it.
 *
 * Memory is flat in the references of a shard and of a page: revisions come in chunks of a few
 * thousand references (documentChunks), the records of a page past the first few thousand wait for the
 * page's end in the work store (collapseUses' spill, `spill/extract/`), and the partitioned writer's
 * buffers are bounded in total. Each stage pulls from the one before, so the decoder waits for them.
 */
import { corruptShardsCounter, extractCounter } from "../core/counter-names.ts";
import type { Counters } from "../core/counters.ts";
import { phaseShape } from "../core/phase-names.ts";
import { partitionOf, stableId } from "../core/hash.ts";
import { ShuffleRef } from "../core/records.ts";
import type { BlobStore, BlobWriter } from "../io/blob-store.ts";
import { readJsonl } from "../io/jsonl.ts";
import { collapseUses, extractInline, type RevisionRefs, type UseSpill } from "../pipeline/extract-stage.ts";
import type { ShardSpec } from "../sources/shard-spec.ts";
import type { AnySource } from "../sources/source.ts";
import type { SourceRegistry } from "../sources/registry.ts";
import type { RunManifest } from "./manifest.ts";
import { readMarker, type TaskMarker } from "./markers.ts";
import { doneObject, type PhaseEndContext, type UnitContext, type UnitOutcome, type UnitPhase } from "./phase-task.ts";

/** Work-store folder of the records a page holds until its end (see useSpill). */
const SPILL_DIR = "spill/extract";

/** The shard phase: what it reads, writes and names (shape in core/phase-names.ts). */
export const extractPhase: UnitPhase = {
  ...phaseShape("extract"),
  unit: "shard",
  consumes: [],
  produces: [{ name: "refs", schema: ShuffleRef }],
  workDirs: [SPILL_DIR],
  // what is read from the input, how documents become captions and features, the pivot, the partitioning
  // (preset: the page template's images are dropped unless preset paper, template-images.ts)
  configKeys: ["preset", "partitions", "dump", "extraction", "pivot", "pivots", "captions.maxChars", "captions.maxTokenChars", "captions.classifier"],
  run: (ctx) => {
    if (ctx.unit.unit !== "shard") throw new Error(`extract runs on shards, not on ${ctx.unit.unit}s`);
    return extractShard(ctx, ctx.unit.shard);
  },
  afterPhase: nothingRead,
};

async function extractShard(ctx: UnitContext, shard: ShardSpec): Promise<UnitOutcome> {
  const { manifest, runner, counters } = ctx;
  const partitions = manifest.config.partitions;
  const source = runner.sources.get(shard.source);
  const docs = source.documents(shard, runner.bytes(shard), manifest.config, counters);
  const revisions = runner.extractDocuments ? runner.extractDocuments(source, docs, shard, counters) : inlineExtract(source, docs, shard, manifest, counters);
  const out = ctx.write<ShuffleRef>("refs");
  const spill = useSpill(ctx.work, `${SPILL_DIR}/${stableId(shard.id)}`);
  let outcome: UnitOutcome = { status: "ok", error: null };
  try {
    for await (const ref of collapseUses(revisions, counters, { spill })) {
      await out.write(partitionOf(ref.image, partitions), ref);
      counters.inc(extractCounter(ref.kind, "shuffle_records"));
    }
  } catch (err) {
    if (!runner.isCorruptInput(err)) {
      await out.abort();
      throw err;
    }
    outcome = { status: "corrupt", error: err instanceof Error ? err.message : String(err), damage: damageOf(err, shard) };
    counters.inc(corruptShardsCounter(extractPhase.name));
  }
  await out.close();
  return outcome;
}

/**
 * No document read from any shard (not a format a source reads, garbage, every shard lost): the run
 * stops with the reason instead of publishing empty datasets.
 */
async function nothingRead({ manifest, work, sources, self }: PhaseEndContext): Promise<string | void> {
  const markers = await Promise.all(manifest.shards.map((s) => readMarker(work, doneObject(self.name, { unit: "shard", key: s.id, shard: s }))));
  if (markers.some((m, i) => (m?.counters[sources.get(manifest.shards[i]!.source).documentsCounter] ?? 0) > 0)) return unusableInputs(manifest, markers, sources);
  // the shards' errors, else what the reading kept as examples (a WARC not fetched, a damaged record)
  const examples = markers.flatMap((m) => Object.entries(m?.samples ?? {}).filter(([k]) => sources.isExtractionCounter(k)).flatMap(([, v]) => v));
  const errors = markers.map((m) => m?.error).filter((e): e is string => !!e);
  const why = [...new Set(errors.length > 0 ? errors : examples)].slice(0, 3).join("; ");
  const n = new Set(manifest.shards.map((s) => s.uri)).size;
  const what = [...new Set(manifest.shards.map((s) => sources.get(s.source).documentsNoun))].join(" or ") || "documents";
  return `no ${what} read from the input${n > 1 ? "s" : ""}${skippedSummary(markers, sources)}${why ? `: ${why}` : ""}`;
}

/**
 * Documents were read, but a source's inputs hold nothing to extract (sources/source.ts unusableInput): the run
 * stops with the reason when every source read says so; one usable source's inputs carry the run.
 */
function unusableInputs(manifest: PhaseEndContext["manifest"], markers: readonly (TaskMarker | null)[], sources: SourceRegistry): string | void {
  const bySource = new Map<string, Record<string, number>>();
  manifest.shards.forEach((s, i) => {
    const sum = bySource.get(s.source) ?? {};
    for (const [k, v] of Object.entries(markers[i]?.counters ?? {})) sum[k] = (sum[k] ?? 0) + v;
    bySource.set(s.source, sum);
  });
  const reasons: string[] = [];
  for (const [name, counters] of bySource) {
    const why = sources.get(name).unusableInput?.(counters) ?? null;
    if (why === null) return;
    reasons.push(why);
  }
  return reasons.join("; ");
}

/** What the reading skipped, summed over the shards: ` (skipped: 1 wet_file, 4 request)`, or "" when nothing was. */
function skippedSummary(markers: readonly (TaskMarker | null)[], sources: SourceRegistry): string {
  const skipped = new Map<string, number>();
  for (const m of markers) {
    for (const [k, v] of Object.entries(m?.counters ?? {})) {
      const at = k.indexOf(SKIPPED_INFIX);
      if (at < 0 || !sources.isExtractionCounter(k)) continue;
      const reason = k.slice(at + SKIPPED_INFIX.length);
      skipped.set(reason, (skipped.get(reason) ?? 0) + v);
    }
  }
  const parts = [...skipped].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([r, v]) => `${v.toLocaleString("en-US")} ${r}`);
  return parts.length > 0 ? ` (skipped: ${parts.join(", ")})` : "";
}
const SKIPPED_INFIX = ".skipped.";

function inlineExtract(source: AnySource, docs: AsyncIterable<unknown>, shard: ShardSpec, manifest: RunManifest, counters: Counters): AsyncIterable<RevisionRefs> {
  return extractInline(source, docs, shard.kind, manifest.config, counters);
}

/**
 * A page's late records in the work store: one object per spilled page (`<prefix>-<n>.jsonl`),
 * written in bounded pieces, read back once in order and deleted. Names are deterministic, so a
 * retried task overwrites what a failed one left.
 */
function useSpill(store: BlobStore, prefix: string): UseSpill {
  let n = 0;
  let writer: BlobWriter | null = null;
  let name = "";
  return {
    async write(lines) {
      if (!writer) {
        name = `${prefix}-${n++}.jsonl`;
        writer = store.writer(name);
      }
      await writer.write(lines);
    },
    async *drain() {
      if (!writer) return;
      await writer.close();
      writer = null;
      try {
        yield* readJsonl<ShuffleRef>(store, name, undefined, { required: true });
      } finally {
        await store.delete(name);
      }
    },
  };
}

/** File and offset of a damaged-input error (DumpError carries both); the shard's file otherwise. */
function damageOf(err: unknown, shard: ShardSpec): NonNullable<TaskMarker["damage"]> {
  const e = err as { file?: unknown; offset?: unknown; transient?: unknown };
  const file = typeof e?.file === "string" ? e.file : shard.uri;
  const offset = typeof e?.offset === "number" ? e.offset : null;
  return { file, offset, ...(e?.transient === true ? { transient: true as const } : {}) };
}
