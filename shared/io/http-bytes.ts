/**
 * A file on an HTTP(S) server as a byte source: range reads that survive a dropped connection.
 * Node's http/https (not fetch: fetch decodes a `Content-Encoding` some servers put on `.gz` files,
 * which would change the bytes and their offsets). A read resumes where it stopped: after a dropped
 * connection, a stalled one or a 5xx it asks for `Range: bytes=<pos>-` again, with exponential
 * backoff; a server that ignores Range and answers 200 has the bytes already handed on skipped.
 * Consecutive failures without progress are bounded, and so is the time spent without a byte gained
 * (`maxWaitMs`, across reconnects and backoff); then the read fails with an HttpReadError. A wait is
 * never silent: `onWait` hears when a connection has said nothing for `noticeMs`, and each retry,
 * with the URL and how long the read goes on waiting.
 */
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { ByteSource } from "./byte-source.ts";

export interface HttpReadOptions {
  /** consecutive failed attempts (no byte gained) before the read gives up (default 5) */
  retries?: number;
  /** delay before the first retry, doubled for each further one (default 500 ms, at most maxBackoffMs) */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** a connection silent this long is dropped and resumed (default 60 s) */
  idleMs?: number;
  /** the longest a read goes without gaining a byte, reconnects and backoff included, before it gives up (default 5 min) */
  maxWaitMs?: number;
  /** a connection silent this long is reported to onWait (default 10 s, at most idleMs / 2) */
  noticeMs?: number;
  /** told each retry (why) and each 200 answer to a ranged request */
  onRetry?: (reason: string) => void;
  onRangeIgnored?: () => void;
  /** told, as a line for a person, what a read is waiting for: a silent connection, a retry to come */
  onWait?: (text: string) => void;
}

export const DEFAULT_IDLE_MS = 60_000;
export const DEFAULT_MAX_WAIT_MS = 300_000;
const DEFAULT_NOTICE_MS = 10_000;

const secs = (ms: number) => `${ms >= 10_000 ? Math.round(ms / 1000) : Math.round(ms / 100) / 10} s`;

/**
 * Time without a byte gained, for one read: how long it has lasted, what is left of `maxWaitMs`, and
 * a timer that tells `onWait` once per silence (re-armed when reading goes on) that the read is
 * waiting. Time the consumer spends with the bytes handed on is not waiting.
 */
class Waiting {
  private since = Date.now();
  private held = false;
  private readonly notice: NodeJS.Timeout | null;
  constructor(private readonly url: string, private readonly opts: HttpReadOptions, private readonly maxWaitMs: number, position: () => number) {
    const onWait = opts.onWait;
    const noticeMs = opts.noticeMs ?? Math.min(DEFAULT_NOTICE_MS, (opts.idleMs ?? DEFAULT_IDLE_MS) / 2);
    this.notice = onWait
      ? setTimeout(() => this.held || onWait(`waiting for ${url} (byte ${position()}): no data for ${secs(Date.now() - this.since)}; a silent connection is retried after ${secs(this.idleMs())}, the file given up after ${secs(maxWaitMs)} without data`), noticeMs)
      : null;
    this.notice?.unref();
  }
  /** bytes gained are handed on: the consumer has them */
  hold(): void {
    this.held = true;
  }
  /** the consumer asks for more: waiting starts again */
  resume(): void {
    this.held = false;
    this.since = Date.now();
    this.notice?.refresh();
  }
  waited(): number {
    return Date.now() - this.since;
  }
  /** the idle bound of the next connection: never past the total wait */
  idleMs(): number {
    return Math.max(1, Math.min(this.opts.idleMs ?? DEFAULT_IDLE_MS, this.maxWaitMs - this.waited()));
  }
  stop(): void {
    if (this.notice) clearTimeout(this.notice);
  }
}

/** The read cannot go on: a status that will not change (404), or retries exhausted. */
export class HttpReadError extends Error {
  override readonly name = "HttpReadError";
  constructor(readonly url: string, readonly position: number, problem: string) {
    super(`${url} at byte ${position}: ${problem}`);
  }
}

