/**
 * Streaming reader of MediaWiki XML exports (schema 0.4–0.11): every <revision> of every selected
 * <page> becomes a PageRevision. Memory is bounded by one revision's text: input is scanned chunk by
 * chunk and only the fields of the current page and revision are kept.
 *
 * The scanner is hand-written for dump-shaped XML and works on UTF-8 bytes: the bulk of a dump is
 * <text> content, which is found with one Buffer.indexOf("<") (memchr) per element and turned into a
 * string only when it is kept; skipped revisions are never decoded. It still checks what makes a
 * dump readable (see page-scanner.ts): element nesting, tag and attribute syntax, entities of the
 * fields it keeps, text outside the root, truncation; damage is a DumpError with the file and the
 * decompressed byte offset. The general-parser reader it replaced (test/dump/page-reader-saxes.ts) is the
 * oracle of its differential tests.
 */
import { Counters } from "../core/counters.ts";
import type { PageRevision } from "../core/records.ts";
import { DamageLog, type InputGap } from "./bz2-blocks.ts";
import type { Bz2Decoder } from "./bz2-decoders.ts";
import { DumpError } from "./errors.ts";
import { openDumpStream } from "./open-dump.ts";
import { DumpScanner, FormatProblem, XmlProblem } from "./page-scanner.ts";
import { utf8Source } from "./utf8-source.ts";
import { releaseChunk } from "./chunk-pool.ts";
import { coalesceChunks } from "../io/coalesce-chunks.ts";
import { dumpCounter } from "../core/counter-names.ts";

export interface ReadPagesOptions {
  /** namespaces whose revisions are emitted; default [0] (articles); "all": every one */
  namespaces?: number[] | "all";
  /** skip pages with a <redirect> element; default true */
  skipRedirects?: boolean;
  /** receives the dump.* counters */
  counters?: Counters;
  /** names the input in error messages */
  file?: string;
  /**
   * The input is a slice of a multistream dump: pages without the <mediawiki> root's opening tag
   * (it may still end with the closing one). Schema-0.4 slices have no <siteinfo> to derive
   * namespaces from titles, so their pages count as ns 0.
   */
  fragment?: boolean;
  /** The input may stop at a stream boundary before the root closes (a byte range ending early). */
  partial?: boolean;
  /** longer revision texts are skipped and counted (dump.skipped.page_too_large) without being held */
  maxTextBytes?: number;
  /**
   * Gaps the decoder left in the input (damaged bz2 blocks it skipped): reading resumes at the next
   * <page> after each, and the read ends with a DumpError naming them once all else is read.
   */
  damage?: DamageLog;
  /**
   * Pages the input must hold (a multistream index's count for the range). Fewer whole pages is
   * damage the decoder did not report (lbzip2 takes a damaged stream header for trailing garbage
   * and stops without an error): counted as dump.damage.pages_missing, and the read ends with a
   * DumpError saying so once all else is read.
   */
  expectedPages?: number;
  /**
   * Byte chunks smaller than this are joined before scanning (default COALESCE_MIN_BYTES, 64 KiB):
   * the scanner rejoins markup cut at a chunk boundary, which tiny chunks would make quadratic.
   * 0 scans chunks as they come (the tests of chunk boundaries).
   */
  joinChunksBelow?: number;
}

export interface ReadDumpPagesOptions extends ReadPagesOptions {
  start?: number;
  /** exclusive */
  end?: number;
  decoder?: Bz2Decoder;
  /** told the size of every chunk of the file read */
  onInput?: (bytes: number) => void;
}

/**
 * Streams every <revision> of every selected <page> as a PageRevision (full-history dumps yield
 * many per page). Input is decompressed XML bytes (UTF-8 or UTF-16, by BOM) or text. Damaged or
 * non-MediaWiki input fails with a DumpError naming the file and decompressed byte offset, after
 * every revision completed before the damage has been yielded. Like any stream consumer it keeps
 * views of the input chunks (a revision's text is decoded when read): chunks must not be reused,
 * unless they are a pool's (chunk-pool.ts), each with a hold for the reader, which it gives back.
 */
