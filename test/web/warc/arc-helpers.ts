/**
 * ARC files built in tests from real WARCs: each WARC response record becomes an ARC record holding
 * the same HTTP response bytes (status line, headers, body as the crawler stored them), written as
 * Heritrix and Alexa write ARCs (Internet Archive ARC file format, version 1 and 2): a version block
 * `filedesc://…`, then per record a header line, the response and a newline; `.arc.gz` with a gzip
 * member per record.
 */
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";

export interface ArcEntry {
  url: string;
  ip: string;
  /** 14 digits */
  date: string;
  mime: string;
  /** the HTTP response as stored */
  content: Buffer;
}

/** The response records of a (per-record gzipped or plain) WARC, in file order. */
export function warcResponses(path: string): ArcEntry[] {
  const raw = readFileSync(path);
  const b = raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw;
  const out: ArcEntry[] = [];
  for (let at = 0; ; ) {
    while (at < b.length && (b[at] === 13 || b[at] === 10)) at++;
    if (at >= b.length) return out;
    const blank = b.indexOf("\r\n\r\n", at);
    const head = b.toString("latin1", at, blank);
    const field = (name: string) => new RegExp(`\\r\\n${name}:[ \\t]*([^\\r\\n]*)`, "i").exec(head)?.[1]?.trim();
    const length = Number(field("Content-Length"));
    const content = b.subarray(blank + 4, blank + 4 + length);
    at = blank + 4 + length;
    if (field("WARC-Type") !== "response") continue;
    const http = content.toString("latin1", 0, Math.max(0, content.indexOf("\r\n\r\n")));
    out.push({
      url: field("WARC-Target-URI")!.replace(/^<(.*)>$/, "$1"),
      ip: field("WARC-IP-Address") ?? "0.0.0.0",
      date: field("WARC-Date")!.replace(/\D/g, "").slice(0, 14),
      mime: /\r\ncontent-type:[ \t]*([^;\s]+)/i.exec(http)?.[1] ?? "no-type",
      content,
    });
  }
}

const FIELDS = {
  1: "URL IP-address Archive-date Content-type Archive-length",
  2: "URL IP-address Archive-date Content-type Result-code Checksum Location Offset Filename Archive-length",
};

/** An ARC record's header line (without its newline) in `version`'s layout; `length` overrides the true one (a lying header). */
export function arcLine(e: ArcEntry, version: 1 | 2, opts: { offset?: number; name?: string; length?: string | number } = {}): string {
  const length = String(opts.length ?? e.content.length);
  if (version === 1) return `${e.url} ${e.ip} ${e.date} ${e.mime} ${length}`;
  const status = /^HTTP\/\S+ (\d{3})/.exec(e.content.toString("latin1", 0, 32))?.[1] ?? "-";
  const digest = createHash("sha1").update(e.content).digest("hex");
  return `${e.url} ${e.ip} ${e.date} ${e.mime} ${status} ${digest} - ${opts.offset ?? 0} ${opts.name ?? "test.arc"} ${length}`;
}

/** One ARC record: header line, content, newline. */
export function arcRecord(e: ArcEntry, version: 1 | 2 = 1, opts: { offset?: number; name?: string; length?: string | number } = {}): Buffer {
  return Buffer.concat([Buffer.from(`${arcLine(e, version, opts)}\n`, "utf8"), e.content, Buffer.from("\n")]);
}

/** The version block: `filedesc://<name>` and its body naming the version and its fields. */
export function versionBlock(name: string, version: 1 | 2, date = "20240425000000"): Buffer {
  const body = `${version} 0 paracap-test\n${FIELDS[version]}\n`;
  return Buffer.from(`filedesc://${name} 0.0.0.0 ${date} text/plain ${Buffer.byteLength(body)}\n${body}\n`, "utf8");
}

/** A whole ARC: version block and records, plain or with a gzip member per record (v2 records name their own offsets). */
export function writeArc(entries: ArcEntry[], opts: { version?: 1 | 2; gzip?: boolean; name?: string } = {}): Buffer {
  const version = opts.version ?? 1;
  const name = opts.name ?? `test.arc${opts.gzip ? ".gz" : ""}`;
  const parts: Buffer[] = [];
  let offset = 0;
  const add = (b: Buffer) => {
    const out = opts.gzip ? gzipSync(b) : b;
    parts.push(out);
    offset += out.length;
  };
  add(versionBlock(name, version));
  for (const e of entries) add(arcRecord(e, version, { offset, name }));
  return Buffer.concat(parts);
}