/** A failure worth retrying (a connection problem, a 5xx/429/408 answer). */
class Transient extends Error {}

const MAX_REDIRECTS = 5;

export function httpBytes(url: string, opts: HttpReadOptions = {}): ByteSource {
  return { label: url, read: (start = 0, end) => resumableGet(url, start, end, opts) };
}

/** Bytes [start, end) of `url` (end undefined: to its end), resuming after failures. */
export async function* resumableGet(url: string, start: number, end: number | undefined, opts: HttpReadOptions = {}): AsyncGenerator<Buffer> {
  const retries = opts.retries ?? 5;
  const maxWaitMs = opts.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  let pos = start;
  let failures = 0;
  const waiting = new Waiting(url, opts, maxWaitMs, () => pos);
  const failed = async (err: unknown): Promise<void> => {
    const problem = err instanceof Error ? err.message : String(err);
    if (!(err instanceof Transient) && !isConnectionError(err)) throw new HttpReadError(url, pos, problem);
    if (++failures > retries) throw new HttpReadError(url, pos, `${problem} (gave up after ${retries} retries)`);
    const delay = Math.min((opts.backoffMs ?? 500) * 2 ** (failures - 1), opts.maxBackoffMs ?? 30_000);
    if (waiting.waited() + delay >= maxWaitMs) throw new HttpReadError(url, pos, `${problem} (gave up: no data for ${secs(waiting.waited())}, the most a read waits is ${secs(maxWaitMs)})`);
    opts.onRetry?.(problem);
    opts.onWait?.(`${url} (byte ${pos}): ${problem}; retry ${failures} of ${retries} in ${secs(delay)} (no data for ${secs(waiting.waited())} of at most ${secs(maxWaitMs)})`);
    await new Promise((r) => setTimeout(r, delay));
  };
  try {
    yield* reads();
  } finally {
    waiting.stop();
  }
  async function* reads(): AsyncGenerator<Buffer> {
    while (end === undefined || pos < end) {
      let res: IncomingMessage;
      try {
        res = await get(url, pos, end, waiting.idleMs());
      } catch (e) {
        await failed(e);
        continue;
      }
      if (res.statusCode === 416) {
        res.destroy();
        return; // nothing at or after pos: the file ends there
      }
      // 206: the range asked for (the server may send less, then we ask again); 200: the whole file
      let skip = 0;
      let last: number | null;
      let total: number | null;
      if (res.statusCode === 206) {
        const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(String(res.headers["content-range"] ?? "").trim());
        if (!range || Number(range[1]) !== pos) {
          res.destroy();
          await failed(new Transient(`unusable Content-Range "${res.headers["content-range"] ?? ""}" for a read from ${pos}`));
          continue;
        }
        last = Number(range[2]) + 1;
        total = range[3] === "*" ? null : Number(range[3]);
      } else {
        if (pos > 0 || end !== undefined) opts.onRangeIgnored?.();
        skip = pos;
        const length = Number(res.headers["content-length"]);
        last = Number.isFinite(length) && res.headers["content-length"] !== undefined ? length : null;
        total = last;
      }
      let at = pos - skip; // file position of the next byte of this response
      let broken: unknown = null;
      const it = res[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      try {
        for (;;) {
          let next: IteratorResult<Buffer>;
          try {
            next = await it.next();
          } catch (e) {
            broken = e;
            break;
          }
          if (next.done) break;
          let chunk = next.value;
          const from = at;
          at += chunk.length;
          if (at <= pos) continue; // already handed on (a server that ignored Range)
          chunk = chunk.subarray(pos - from);
          if (end !== undefined && pos + chunk.length > end) chunk = chunk.subarray(0, end - pos);
          pos += chunk.length;
          failures = 0;
          waiting.hold();
          yield chunk;
          waiting.resume();
          if (end !== undefined && pos >= end) return;
        }
      } finally {
        res.destroy();
      }
      if (broken === null && last !== null && at < last) broken = new Transient(`connection closed after ${at} of ${last} bytes`);
      if (broken !== null) {
        await failed(broken instanceof Transient ? broken : new Transient(broken instanceof Error ? broken.message : String(broken)));
        continue;
      }
      // the response is complete: the file ends here unless the server sent a shorter range than asked
      if (res.statusCode !== 206 || total === null || pos >= total) return;
    }
  }
}

/**
 * The size of a file on an HTTP(S) server: the total of a one-byte range read's Content-Range (or the
 * Content-Length of a server that answers with the whole file, whose body is not read). Null when the
 * server does not say, or the file cannot be reached after the retries.
 */
export async function remoteSize(url: string, opts: HttpReadOptions = {}): Promise<number | null> {
  const retries = opts.retries ?? 5;
  const maxWaitMs = opts.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const waiting = new Waiting(url, opts, maxWaitMs, () => 0);
  try {
    for (let failures = 0; ; ) {
      let res: IncomingMessage;
      try {
        res = await get(url, 0, 1, waiting.idleMs());
      } catch (e) {
        const problem = e instanceof Error ? e.message : String(e);
        const delay = Math.min((opts.backoffMs ?? 500) * 2 ** failures, opts.maxBackoffMs ?? 30_000);
        if (!(e instanceof Transient) && !isConnectionError(e)) return null;
        if (++failures > retries || waiting.waited() + delay >= maxWaitMs) {
          opts.onWait?.(`${url}: ${problem}; size not known after ${secs(waiting.waited())} (the file is read whole)`);
          return null;
        }
        opts.onRetry?.(problem);
        opts.onWait?.(`${url}: ${problem}; size request retried (${failures} of ${retries}) in ${secs(delay)}`);
        await new Promise((r) => setTimeout(r, delay));
        continue;
      }
      res.destroy();
      const total = /\/(\d+)\s*$/.exec(String(res.headers["content-range"] ?? ""));
      if (res.statusCode === 206 || res.statusCode === 416) return total ? Number(total[1]) : null;
      const length = res.headers["content-length"];
      return length !== undefined && /^\d+$/.test(length) ? Number(length) : null;
    }
  } finally {
    waiting.stop();
  }
}

function isConnectionError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return typeof code === "string" && /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|EAI_AGAIN|ENOTFOUND|ENETUNREACH|EHOSTUNREACH|UND_ERR_.*|ERR_STREAM_PREMATURE_CLOSE)$/.test(code);
}

