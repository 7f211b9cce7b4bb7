/**
 * Every counter name a stage writes or a report reads, built in one place. A name is data that
 * crosses process boundaries (merged per shard, saved in stats.json, read by the report and the
 * reconciliation checks), so a typo in one writer would silently split a count: here each family
 * of names has one typed builder, and the strings in stats.json stay exactly what they were.
 */
import type { InputKind } from "./records.ts";

/** What a filter counts for each record it sees (core/filter.ts applies it). */
export type FilterTally = "in" | "kept" | "dropped";

/** `filter.<tier>.<filterId>.<tally>`, or `….dropped.<reason>` for one reason of the drops. */
export function filterCounter(tier: string, filterId: string, tally: FilterTally, reason?: string): string {
  if (reason !== undefined && tally !== "dropped") throw new Error(`filterCounter: a reason only qualifies "dropped" (got ${tally})`);
  return reason === undefined ? `filter.${tier}.${filterId}.${tally}` : `filter.${tier}.${filterId}.dropped.${reason}`;
}

/** Prefix of a filter's per-reason drop counters (for Counters.withPrefix: reason → count). */
export function filterReasonsPrefix(tier: string, filterId: string): string {
  return `filter.${tier}.${filterId}.dropped.`;
}

/**
 * On the distinct-uses bound row: the references (or images) the paper's rule (≤ N references,
 * every revision counted) would have dropped there, so a report can show both rules side by side.
 */
export function paperRuleDroppedCounter(tier: string, filterId: string, what: "references" | "images"): string {
  return `filter.${tier}.${filterId}.paper_rule_dropped${what === "images" ? "_images" : ""}`;
}

/** The columns a funnel row counts (output/stats.ts derives the table from them). */
export type FunnelCounterColumn = "images" | "images_ge2" | "images_ge5" | "references" | "captions" | "candidates";

/** `funnel.<tier>.<rowId>.<column>`. */
export function funnelCounter(tier: string, rowId: string, column: FunnelCounterColumn): string {
  return `funnel.${tier}.${rowId}.${column}`;
}

/** Candidate pairs the group phase built for a tier. */
export function groupPairsCounter(tier: string): string {
  return `group.${tier}.pairs`;
}

/**
 * Candidate pairs of images over the per-image pair cap that were not made (group-stage.ts,
 * MAX_PAIRS_PER_IMAGE); also the sample name of those images. The funnel counts them as drops of its
 * first pair row (reason PAIRS_CAPPED_REASON).
 */
export function groupCappedPairsCounter(tier: string): string {
  return `group.${tier}.pairs_capped`;
}

export const PAIRS_CAPPED_REASON = "pairs_per_image_cap";

/**
 * A text pivot's bookkeeping (`pivot.<name>.<what>`): captions given keys or none in the extract
 * stage; groups capped and pairs dropped by reason (`pair.<reason>`) or kept in the group stage.
 */
export function pivotCounter(pivot: string, what: string): string {
  return `pivot.${pivot}.${what}`;
}

/** Where a text pivot keeps examples of the captions it could not key (unreadable: no filter sees them). */
export function pivotUnreadableSamples(pivot: string): string {
  return pivotCounter(pivot, "captions_unreadable");
}

/** Whether a samples name is pivotUnreadableSamples' (they go with the extraction's examples). */
export function isPivotUnreadableSamples(name: string): boolean {
  return name.startsWith("pivot.") && name.endsWith(".captions_unreadable");
}

/** Tasks a phase ran: `<phase>.shards` or `<phase>.partitions` (counted by the task wrapper, shared/tasks/phase-task.ts). */
export function taskCounter(phase: string, unit: "shard" | "partition"): string {
  return `${phase}.${unit === "shard" ? "shards" : "partitions"}`;
}

/** Shards of a shard phase read only up to damage in their input. */
export function corruptShardsCounter(phase: string): string {
  return `${taskCounter(phase, "shard")}.corrupt`;
}

/**
 * What a per-item cache (tasks/item-cache.ts) did for one step: entries read, values computed (and
 * stored), stored entries that failed their schema or key (recomputed, never trusted).
 */
export function cacheCounter(namespace: string, what: "hits" | "computed" | "invalid"): string {
  return `cache.${namespace}.${what}`;
}

