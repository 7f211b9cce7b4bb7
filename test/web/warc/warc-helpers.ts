/** Small WARCs built in tests, and a reader over a file or a buffer. */
import { createReadStream } from "node:fs";
import { gzipSync } from "node:zlib";
import { Counters } from "../../../shared/core/counters.ts";
import { readWarc, type WarcContentRecord, type WarcReadOptions } from "../../../shared/web/warc/warc-reader.ts";

export const DATA = new URL("../../../../shared/data/warc/", import.meta.url).pathname;
export const EDGE = `${DATA}warcio-edge-cases/`;

let serial = 0;

/** One WARC record; `length` overrides the true Content-Length (a lying header). */
export function warcRecord(type: string, block: Buffer | string, opts: { uri?: string; version?: string; length?: number; extra?: string; id?: string } = {}): Buffer {
  const body = Buffer.isBuffer(block) ? block : Buffer.from(block, "latin1");
  const id = opts.id ?? `<urn:uuid:00000000-0000-0000-0000-${String(++serial).padStart(12, "0")}>`;
  const head =
    `${opts.version ?? "WARC/1.0"}\r\nWARC-Type: ${type}\r\nWARC-Record-ID: ${id}\r\nWARC-Date: 2024-05-18T00:00:00Z\r\n` +
    (opts.uri ? `WARC-Target-URI: ${opts.uri}\r\n` : "") +
    (type === "response" ? "Content-Type: application/http; msgtype=response\r\n" : "") +
    (opts.extra ?? "") +
    `Content-Length: ${opts.length ?? body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, "latin1"), body, Buffer.from("\r\n\r\n")]);
}

/** An HTTP response block: status line, headers, body as given. */
export function httpResponse(body: Buffer | string, headers: Record<string, string> = { "Content-Type": "text/html; charset=utf-8" }, status = "200 OK"): Buffer {
  const b = Buffer.isBuffer(body) ? body : Buffer.from(body, "utf8");
  const h = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("");
  return Buffer.concat([Buffer.from(`HTTP/1.1 ${status}\r\n${h}\r\n`, "latin1"), b]);
}

export function htmlResponse(uri: string, html: string, headers?: Record<string, string>): Buffer {
  return warcRecord("response", httpResponse(html, headers), { uri });
}

/** Per-record gzip, as crawlers write .warc.gz. */
export function gzipRecords(records: Buffer[]): Buffer {
  return Buffer.concat(records.map((r) => gzipSync(r)));
}

async function* chunked(buf: Buffer, start: number, size = 4096): AsyncGenerator<Buffer> {
  for (let i = start; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

export type ReadOpts = Partial<Omit<WarcReadOptions, "open" | "file" | "counters">>;

export async function readAll(input: string | Buffer, opts: ReadOpts = {}): Promise<{ records: WarcContentRecord[]; counters: Counters }> {
  const counters = new Counters();
  const open = typeof input === "string" ? (s: number) => createReadStream(input, { start: s }) as AsyncIterable<Buffer> : (s: number) => chunked(input, s);
  const records: WarcContentRecord[] = [];
  for await (const r of readWarc({ open, file: typeof input === "string" ? input : "buffer", counters, maxBodyBytes: 8 << 20, ...opts })) records.push(r);
  return { records, counters };
}

/** The records of an uncompressed WARC written plainly (each followed by its CRLF CRLF), each as its bytes. */
export function splitPlainRecords(plain: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < plain.length; ) {
    const blank = plain.indexOf("\r\n\r\n", at);
    const length = Number(/Content-Length: (\d+)/i.exec(plain.toString("latin1", at, blank))![1]);
    const end = blank + 4 + length + 4;
    out.push(plain.subarray(at, end));
    at = end;
  }
  return out;
}
