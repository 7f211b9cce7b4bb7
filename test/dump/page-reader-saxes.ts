/**
 * Reference reader of MediaWiki XML exports on a general XML parser (saxes): the reader paracap
 * used before the hand-written scanner in page-reader.ts. Kept as the oracle of the differential
 * tests (page-scanner.test.ts) and as the "before" of scripts/bench/dump-reader.ts, so it lives with
 * the tests (saxes is a devDependency); the runners use readPages from shared/dump/page-reader.ts.
 */
import { SaxesParser, type SaxesTagPlain } from "saxes";
import { Counters } from "../../shared/core/counters.ts";
import type { ReadPagesOptions } from "../../shared/dump/page-reader.ts";
import type { PageRevision } from "../../shared/core/records.ts";
import { DumpError } from "../../shared/dump/errors.ts";
import { namespaceOfTitle, normaliseNamespaceName } from "../../shared/dump/namespaces.ts";
import { decodeXmlText, encodedLength } from "../../shared/dump/xml-text.ts";
import { dumpCounter, dumpSkippedCounter } from "../../shared/core/counter-names.ts";

/** A structural problem found by the page handlers; readPages adds the file and offset. */
class FormatProblem extends Error {}

interface PageState {
  title: string | null;
  ns: number | null;
  id: number | null;
  redirect: boolean;
}

type Skip = "namespace" | "redirect" | null;

interface RevisionState {
  id: number | null;
  timestamp: string | null;
  text: string;
  skip: Skip;
}

type Field = "title" | "ns" | "pageId" | "revId" | "timestamp" | "text" | "namespace";

const ROOT = "mediawiki";

/**
 * Turns saxes events into PageRevisions. Leaf fields are captured as arrays of text pieces and
 * joined once when the element closes; everything else in the dump is ignored.
 */
class PageCollector {
  readonly ready: PageRevision[] = [];
  pages = 0;
  private readonly stack: string[] = [];
  private capture: string[] | null = null;
  private captureField: Field | null = null;
  private captureDepth = 0;
  private readonly namespaceNames = new Map<string, number>();
  private namespaceKey: number | null = null;
  private page: PageState | null = null;
  private rev: RevisionState | null = null;
  private readonly namespaces: ReadonlySet<number> | null;
  private readonly skipRedirects: boolean;

  constructor(
    opts: ReadPagesOptions,
    private readonly counters: Counters,
  ) {
    this.namespaces = opts.namespaces === "all" ? null : new Set(opts.namespaces ?? [0]);
    this.skipRedirects = opts.skipRedirects ?? true;
  }

  /** Names of the elements open now, outermost first. */
  openElements(): readonly string[] {
    return this.stack;
  }

  attach(parser: SaxesParser): void {
    parser.on("opentag", (tag) => this.open(tag));
    parser.on("closetag", (tag) => this.close(tag.name));
    parser.on("text", (t) => this.capture?.push(t));
    parser.on("cdata", (t) => this.capture?.push(t));
  }

  private open(tag: SaxesTagPlain): void {
    const parent = this.stack[this.stack.length - 1];
    this.stack.push(tag.name);
    if (parent === undefined) {
      if (tag.name !== ROOT) throw new FormatProblem(`root element is <${tag.name}>, not <${ROOT}>: is this a MediaWiki XML export?`);
      return;
    }
    switch (tag.name) {
      case "page":
        if (parent === ROOT) this.page = { title: null, ns: null, id: null, redirect: false };
        return;
      case "revision":
        if (parent === "page" && this.page) this.rev = { id: null, timestamp: null, text: "", skip: this.skipReason(this.page) };
        return;
      case "redirect":
        if (parent === "page" && this.page) this.page.redirect = true;
        return;
      case "title":
        if (parent === "page") this.startCapture("title");
        return;
      case "ns":
        if (parent === "page") this.startCapture("ns");
        return;
      case "id":
        if (parent === "page") this.startCapture("pageId");
        else if (parent === "revision") this.startCapture("revId");
        return;
      case "timestamp":
        if (parent === "revision") this.startCapture("timestamp");
        return;
      case "text":
        // Text of a revision that will be skipped is never assembled.
        if (parent === "revision" && this.rev && this.rev.skip === null) this.startCapture("text");
        return;
      case "namespace":
        if (parent === "namespaces") {
          const key = Number(tag.attributes.key);
          this.namespaceKey = Number.isInteger(key) ? key : null;
          this.startCapture("namespace");
        }
        return;
    }
  }

  private startCapture(field: Field): void {
    this.capture = [];
    this.captureField = field;
    this.captureDepth = this.stack.length;
  }

  private close(name: string): void {
    if (this.capture !== null && this.stack.length === this.captureDepth) this.endCapture();
    this.stack.pop();
    if (name === "revision" && this.stack[this.stack.length - 1] === "page") this.endRevision();
    else if (name === "page" && this.stack[this.stack.length - 1] === ROOT) this.endPage();
  }

  private endCapture(): void {
    const value = this.capture!.length === 1 ? this.capture![0]! : this.capture!.join("");
    const field = this.captureField;
    this.capture = null;
    this.captureField = null;
    const page = this.page;
    const rev = this.rev;
    switch (field) {
      case "title":
        if (page) page.title = value;
        break;
      case "ns":
        if (page) page.ns = parseInteger(value, "<ns>");
        break;
      case "pageId":
        if (page) page.id = parseInteger(value, "page <id>");
        break;
      case "revId":
        if (rev) rev.id = parseInteger(value, "revision <id>");
        break;
      case "timestamp":
        if (rev) rev.timestamp = value.trim() || null;
        break;
      case "text":
        if (rev) rev.text = value;
        break;
      case "namespace":
        if (this.namespaceKey !== null && value.trim() !== "") this.namespaceNames.set(normaliseNamespaceName(value), this.namespaceKey);
        break;
    }
  }