/**
 * Counters kept out of stats.json (which must be the same for the same data however the run went);
 * they stay in the task markers: the caption-feature counters (cache hits depend on how pages were
 * spread over workers) and the item caches' (hits depend on whether a task ran before).
 */
export function isDiagnosticCounter(name: string): boolean {
  return name.includes(".features.") || name.startsWith("cache.");
}

/** Per-task totals of the built-in phases. */
export const TASK_COUNTERS = {
  extractShards: taskCounter("extract", "shard"),
  extractShardsCorrupt: corruptShardsCounter("extract"),
  groupPartitions: taskCounter("group", "partition"),
  dedupPartitions: taskCounter("dedup", "partition"),
} as const;

/** Prefix of the extract stage's own counters; stats.json's `extraction` lists them and each source's (sources/registry.ts). */
export const EXTRACT_PREFIX = "extract.";

export const WEB_SET_COUNTERS = {
  images: "group.web.images",
  sets: "group.web.sets",
  sum: "group.web.sets.sum",
  sumSq: "group.web.sets.sum_sq",
} as const;

/**
 * Totals of the dump reader; the damage it skipped: blocks and bytes of damaged bz2 streams,
 * garbage after the last gzip member, pages cut by a gap (their earlier revisions stay).
 */
export type DumpTotal =
  | "pages" | "revisions" | "revisions.emitted" | "bytes" | "damaged_blocks" | "damaged_bytes" | "trailing_bytes" | "damage.pages_cut" | "damage.pages_missing"
  // repairs and skips of the XML reader (page-scanner.ts): one bad entity, one title with invalid
  // UTF-8 (kept, its bad bytes percent-encoded), one kept field over its bound, one start tag,
  // comment or CDATA section over the markup bound (the page open then is cut, reading resumes at the next <page>)
  | "repaired.bad_entities" | "repaired.title_invalid_utf8" | "oversized_fields" | "damage.markup_too_large";

export function dumpCounter(total: DumpTotal): string {
  return `dump.${total}`;
}

export const DUMP_SKIPPED_PREFIX = "dump.skipped.";

/** A revision the dump reader did not hand on: `dump.skipped.<reason>` (namespace, redirect, page_too_large, …). */
export function dumpSkippedCounter(reason: string): string {
  return `${DUMP_SKIPPED_PREFIX}${reason}`;
}

/** Totals of the caption-list (TSV) reader. */
export function tsvCounter(total: "lines" | "lines.emitted" | "header" | "files.windows_1252" | "files.windows_1252_by_scan" | `files.encoding.${string}`): string {
  return `tsv.${total}`;
}

export const TSV_SKIPPED_PREFIX = "tsv.skipped.";

/** Caption lists read in the encoding the run names (extraction.captionEncoding): `tsv.files.encoding.<name>`, once per file. */
export const TSV_ENCODING_PREFIX = "tsv.files.encoding.";

export function tsvSkippedCounter(reason: string): string {
  return `${TSV_SKIPPED_PREFIX}${reason}`;
}

/**
 * Totals of the WARC reader (shared/web/warc, ARC files included): files and records read, records
 * handed on as documents, and the bytes it could not use.
 */
export type WarcTotal = "files" | "files.arc" | "files.arc_no_version_block" | "records" | "records.html" | "records.revisit" | "records.lf_headers" | "records.split_across_members" | "records.damaged" | "resyncs" | "bytes.skipped" | "documents" | "image_refs" | "image_records" | "image_revisits" | "image_revisits.resolved" | "image_revisits.across_shards" | "image_revisits.unresolved" | "http.files" | "http.retries" | "http.range_ignored";

export function warcCounter(total: WarcTotal): string {
  return `warc.${total}`;
}

export const WARC_SKIPPED_PREFIX = "warc.skipped.";

/** A record or file the WARC reader did not hand on: `warc.skipped.<reason>` (request, wet_file, gzip_bomb, not_html, …). */
export function warcSkippedCounter(reason: string): string {
  return `${WARC_SKIPPED_PREFIX}${reason}`;
}

/** A sample name: file offsets of damaged WARC records. */
export const WARC_DAMAGE_SAMPLE = "warc.damaged_records";

/** Per input kind totals of the extract stage (its documents are counted per noun: extractDocumentsCounter). */
export type ExtractTotal = "references" | "shuffle_records";

