/**
 * A crawl's paths list (Common Crawl's `warc.paths.gz`, or the same plain): one WARC path per line,
 * each read over HTTP(S) from under `extraction.warcBaseUrl` (default https://data.commoncrawl.org/).
 * Each line is one shard, so a crawl fans out over its files in both runners: the planner reads the
 * list once; a shard's range is its LINE index [i, i+1) in the (decoded) list, not a byte range, and
 * its task reads the list again (small: ≈ 1 MB for 90,000 paths) to find its line.
 *
 * A WARC is read with resumable range requests (shared/io/http-bytes.ts) and parsed exactly as a local
 * file (warcDocuments), so a crawl read over HTTP gives the same documents as its files read locally.
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
import { DumpError } from "../../dump/errors.ts";
import { drained, type ByteSource } from "../../io/byte-source.ts";
import { fileBytes } from "../../io/file-bytes.ts";
import { HttpReadError, resumableGet, type HttpReadOptions } from "../../io/http-bytes.ts";
import type { ByteRange, Source } from "../source.ts";
import { warcDocuments, warcSource, type WarcPage } from "./warc-source.ts";
import type { LanguageDetector } from "../../web/filters/web-caption-filters.ts";

/** More paths than this in one list is not a crawl's list (Common Crawl's have ≈ 90,000). */
export const MAX_PATHS = 1_000_000;
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

/** How a WARC over HTTP is fetched (tests shorten the backoff). */
export interface PathsSourceOptions {
  http?: Omit<HttpReadOptions, "onRetry" | "onRangeIgnored">;
}

export const warcPathsSource = pathsSource();

export function pathsSource(opts: PathsSourceOptions = {}): Source<WarcPage, { detector: LanguageDetector }> {
  return {
    ...warcSource,
    name: "warc-paths",
    description: "web crawl paths lists (warc.paths.gz, one WARC path per line): each WARC read over HTTP(S)",
    claims: (fileName) => isPathsListName(fileName),
    uploadRole: (name) => (isPathsListName(name) ? { role: "input" } : null),
    async planRanges(file, _targetBytes, view): Promise<ByteRange[]> {
      return view.withLocalCopy(file.name, async (path) => {
        const ranges: ByteRange[] = [];
        for await (const { index } of pathLines(fileBytes(path))) {
          if (ranges.length === MAX_PATHS) throw new DumpError(file.name, null, `more than ${MAX_PATHS.toLocaleString("en-US")} paths: not one crawl's list`);
          ranges.push({ start: index, end: index + 1, fragment: false });
        }
        return ranges;
      });
    },
    async *documents(shard, bytes, config, counters) {
      const wanted = (index: number) => shard.start === null || (index >= shard.start && (shard.end === null || index < shard.end));
      for await (const { index, line } of pathLines(bytes)) {
        if (!wanted(index)) continue;
        const url = pathUrl(line, config.extraction.warcBaseUrl);
        if (url === null) {
          counters.inc(warcSkippedCounter("path_outside_base"));
          counters.samples.add(WARC_DAMAGE_SAMPLE, `${bytes.label} line ${index + 1}: ${line.slice(0, 200)} is not under ${config.extraction.warcBaseUrl}`);
          continue;
        }
        yield* remoteWarc(url, config, counters, opts);
      }
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

/** One WARC over HTTP: its pages until the end, or until the file cannot be fetched any more (counted). */
async function* remoteWarc(url: string, config: ParacapConfig, counters: Counters, opts: PathsSourceOptions): AsyncGenerator<WarcPage> {
  counters.inc(warcCounter("http.files"));
  const http: HttpReadOptions = {
    ...opts.http,
    onRetry: () => counters.inc(warcCounter("http.retries")),
    onRangeIgnored: () => counters.inc(warcCounter("http.range_ignored")),
  };
  const file = basename(new URL(url).pathname);
  try {
    yield* warcDocuments({ file, label: url, open: (start) => resumableGet(url, start, undefined, http), start: 0, end: null }, config, counters);
  } catch (e) {
    if (!(e instanceof HttpReadError)) throw e;
    counters.inc(warcSkippedCounter("http_failed"));
    counters.samples.add(WARC_DAMAGE_SAMPLE, e.message);
  }
}
