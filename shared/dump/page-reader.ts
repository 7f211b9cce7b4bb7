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
import type { Bz2Decoder } from "./bz2-decoders.ts";
import { DumpError } from "./errors.ts";
import { openDumpStream } from "./open-dump.ts";
import { DumpScanner, FormatProblem, XmlProblem } from "./page-scanner.ts";
import { utf8Source } from "./utf8-source.ts";
import { dumpCounter } from "../core/counter-names.ts";

export interface ReadPagesOptions {
  /** namespaces whose revisions are emitted; default [0] (articles) */
  namespaces?: number[];
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
 * views of the input chunks (a revision's text is decoded when read): chunks must not be reused.
 */
export async function* readPages(input: NodeJS.ReadableStream | AsyncIterable<Buffer | Uint8Array | string> | Iterable<Buffer | Uint8Array | string>, opts: ReadPagesOptions = {}): AsyncGenerator<PageRevision> {
  const file = opts.file ?? "<stream>";
  const counters = opts.counters ?? new Counters();
  const scanner = new DumpScanner({ namespaces: opts.namespaces, skipRedirects: opts.skipRedirects, fragment: opts.fragment, maxTextBytes: opts.maxTextBytes }, counters);
  // A lone string is iterable too, but by character: treat it as one chunk.
  const chunks = typeof input === "string" ? [input] : input;
  const source = utf8Source(chunks as AsyncIterable<Buffer | Uint8Array | string> | Iterable<Buffer | Uint8Array | string>);

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
  for await (const chunk of source.chunks) {
    try {
      if (chunk.bytes.length > 0) scanner.feed(chunk.bytes);
    } catch (err) {
      failure = fail(err);
    }
    totalBytes += chunk.raw;
    counters.inc(dumpCounter("bytes"), chunk.raw);
    source.forget(scanner.retainedFrom());
    // Revisions completed before a failure are still delivered.
    if (scanner.ready.length > 0) yield* scanner.takeReady();
    if (failure) throw failure;
  }

  if (totalBytes === 0 && !opts.fragment) throw new DumpError(file, 0, "input is empty: is this a MediaWiki XML export?");
  try {
    // A slice that stops at a stream boundary leaves only the root open: close it.
    scanner.finish(opts.fragment === true || opts.partial === true);
  } catch (err) {
    failure = fail(err);
  }
  if (scanner.ready.length > 0) yield* scanner.takeReady();
  if (failure) throw failure;
  if (scanner.pages === 0) throw new DumpError(file, null, `no <page> found in ${totalBytes} bytes: is this a MediaWiki XML export?`);
}

/** readPages over a dump file or a byte range of it (see openDumpStream). */
export async function* readDumpPages(path: string, opts: ReadDumpPagesOptions = {}): AsyncGenerator<PageRevision> {
  const { start, end, decoder, onInput, ...rest } = opts;
  const ranged = (start !== undefined && start > 0) || end !== undefined;
  const label = opts.file ?? path;
  yield* readPages(openDumpStream(path, { start, end, decoder, onInput }), {
    ...rest,
    file: ranged ? `${label}[${start ?? 0}..${end ?? "end"}]` : label,
    fragment: rest.fragment ?? (start !== undefined && start > 0),
    partial: rest.partial ?? end !== undefined,
  });
}