export function extractCounter(kind: InputKind, total: ExtractTotal): string {
  return `extract.${kind}.${total}`;
}

/** What a source's documents are called (Source.document): "revision" / "revisions", "caption line" / "caption lines". */
export interface DocumentNoun {
  one: string;
  other: string;
}

/**
 * The documents of one kind of input a source read, counted under its noun: `extract.<kind>.revisions`
 * (a dump's, the name it always had), `extract.<kind>.caption_lines`, `extract.<kind>.pages`; sources
 * whose documents share a noun share the counter.
 */
export function extractDocumentsCounter(kind: InputKind, noun: DocumentNoun): string {
  return `extract.${kind}.${noun.other.replace(/ /g, "_")}`;
}

/** The references a text pivot read (`pivot.<name>.<kind>.references`): the extract stage counts its copies, one per key. */
export function pivotReferencesCounter(pivot: string, kind: string): string {
  return pivotCounter(pivot, `${kind}.references`);
}

/** Prefix of the references found per reference source (`extract.<kind>.references.<source>`). */
export function extractReferencesBySourcePrefix(kind: InputKind): string {
  return `extract.${kind}.references.`;
}

export function extractReferencesBySourceCounter(kind: InputKind, source: string): string {
  return `${extractReferencesBySourcePrefix(kind)}${source}`;
}

/** Prefix of the documents the extract stage read but did not parse (`…revisions.skipped.<reason>`). */
export function extractSkippedPrefix(kind: InputKind): string {
  return `extract.${kind}.revisions.skipped.`;
}

export function extractSkippedCounter(kind: InputKind, reason: string): string {
  return `${extractSkippedPrefix(kind)}${reason}`;
}

/** The caption feature lookup of the extract stage. */
export const FEATURE_COUNTERS = {
  cacheHits: "extract.features.cache_hits",
  /** a sample name: examples of captions the NLP step failed on */
  analysisFailed: "extract.features.analysis_failed",
} as const;

export function unreadableCaptionCounter(reason: string): string {
  return `extract.features.unreadable.${reason}`;
}

/** Wikitext the extractor met but could not use. */
export function unrenderedTemplateCounter(template: string): string {
  return `wikitext.unrendered_template.${template}`;
}

export const INVALID_FILE_NAME_COUNTER = "wikitext.skipped.invalid_file_name";

/** Totals of the pixel readers (img2dataset folders, webdataset tars and parquet; shared/pixels/img2dataset.ts). */
export function pixelSourceCounter(total: "samples" | "samples.with_image"): string {
  return `pixels.${total}`;
}

/**
 * A plain `--images` folder of files named after URLs (sources/img2dataset/url-named-folder.ts):
 * `pixels.url_folder.<files|matched.<rule>|ambiguous_basename|duplicate|unmatched>`.
 */
export function urlFolderCounter(what: "files" | "matched.wget" | "matched.hash" | "matched.basename" | "ambiguous_basename" | "duplicate" | "unmatched"): string {
  return `pixels.url_folder.${what}`;
}

export const PIXELS_SKIPPED_PREFIX = "pixels.skipped.";

/** What a pixel reader could not use: `pixels.skipped.<reason>` (bad_sidecar, too_large, truncated_tar, …). */
export function pixelSourceSkippedCounter(reason: string): string {
  return `${PIXELS_SKIPPED_PREFIX}${reason}`;
}

/**
 * The pixel pipeline's own counts (tasks/pixel-pipeline.ts): images looked at per shard (`images`,
 * `decoded`, `no_bytes`, `failed.<reason>`, `outside_bounds.<reason>`: not decoded, the header
 * already outside the thesis' bounds), the near-duplicate index (`index.<stat>`: hashes,
 * edges, components, split_components (chaining guard), split_singletons, groups, grouped_images),
 * and the run's mode (`mode.<pivot>` = 1, `threshold`, `max_diameter`).
 */
export type PixelIdentityTotal = "images" | "decoded" | "no_bytes" | `failed.${string}` | `outside_bounds.${string}` | `decoded_outside_bounds.${string}` | `index.${string}` | `mode.${string}` | "threshold" | "max_diameter";

export const PIXEL_IDENTITY_PREFIX = "pixel_identity.";

export function pixelIdentityCounter(total: PixelIdentityTotal): string {
  return `${PIXEL_IDENTITY_PREFIX}${total}`;
}
