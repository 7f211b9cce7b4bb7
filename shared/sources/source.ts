/**
 * The input-source seam. A source knows one input format: which files are its own, how a file
 * splits into byte-range shards, how a shard's bytes become documents, and how one document becomes
 * image references with their captions. Runners supply only a byte-range reader (a local file, a
 * Cloud Storage object), so every source runs unchanged in both runners.
 */
import type { ParacapConfig } from "../core/config.ts";
import type { Counters } from "../core/counters.ts";
import type { InputKind } from "../core/records.ts";
import type { RevisionRefs } from "../pipeline/extract-stage.ts";
import type { ByteSource } from "../io/byte-source.ts";
import type { ShardSpec } from "./shard-spec.ts";

/** A byte range of a file that a source can read on its own. */
export interface ByteRange {
  start: number;
  end: number | null;
  /** the range lacks the file's header (e.g. a multistream slice after the XML root) */
  fragment: boolean;
}

/** A source of any document type: documents only travel between one source's own methods. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySource = Source<any>;

export interface Source<Doc = unknown> {
  /** registry key, stored in every shard spec */
  readonly name: string;
  /** one-line description for `--help` and error messages */
  readonly description: string;
  /** the counter of documents read (pages, lines): zero over a whole run means "not this format" */
  readonly documentsCounter: string;
  /** the file is in this source's format, judged by its name and its first bytes as stored */
  claims(fileName: string, head: Buffer): boolean;
  /**
   * Splits a file of `size` bytes into shards of about `targetBytes`, or null when the file can only
   * be read whole (or its split points live elsewhere, like a multistream index the runner reads).
   */
  planRanges?(size: number, targetBytes: number): ByteRange[] | null;
  /** a shard's documents; damage is counted or thrown as a DumpError with file and offset */
  documents(shard: ShardSpec, bytes: ByteSource, config: ParacapConfig, counters: Counters): AsyncIterable<Doc>;
  /** per-document extraction: pure, so a runner may run it on worker threads (results kept in order) */
  createExtractor(config: ParacapConfig, counters: Counters): (doc: Doc, kind: InputKind) => RevisionRefs;
  /** a batch of documents as a structured-clone-friendly value (and back, on the worker) */
  pack(docs: readonly Doc[]): unknown;
  unpack(packed: unknown): Doc[];
  /** rough cost of a document, to size worker batches */
  size(doc: Doc): number;
}