/** One GET from `pos` (redirects followed); resolves with a response to read, or rejects. */
function get(url: string, pos: number, end: number | undefined, idleMs: number, redirects = MAX_REDIRECTS): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const client = target.protocol === "https:" ? https : target.protocol === "http:" ? http : null;
    if (!client) return reject(new Error(`not an http(s) URL: ${url}`));
    const headers = { "accept-encoding": "identity", range: `bytes=${pos}-${end !== undefined ? end - 1 : ""}`, "user-agent": "paracap" };
    // no kept-alive connection: one long read per file, and nothing left open to hold the process
    const req = client.get(target, { headers, agent: false }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.destroy();
        if (redirects === 0) return reject(new Error(`too many redirects`));
        return get(new URL(res.headers.location, target).href, pos, end, idleMs, redirects - 1).then(resolve, reject);
      }
      if (status === 200 || status === 206 || status === 416) return resolve(res);
      res.destroy();
      const problem = `HTTP ${status} ${res.statusMessage ?? ""}`.trim();
      reject(status >= 500 || status === 429 || status === 408 ? new Transient(problem) : new Error(problem));
    });
    // a silent connection (also mid-body: the socket timeout outlives the headers) is cut and resumed
    req.setTimeout(idleMs, () => req.destroy(new Transient(`no data for ${idleMs} ms`)));
    req.on("error", (e) => reject(isConnectionError(e) || e instanceof Transient ? e : new Transient(e.message)));
  });
}
