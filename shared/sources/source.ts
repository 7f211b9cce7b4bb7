/**
 * The input-source seam. A source knows one input format: which files are its own (locally and as
 * an upload), how a file splits into byte-range shards, how a shard's bytes become documents, and
 * what image references (with caption texts) one document holds. It declares its counter prefix and
 * the lines the report writes about its inputs. Everything else is the extract stage's, the same for
 * every source: caption features, the pivot, the `extract.<kind>` counters, collapsing repeated uses.
 * Runners supply only a byte-range reader (a local file, a Cloud Storage object) and a planning view
 * of the files beside an input, so every source runs unchanged in both runners.
 */
import type { ExtractionSettings } from "../dump/site-file-namespaces.ts";
import type { ParacapConfig } from "../core/config.ts";
import type { Counters } from "../core/counters.ts";
import type { DocumentNoun } from "../core/counter-names.ts";
import type { FilterInfo } from "../core/filter.ts";
import type { DocId, ReferenceSource } from "../core/records.ts";
import type { ByteSource } from "../io/byte-source.ts";
import type { ShardEncoding, ShardSpec } from "./shard-spec.ts";

/** A byte range of a file that a source can read on its own. */
export interface ByteRange {
  start: number;
  end: number | null;
  /** the range lacks the file's header (e.g. a multistream slice after the XML root) */
  fragment: boolean;
  /** documents the range holds, when the file's own index says (fewer read means damage) */
  pages?: number;
  /** the text encoding the planner told from the whole file where the file's head cannot (a caption list): every shard reads it alike */
  encoding?: ShardEncoding;
}

/** What a planner may ask about the files beside an input: a local folder, or the input bucket. */
export interface PlanningView {
  /** whether `name` (a path or object name beside the input) exists */
  exists(name: string): Promise<boolean>;
  /** runs `use` on a local copy of a small file beside the input (downloaded in the cloud) */
  withLocalCopy<T>(name: string, use: (path: string) => Promise<T>): Promise<T>;
  /**
   * Bytes [start, end) of a file (an input itself: a caption list's head, a parquet footer), where
   * reading a part is cheap (a local file, a bucket's ranged read). Absent: plan by names; the shard reads.
   */
  readRange?(name: string, start: number, end: number): Promise<Buffer>;
  /**
   * A whole input's bytes, where reading one through is cheap at planning time (a local file; not the
   * cloud planner, which plans from heads and ranged reads). Absent: decide from the head.
   */
  readWhole?(name: string): AsyncIterable<Buffer>;
  /** the run's settings, for a plan that depends on one (a paths list's server); absent: plan without them */
  config?: ParacapConfig;
}

/** One image use as its source found it: the image's key, where in the document, its caption texts. */
export interface SourceRef {
  /** normalised image key (`File:Foo bar.jpg`, a normalised URL): the pivot turns it into the grouping key */
  image: string;
  source: ReferenceSource;
  caption: string | null;
  alt: string | null;
  /** web pages: an img's title attribute, and the text around an image (lower confidence); each its own caption type */
  title?: string | null;
  nearby?: string | null;
}

/**
 * One document's references: its identity (page, and the page's and this version's ids; consecutive
 * documents of one page are its revisions) and its references, or why it could not be read.
 */
export interface DocumentRefs {
  page: string;
  pageId: DocId;
  revisionId: DocId;
  /** null: the document was skipped for `skipped` (counted by the extract stage) */
  refs: SourceRef[] | null;
  skipped?: string;
}