export async function* readPages(input: NodeJS.ReadableStream | AsyncIterable<Buffer | Uint8Array | string> | Iterable<Buffer | Uint8Array | string>, opts: ReadPagesOptions = {}): AsyncGenerator<PageRevision> {
  const file = opts.file ?? "<stream>";
  const counters = opts.counters ?? new Counters();
  const scanner = new DumpScanner({ namespaces: opts.namespaces, skipRedirects: opts.skipRedirects, fragment: opts.fragment, maxTextBytes: opts.maxTextBytes }, counters);
  // A lone string is iterable too, but by character: treat it as one chunk.
  const chunks = typeof input === "string" ? [input] : input;
  const source = utf8Source(coalesceChunks(chunks as AsyncIterable<Buffer | Uint8Array | string> | Iterable<Buffer | Uint8Array | string>, opts.joinChunksBelow));

  const fail = (err: unknown): DumpError => {
    if (err instanceof DumpError) return err;
    if (err instanceof FormatProblem) return new DumpError(file, source.originalOffset(err.at), err.message, { cause: err });
    if (err instanceof XmlProblem) {
      const hint = scanner.pages === 0 && scanner.openElements().length === 0 ? ": is this a MediaWiki XML export?" : "";
      return new DumpError(file, source.originalOffset(err.at), `malformed XML (${err.message})${hint}`, { cause: err });
    }
    throw err; // a bug, not damaged input
  };

  let totalBytes = 0;
  let failure: DumpError | null = null;
  const feed = (bytes: Buffer): void => {
    try {
      if (bytes.length > 0) scanner.feed(bytes);
    } catch (err) {
      failure = fail(err);
    }
  };
  const gaps = opts.damage?.gaps ?? [];
  let nextGap = 0;
  for await (const chunk of source.chunks) {
    // Split the chunk at each gap that falls in it (or behind it): never read across a gap.
    let bytes = chunk.bytes;
    while (failure === null && nextGap < gaps.length && gaps[nextGap]!.at <= totalBytes + chunk.raw) {
      const gap = gaps[nextGap++]!;
      if (gap.kind === "trailing") continue;
      // UTF-8 input maps offsets one to one (a leading BOM aside); transcoded UTF-16 resyncs at the chunk's end
      const cut = source.encoding() === "utf-8" ? Math.min(bytes.length, Math.max(0, gap.at - totalBytes - (chunk.raw - chunk.bytes.length) - (chunk.bytes.length - bytes.length))) : bytes.length;
      feed(bytes.subarray(0, cut));
      bytes = bytes.subarray(cut);
      scanner.resync();
    }
    feed(bytes);
    // the chunk's hold (a pool's chunk, chunk-pool.ts): the scanner and revisions took their own
    releaseChunk(chunk.bytes);
    totalBytes += chunk.raw;
    counters.inc(dumpCounter("bytes"), chunk.raw);
    source.forget(scanner.retainedFrom());
    // Revisions completed before a failure are still delivered.
    if (scanner.ready.length > 0) yield* scanner.takeReady();
    if (failure) throw failure;
  }
  // gaps at the very end (a lost last block, a truncated tail)
  while (nextGap < gaps.length) if (gaps[nextGap++]!.kind !== "trailing") scanner.resync();

  const lost = gaps.filter((g) => g.kind !== "trailing");
  for (const g of gaps) {
    if (g.kind === "trailing") counters.inc(dumpCounter("trailing_bytes"), g.skippedBytes);
    else if (g.kind === "damaged") {
      counters.inc(dumpCounter("damaged_blocks"), g.blocks);
      counters.inc(dumpCounter("damaged_bytes"), g.skippedBytes);
    }
  }
  if (totalBytes === 0 && !opts.fragment && lost.length === 0) throw new DumpError(file, 0, "input is empty: is this a MediaWiki XML export?");
  try {
    // A slice that stops at a stream boundary leaves only the root open: close it.
    scanner.finish(opts.fragment === true || opts.partial === true);
  } catch (err) {
    failure = fail(err);
  }
  if (scanner.ready.length > 0) yield* scanner.takeReady();
  const missing = opts.expectedPages === undefined ? 0 : opts.expectedPages - scanner.pages;
  const shortfall = `the multistream index lists ${opts.expectedPages} pages here, ${scanner.pages} were read whole`;
  if (missing > 0) counters.inc(dumpCounter("damage.pages_missing"), missing);
  if (failure) throw missing > 0 ? withShortfall(failure, shortfall) : failure;
  if (lost.length > 0) throw missing > 0 ? withShortfall(damageError(file, lost), shortfall) : damageError(file, lost);
  if (missing > 0) throw new DumpError(file, null, `${shortfall}: ${missing} lost, most likely to a damaged bz2 stream the decoder stopped at without an error (the rest was read; the block decoder, config dump.decoder "js", reads past such damage)`);
  if (scanner.pages === 0) throw new DumpError(file, null, `no <page> found in ${totalBytes} bytes: is this a MediaWiki XML export?`);
}

/** The error, saying also how many of the pages the index promised were read. */
function withShortfall(err: DumpError, shortfall: string): DumpError {
  const prefix = `${err.file}${err.offset === null ? "" : ` at decompressed byte ${err.offset}`}: `;
  const problem = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
  return new DumpError(err.file, err.offset, `${problem} (${shortfall})`, { cause: err });
}

/** The one error a read with skipped damage ends with, after everything else was read. */
function damageError(file: string, lost: InputGap[]): DumpError {
  const damaged = lost.filter((g) => g.kind === "damaged");
  const truncated = lost.find((g) => g.kind === "truncated");
  const parts: string[] = [];
  if (damaged.length > 0) {
    const blocks = damaged.reduce((n, g) => n + g.blocks, 0);
    const bytes = damaged.reduce((n, g) => n + g.skippedBytes, 0);
    const first = damaged[0]!;
    if (blocks > 0) parts.push(`${blocks} damaged bz2 block${blocks === 1 ? "" : "s"} skipped (${bytes} compressed bytes, the first at compressed byte ${first.compressedAt}: ${first.reason}): the pages in ${blocks === 1 ? "it" : "them"} are lost, the rest was read`);
    else parts.push(`${bytes} damaged compressed byte${bytes === 1 ? "" : "s"} skipped (the first at compressed byte ${first.compressedAt}: ${first.reason}); no whole block was lost, the rest was read`);
  }
  if (truncated) parts.push(`bz2 data is truncated or corrupt (${truncated.reason}, at compressed byte ${truncated.compressedAt}): the pages after it are lost`);
  return new DumpError(file, lost[0]!.at, parts.join("; "));
}

/** readPages over a dump file or a byte range of it (see openDumpStream). */
export async function* readDumpPages(path: string, opts: ReadDumpPagesOptions = {}): AsyncGenerator<PageRevision> {
  const { start, end, decoder, onInput, ...rest } = opts;
  const ranged = (start !== undefined && start > 0) || end !== undefined;
  const label = opts.file ?? path;
  const damage = rest.damage ?? new DamageLog();
  yield* readPages(openDumpStream(path, { start, end, decoder, onInput, damage }), {
    ...rest,
    damage,
    file: ranged ? `${label}[${start ?? 0}..${end ?? "end"}]` : label,
    fragment: rest.fragment ?? (start !== undefined && start > 0),
    partial: rest.partial ?? end !== undefined,
  });
}