  private namespaceOf(page: PageState): number {
    return page.ns ?? namespaceOfTitle(page.title ?? "", this.namespaceNames);
  }

  private skipReason(page: PageState): Skip {
    if (this.namespaces !== null && !this.namespaces.has(this.namespaceOf(page))) return "namespace";
    if (this.skipRedirects && page.redirect) return "redirect";
    return null;
  }

  private endRevision(): void {
    const page = this.page;
    const rev = this.rev;
    this.rev = null;
    if (!page || !rev) return;
    this.counters.inc(dumpCounter("revisions"));
    if (rev.skip !== null) {
      this.counters.inc(dumpSkippedCounter(rev.skip));
      return;
    }
    if (page.title === null) throw new FormatProblem("a <page> has no <title> before its <revision>");
    if (page.id === null) throw new FormatProblem(`page "${page.title}" has no <id> before its <revision>`);
    if (rev.id === null) throw new FormatProblem(`a revision of page "${page.title}" has no <id>`);
    if (this.skipRedirects && /^\s*#redirect\b/i.test(rev.text.slice(0, 64))) {
      this.counters.inc(dumpSkippedCounter("redirect"));
      return;
    }
    this.ready.push({
      title: page.title,
      ns: this.namespaceOf(page),
      pageId: page.id,
      revisionId: rev.id,
      timestamp: rev.timestamp,
      redirect: page.redirect,
      text: rev.text,
    });
    this.counters.inc(dumpCounter("revisions.emitted"));
  }

  private endPage(): void {
    this.page = null;
    this.pages++;
    this.counters.inc(dumpCounter("pages"));
  }
}

function parseInteger(value: string, what: string): number {
  const n = Number(value.trim());
  if (!Number.isSafeInteger(n) || value.trim() === "") throw new FormatProblem(`${what} is not an integer: "${value.slice(0, 40)}"`);
  return n;
}

/**
 * Streams every <revision> of every selected <page> as a PageRevision (full-history dumps yield
 * many per page). Input is decompressed XML bytes (UTF-8 or UTF-16, by BOM) or text. Damaged or
 * non-MediaWiki input fails with a DumpError naming the file and decompressed byte offset, after
 * every revision completed before the damage has been yielded.
 */
export async function* readPagesSaxes(input: NodeJS.ReadableStream | AsyncIterable<Buffer | Uint8Array | string> | Iterable<Buffer | Uint8Array | string>, opts: ReadPagesOptions = {}): AsyncGenerator<PageRevision> {
  const file = opts.file ?? "<stream>";
  const counters = opts.counters ?? new Counters();
  const collector = new PageCollector(opts, counters);
  const parser = new SaxesParser({ position: true });
  collector.attach(parser);
  // A lone string is iterable too, but by character: treat it as one chunk.
  const chunks = typeof input === "string" ? [input] : input;
  const source = decodeXmlText(chunks as AsyncIterable<Buffer | string> | Iterable<Buffer | string>);

  // Where the chunk being parsed starts, to turn a parser position into a byte offset.
  let chunkText = "";
  let chunkChars = 0;
  let chunkBytes = 0;
  let totalBytes = 0;
  const offsetAt = (position: number): number => {
    const inChunk = Math.min(Math.max(position - chunkChars, 0), chunkText.length);
    return source.bomBytes() + chunkBytes + encodedLength(chunkText.slice(0, inChunk), source.encoding());
  };
  const fail = (err: unknown, offset: number | null): DumpError => {
    if (err instanceof DumpError) return err;
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof FormatProblem) return new DumpError(file, offset, message, { cause: err });
    const hint = collector.pages === 0 && collector.openElements().length === 0 ? ": is this a MediaWiki XML export?" : "";
    return new DumpError(file, offset, `malformed XML (${message})${hint}`, { cause: err });
  };

  // A fragment lacks the root's opening tag: supply it (it takes no input bytes).
  let written = 0;
  if (opts.fragment) {
    const prefix = `<${ROOT}>`;
    parser.write(prefix);
    written = prefix.length;
  }

  let failure: DumpError | null = null;
  for await (const chunk of source.chunks) {
    chunkText = chunk.text;
    chunkChars = written;
    try {
      parser.write(chunk.text);
    } catch (err) {
      failure = fail(err, offsetAt(parser.position));
    }
    written += chunk.text.length;
    chunkBytes += encodedLength(chunk.text, source.encoding());
    totalBytes += chunk.bytes;
    counters.inc(dumpCounter("bytes"), chunk.bytes);
    // Revisions completed before a failure are still delivered.
    while (collector.ready.length > 0) yield collector.ready.shift()!;
    if (failure) throw failure;
  }

  chunkText = "";
  chunkChars = written;
  if (totalBytes === 0 && !opts.fragment) throw new DumpError(file, 0, "input is empty: is this a MediaWiki XML export?");
  try {
    // A slice that stops at a stream boundary leaves only the root open: close it for the parser.
    const open = collector.openElements();
    if ((opts.fragment || opts.partial) && open.length === 1 && open[0] === ROOT) parser.write(`</${ROOT}>`);
    parser.close();
  } catch (err) {
    failure = fail(err, offsetAt(parser.position));
  }
  while (collector.ready.length > 0) yield collector.ready.shift()!;
  if (failure) throw failure;
  if (collector.pages === 0) throw new DumpError(file, null, `no <page> found in ${totalBytes} bytes: is this a MediaWiki XML export?`);
}
