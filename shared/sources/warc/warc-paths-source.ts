/**
 * A crawl's paths list (Common Crawl's `warc.paths.gz`, or the same plain): one WARC path per line,
 * each read over HTTP(S) from under `extraction.warcBaseUrl` (default https://data.commoncrawl.org/).
 * Each line is one shard, so a crawl fans out over its files in both runners: the planner reads the
 * list once; a shard's range is its LINE index [i, i+1) in the (decoded) list, not a byte range, and
 * its task reads the list again (small: ≈ 1 MB for 90,000 paths) to find its line.
 *
 * A WARC is read with resumable range requests (shared/io/http-bytes.ts) and parsed exactly as a local
 * file (warcDocuments), so a crawl read over HTTP gives the same documents as its files read locally.
 *
 * A short list (at most `splitFilesUpTo` paths, 64 by default: a crawl's list of 90,000 already fans
 * out over its files) has its large WARCs split as local files are: the planner asks each file's size
 * (a one-byte range read) and cuts it into byte ranges of the shard size; a part's task reads from its
 * start with a range read and owns the gzip members that start in its range, the first found by
 * scanning and verified by decoding (warc-reader.ts). A part's range names its line and its bytes in
 * one number (partPosition): line i's byte b is at (i + 1) · 2^33 + b, so a whole line [i, i + 1) and
 * a part never meet. Planning needs the run's server (PlanningView.config); without it lines stay whole.
 * A file that cannot be fetched (404, retries exhausted) is counted and sampled, and its shard keeps the
 * pages read before the failure: one bad path never stops the run. A line that resolves outside the base
 * URL is refused and counted: the list names files, the deployment names the server (an uploaded list
 * cannot point the cloud functions at other hosts).
 */
import { basename } from "node:path";
import { createGunzip } from "node:zlib";
import { pipeline, Readable } from "node:stream";
import { WARC_DAMAGE_SAMPLE, warcCounter, warcSkippedCounter } from "../../core/counter-names.ts";
import type { ParacapConfig } from "../../core/config.ts";
import type { Counters } from "../../core/counters.ts";
import { DumpError, UnreachableInputError } from "../../dump/errors.ts";
import { drained, type ByteSource } from "../../io/byte-source.ts";
import { fileBytes } from "../../io/file-bytes.ts";
import { HttpReadError, remoteSize, resumableGet, type HttpReadOptions } from "../../io/http-bytes.ts";
import { warcKind } from "../../web/warc/warc-kind.ts";
import type { ByteRange, Source } from "../source.ts";
import { warcShardDocuments, warcSource, type WarcPage } from "./warc-source.ts";
import type { LanguageDetector } from "../../web/filters/web-caption-filters.ts";

/** More paths than this in one list is not a crawl's list (Common Crawl's have ≈ 90,000). */
export const MAX_PATHS = 1_000_000;

/** Bytes of one line in a part's position (8 GiB: a larger WARC is read whole); (MAX_PATHS + 1) · 2^33 < 2^53. */
export const PART_STRIDE = 2 ** 33;

/** The position of byte `byte` of line `line`'s file in a part's range. */
export function partPosition(line: number, byte: number): number {
  return (line + 1) * PART_STRIDE + byte;
}

/** A part's line and byte range, or null for a shard of whole lines. */
export function partOf(start: number | null, end: number | null): { line: number; from: number; to: number } | null {
  if (start === null || end === null || start < PART_STRIDE) return null;
  const line = Math.floor(start / PART_STRIDE) - 1;
  return { line, from: start - partPosition(line, 0), to: end - partPosition(line, 0) };
}

/** Lists of at most this many paths have their large files split (their sizes are asked at planning). */
export const SPLIT_FILES_UP_TO = 64;
/** Size requests in flight at once while planning, and the retries of each. */
const SIZE_PROBES = 8;
const SIZE_RETRIES = 2;
/** A longer line is not a path. */
const MAX_LINE_CHARS = 4096;

export function isPathsListName(fileName: string): boolean {
  return /\.paths(\.gz)?$/i.test(fileName);
}

