/**
 * A file on an HTTP(S) server as a byte source: range reads that survive a dropped connection.
 * Node's http/https (not fetch: fetch decodes a `Content-Encoding` some servers put on `.gz` files,
 * which would change the bytes and their offsets). A read resumes where it stopped: after a dropped
 * connection, a stalled one or a 5xx it asks for `Range: bytes=<pos>-` again, with exponential
 * backoff; a server that ignores Range and answers 200 has the bytes already handed on skipped.
 * Consecutive failures without progress are bounded; then the read fails with an HttpReadError.
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
  /** told each retry (why) and each 200 answer to a ranged request */
  onRetry?: (reason: string) => void;
  onRangeIgnored?: () => void;
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
  let pos = start;
  let failures = 0;
  const failed = async (err: unknown): Promise<void> => {
    const problem = err instanceof Error ? err.message : String(err);
    if (!(err instanceof Transient) && !isConnectionError(err)) throw new HttpReadError(url, pos, problem);
    if (++failures > retries) throw new HttpReadError(url, pos, `${problem} (gave up after ${retries} retries)`);
    opts.onRetry?.(problem);
    const delay = Math.min((opts.backoffMs ?? 500) * 2 ** (failures - 1), opts.maxBackoffMs ?? 30_000);
    await new Promise((r) => setTimeout(r, delay));
  };
  while (end === undefined || pos < end) {
    let res: IncomingMessage;
    try {
      res = await get(url, pos, end, opts.idleMs ?? 60_000);
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
        yield chunk;
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

/**
 * The size of a file on an HTTP(S) server: the total of a one-byte range read's Content-Range (or the
 * Content-Length of a server that answers with the whole file, whose body is not read). Null when the
 * server does not say, or the file cannot be reached after the retries.
 */
export async function remoteSize(url: string, opts: HttpReadOptions = {}): Promise<number | null> {
  const retries = opts.retries ?? 5;
  for (let failures = 0; ; ) {
    let res: IncomingMessage;
    try {
      res = await get(url, 0, 1, opts.idleMs ?? 60_000);
    } catch (e) {
      if ((!(e instanceof Transient) && !isConnectionError(e)) || ++failures > retries) return null;
      opts.onRetry?.(e instanceof Error ? e.message : String(e));
      await new Promise((r) => setTimeout(r, Math.min((opts.backoffMs ?? 500) * 2 ** (failures - 1), opts.maxBackoffMs ?? 30_000)));
      continue;
    }
    res.destroy();
    const total = /\/(\d+)\s*$/.exec(String(res.headers["content-range"] ?? ""));
    if (res.statusCode === 206 || res.statusCode === 416) return total ? Number(total[1]) : null;
    const length = res.headers["content-length"];
    return length !== undefined && /^\d+$/.test(length) ? Number(length) : null;
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