/** A source of any document type: documents only travel between one source's own methods. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySource = Source<any, any>;

export interface Source<Doc = unknown, Prepared = undefined> {
  /** registry key, stored in every shard spec */
  readonly name: string;
  /** one-line description for `--help` and error messages */
  readonly description: string;
  /** prefix of the counters the source's readers write (`dump`, `tsv`): they reach stats.json's `extraction` */
  readonly counterPrefix: string;
  /** the counter of documents read (pages, lines): zero over a whole run means "not this format" */
  readonly documentsCounter: string;
  /** what its documents are called in messages about `documentsCounter` ("no pages read", "no lines read") */
  readonly documentsNoun: string;
  /**
   * Why its inputs, though read, hold nothing to extract (a stub dump: revisions without their text), from the
   * counters summed over every shard of this source; null when they do. The run stops with the reason instead of
   * publishing empty datasets, as when no document was read at all.
   */
  unusableInput?(counters: Readonly<Record<string, number>>): string | null;
  /**
   * What one of the documents its extractor is given is called in reports, progress and the card, in
   * the singular and plural ("1 revision", "7,900 caption lines", "1 page"); the extract stage counts
   * them per input kind under it (`extract.<kind>.<other, spaces as _>`). Not a name the extract stage
   * counts otherwise (`references`, `shuffle_records`).
   */
  readonly document: DocumentNoun;
  /**
   * Its documents can carry images' bytes (a WARC's image responses, an img2dataset output): a pixel
   * pivot has pixels to read only from such an input, or from `--images`.
   */
  readonly carriesImages?: boolean;
  /** the file is in this source's format, judged by its name and its first bytes as stored */
  claims(fileName: string, head: Buffer): boolean;
  /**
   * A local directory is one input of this source (an img2dataset `files` output): read whole as one
   * shard, by the source itself. Absent: directories are not inputs.
   */
  claimsDirectory?(path: string): boolean;
  /**
   * An uploaded object's role for this source, by name (the plan function sees names before bytes):
   * "input" (plan a run over it), a companion of an input (e.g. a multistream index: plan that input
   * if it is there), or null (not this source's).
   */
  uploadRole(objectName: string): { role: "input" } | { role: "companion"; of: string } | null;
  /**
   * Splits a file into shards of about `targetBytes`, or null when the file is read whole. May look
   * beside the file (a multistream index); `wait` says the input cannot be planned yet (its companion
   * is still to come), which the cloud planner reports instead of planning.
   */
  planRanges?(file: { name: string; size: number }, targetBytes: number, view: PlanningView): Promise<ByteRange[] | null | { wait: string }>;
  /**
   * Extraction settings the source's local input files call for, read from them before a run starts
   * (a non-English dump: its file namespace's names and language, from its <siteinfo>), for keys the
   * config leaves unset; with a line per input for the user. Null: nothing to set. Every command that
   * reads local files (run, extract, cloud upload) applies every source's (input-settings.ts).
   */
  inputSettings?(paths: readonly string[], current: ExtractionSettings): Promise<{ extraction: ExtractionSettings; notes: string[] } | null>;
  /** a shard's documents; damage is counted or thrown as a DumpError with file and offset */
  documents(shard: ShardSpec, bytes: ByteSource, config: ParacapConfig, counters: Counters): AsyncIterable<Doc>;
  /**
   * Loads what finding references needs and is slow to load (a language identifier, a model), once
   * per extractor and only in runs that read this source; what it gives goes to createExtractor.
   */
  prepare?(config: ParacapConfig): Promise<Prepared>;
  /** per-document reference finding: pure, so a runner may run it on worker threads (results kept in order) */
  createExtractor(config: ParacapConfig, counters: Counters, prepared: Prepared): (doc: Doc) => DocumentRefs;
  /** a batch of documents as a structured-clone-friendly value (and back, on the worker) */
  pack(docs: readonly Doc[]): unknown;
  unpack(packed: unknown): Doc[];
  /** rough cost of a document, to size worker batches */
  size(doc: Doc): number;
  /** lines report.md writes about what the source read (from stats.json's extraction counters); none when it read nothing */
  reportLines(extraction: Readonly<Record<string, number>>): string[];
  /**
   * The reference sources (`SourceRef.source`) it emits for images found on the web (a caption list's
   * row, a page's img): the equivalence sets of images only they use are bounded by the set-size rule
   * (thesis §5.1.2); a dump's files are bounded by their reference counts instead. None: not web images.
   */
  readonly webReferenceSources?: readonly ReferenceSource[];
  /**
   * Filters its extractor applies to caption texts before they become references, counted under
   * `filter.<tier>.<id>.*` (applyFilter with that tier name): each a row at the top of every tier's funnel
   * of a run that applied it.
   */
  readonly captionFilters?: { readonly tier: string; readonly filters: readonly FilterInfo[] };
}