/** The lines of a paths list (gzip or plain), trimmed, with their index; blank lines are skipped but keep their number. */
export async function* pathLines(bytes: ByteSource): AsyncGenerator<{ index: number; line: string }> {
  const chunks = drained(bytes.read());
  const it = chunks[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  async function* all(): AsyncGenerator<Buffer> {
    yield first.value as Buffer;
    for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
  }
  const gz = first.value[0] === 0x1f && first.value[1] === 0x8b;
  let decoded: AsyncIterable<Buffer> = all();
  if (gz) {
    // pipeline, not pipe: a failed read reaches the consumer instead of leaving the gunzip waiting
    const gunzip = createGunzip();
    pipeline(Readable.from(decoded), gunzip, () => {});
    decoded = gunzip;
  }
  let rest = "";
  let index = 0;
  const emit = function* (text: string) {
    const line = text.trim();
    const i = index++;
    if (line) yield { index: i, line };
  };
  try {
    for await (const chunk of decoded) {
      rest += chunk.toString("utf8");
      let nl: number;
      while ((nl = rest.indexOf("\n")) >= 0) {
        yield* emit(rest.slice(0, nl));
        rest = rest.slice(nl + 1);
      }
      if (rest.length > MAX_LINE_CHARS) throw new DumpError(bytes.label, null, `line ${index + 1} is longer than ${MAX_LINE_CHARS} characters: not a paths list`);
    }
  } catch (e) {
    if (gz && typeof (e as NodeJS.ErrnoException).code === "string" && (e as NodeJS.ErrnoException).code!.startsWith("Z_")) throw new DumpError(bytes.label, null, `damaged gzip data after line ${index}: ${(e as Error).message}`);
    throw e;
  }
  yield* emit(rest);
}

/** The URL of a path under the base, or null when it resolves outside it. */
export function pathUrl(line: string, base: string): string | null {
  const root = new URL(base.endsWith("/") ? base : `${base}/`);
  let url: URL;
  try {
    url = new URL(line, root);
  } catch {
    return null;
  }
  return url.origin === root.origin && url.pathname.startsWith(root.pathname) ? url.href : null;
}

/** How a WARC over HTTP is fetched (tests shorten the backoff; the run's `extraction.warcHttp` settings win). */
export interface PathsSourceOptions {
  http?: Omit<HttpReadOptions, "onRetry" | "onRangeIgnored" | "onWait">;
  /** lists of at most this many paths split their large files (default SPLIT_FILES_UP_TO) */
  splitFilesUpTo?: number;
  /** told what a read waits for (a silent server, a retry to come); default: a line on stderr */
  notify?: (text: string) => void;
}

/** Planning's size requests are a nicety (a file not sized is read whole): they wait at most this long. */
const PROBE_MAX_WAIT_MS = 30_000;
const PROBE_IDLE_MS = 10_000;

/** A wait told on stderr, as the run's own notes are (on a terminal, over its progress line). */
function stderrLine(text: string): void {
  process.stderr.write(`${process.stderr.isTTY ? "\r\x1b[K" : ""}[paracap] ${text}\n`);
}

/** The HTTP read settings of a run: the source's, then the run's `extraction.warcHttp`. */
function httpOptions(config: ParacapConfig | undefined, opts: PathsSourceOptions): HttpReadOptions {
  const w = config?.extraction.warcHttp;
  return {
    ...opts.http,
    ...(w ? { idleMs: w.idleSeconds * 1000, retries: w.retries, maxWaitMs: w.maxWaitSeconds * 1000 } : {}),
    onWait: opts.notify ?? stderrLine,
  };
}

export const warcPathsSource = pathsSource();

export function pathsSource(opts: PathsSourceOptions = {}): Source<WarcPage, { detector: LanguageDetector }> {
  return {
    ...warcSource,
    name: "warc-paths",
    carriesImages: true,
    description: "web crawl paths lists (warc.paths.gz, one WARC path per line): each WARC read over HTTP(S)",
    claims: (fileName) => isPathsListName(fileName),
    uploadRole: (name) => (isPathsListName(name) ? { role: "input" } : null),
    async planRanges(file, targetBytes, view): Promise<ByteRange[] | null> {
      const lines = await view.withLocalCopy(file.name, async (path) => {
        const found: { index: number; line: string }[] = [];
        for await (const l of pathLines(fileBytes(path))) {
          if (found.length === MAX_PATHS) throw new DumpError(file.name, null, `more than ${MAX_PATHS.toLocaleString("en-US")} paths: not one crawl's list`);
          found.push(l);
        }
        return found;
      });
      // a list without a path is one shard, which reads nothing and says so (never a run of no shards)
      if (lines.length === 0) return null;
      const base = lines.length <= (opts.splitFilesUpTo ?? SPLIT_FILES_UP_TO) ? view.config?.extraction.warcBaseUrl : undefined;
      const sizes: (number | null)[] = [];
      // a few at a time, few retries: planning waits for them (a file not sized is read whole)
      for (let i = 0; i < lines.length && base !== undefined; i += SIZE_PROBES) {
        sizes.push(...(await Promise.all(lines.slice(i, i + SIZE_PROBES).map(({ line }) => splittableSize(pathUrl(line, base), httpOptions(view.config, opts))))));
      }
      const ranges: ByteRange[] = [];
      for (const [k, { index }] of lines.entries()) {
        const size = sizes[k] ?? null;
        if (size === null || size <= targetBytes) {
          ranges.push({ start: index, end: index + 1, fragment: false });
          continue;
        }
        for (let from = 0; from < size; from += targetBytes) {
          ranges.push({ start: partPosition(index, from), end: partPosition(index, Math.min(size, from + targetBytes)), fragment: from > 0 });
        }
      }
      return ranges;
    },
    async *documents(shard, bytes, config, counters) {
      const part = partOf(shard.start, shard.end);
      const wanted = (index: number) => (part !== null ? index === part.line : shard.start === null || (index >= shard.start && (shard.end === null || index < shard.end)));
      let paths = 0;
      for await (const { index, line } of pathLines(bytes)) {
        paths++;
        if (!wanted(index)) continue;
        const url = pathUrl(line, config.extraction.warcBaseUrl);
        if (url === null) {
          counters.inc(warcSkippedCounter("path_outside_base"));
          counters.samples.add(WARC_DAMAGE_SAMPLE, `${bytes.label} line ${index + 1}: ${line.slice(0, 200)} is not under ${config.extraction.warcBaseUrl}`);
          continue;
        }
        yield* remoteWarc(url, config, counters, opts, part ?? { from: 0, to: null });
      }
      if (paths === 0) counters.inc(warcSkippedCounter("empty_paths_list"));
    },
    reportLines(x) {
      const files = x[warcCounter("http.files")];
      if (files === undefined) return [];
      const fmt = (v: number) => v.toLocaleString("en-US");
      const failed = x[warcSkippedCounter("http_failed")] ?? 0;
      return [`- ${fmt(files)} WARC files read over HTTP(S) from paths lists: ${fmt(x[warcCounter("http.retries")] ?? 0)} resumed reads, ${fmt(x[warcCounter("http.range_ignored")] ?? 0)} answers that ignored Range, ${fmt(failed)} file${failed === 1 ? "" : "s"} given up.`];
    },
  };
}

/** The size of a WARC worth splitting (not a WET or WAT, which are skipped whole), or null. */
async function splittableSize(url: string | null, http: HttpReadOptions): Promise<number | null> {
  if (url === null || warcKind(basename(new URL(url).pathname)) !== "warc") return null;
  const size = await remoteSize(url, {
    ...http,
    retries: Math.min(http.retries ?? SIZE_RETRIES, SIZE_RETRIES),
    idleMs: Math.min(http.idleMs ?? PROBE_IDLE_MS, PROBE_IDLE_MS),
    maxWaitMs: Math.min(http.maxWaitMs ?? PROBE_MAX_WAIT_MS, PROBE_MAX_WAIT_MS),
  });
  return size !== null && size < PART_STRIDE ? size : null;
}

/** One WARC over HTTP (or the part [from, to) of it): its pages until the end, or until the file cannot be fetched any more (counted). */
async function* remoteWarc(url: string, config: ParacapConfig, counters: Counters, opts: PathsSourceOptions, range: { from: number; to: number | null }): AsyncGenerator<WarcPage> {
  if (range.from === 0) counters.inc(warcCounter("http.files")); // a file's first part counts it
  const http: HttpReadOptions = {
    ...httpOptions(config, opts),
    onRetry: () => counters.inc(warcCounter("http.retries")),
    onRangeIgnored: () => counters.inc(warcCounter("http.range_ignored")),
  };
  const file = basename(new URL(url).pathname);
  try {
    yield* warcShardDocuments({ file, label: url, open: (start) => resumableGet(url, start, undefined, http), start: range.from, end: range.to }, config, counters);
  } catch (e) {
    if (!(e instanceof HttpReadError)) throw e;
    counters.inc(warcSkippedCounter("http_failed"));
    counters.samples.add(WARC_DAMAGE_SAMPLE, e.message);
    // the pages read before are kept; the shard is reported damaged, so the run says it is incomplete
    // (a rerun fetches it again: the server may be back)
    throw new UnreachableInputError(url, null, `given up${e.message.startsWith(url) ? e.message.slice(url.length) : `: ${e.message}`}`, { cause: e });
  }
}
