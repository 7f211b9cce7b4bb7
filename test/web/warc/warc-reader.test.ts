/**
 * WARC reading on the real crawls in shared/data/warc and warcio's malformed cases, and on hostile
 * records built here. Expected record counts are those PROVENANCE.md lists for each file (measured
 * there independently of this reader).
 */
import { readdirSync, readFileSync } from "node:fs";
import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it, vi } from "vitest";
import { warcCounter, warcSkippedCounter } from "../../../shared/core/counter-names.ts";
import { BUILTIN_SOURCES } from "../../../shared/sources/registry.ts";
import { DATA, EDGE, gzipRecords, htmlResponse, httpResponse, readAll, splitPlainRecords, warcRecord } from "./warc-helpers.ts";

describe("real WARCs", () => {
  it("dolma (wget, per-record gzip): 22 responses + 2 resources are content; request, metadata, warcinfo skipped", async () => {
    const { records, counters } = await readAll(`${DATA}dolma-sample-0000.warc.gz`);
    expect(records.filter((r) => r.type === "response")).toHaveLength(22);
    expect(records.filter((r) => r.type === "resource")).toHaveLength(2);
    expect(counters.get(warcCounter("records"))).toBe(48);
    expect(counters.get(warcSkippedCounter("request"))).toBe(22);
    expect(counters.get(warcSkippedCounter("metadata"))).toBe(1);
    expect(counters.get(warcSkippedCounter("warcinfo"))).toBe(1);
    // wget's `<https://…>` target URIs lose their brackets
    expect(records[0]!.targetUri).toMatch(/^https:\/\//);
    // offsets are member starts, increasing
    for (let i = 1; i < records.length; i++) expect(records[i]!.offset).toBeGreaterThan(records[i - 1]!.offset);
  });

  it("pywb iana: 48 responses are content, the 123 revisit records never are", async () => {
    const { records, counters } = await readAll(`${DATA}pywb-iana.warc.gz`);
    expect(records).toHaveLength(48);
    expect(records.every((r) => r.type === "response")).toBe(true);
    expect(counters.get(warcCounter("records.revisit"))).toBe(123);
    expect(counters.get(warcSkippedCounter("request"))).toBe(171);
  });

  it("Common Crawl: one response with its record id, target and date", async () => {
    const { records } = await readAll(`${DATA}commoncrawl-whirlwind.warc.gz`);
    expect(records).toHaveLength(1);
    expect(records[0]!.targetUri).toBe("https://an.wikipedia.org/wiki/Escopete");
    expect(records[0]!.recordId).toMatch(/^<urn:uuid:/);
    expect(records[0]!.date).toMatch(/^2024-05-18/);
    expect(records[0]!.status).toBe(200);
  });

  it("WET and WAT records are conversion and metadata records: nothing is content", async () => {
    expect((await readAll(`${DATA}commoncrawl-whirlwind.warc.wet.gz`)).counters.get(warcSkippedCounter("conversion"))).toBe(1);
    expect((await readAll(`${DATA}commoncrawl-whirlwind.warc.wat.gz`)).records).toHaveLength(0);
  });

  it("a shard owns the members that start in its range: split anywhere, every record is read once", async () => {
    const path = `${DATA}pywb-iana.warc.gz`;
    const whole = (await readAll(path)).records.map((r) => r.recordId);
    for (const cut of [1, 5000, 333_333, 786_000]) {
      const a = await readAll(path, { start: 0, end: cut });
      const b = await readAll(path, { start: cut, end: null });
      expect([...a.records, ...b.records].map((r) => r.recordId)).toEqual(whole);
      // one file, however many shards read it
      expect(a.counters.get(warcCounter("files")) + b.counters.get(warcCounter("files"))).toBe(1);
    }
  });

  it("an uncompressed WARC splits too: a shard starts at the first `WARC/1.x` line in its range", async () => {
    for (const path of [`${EDGE}example.warc`, `${EDGE}example-iana.org-chunked.warc`]) {
      const whole = (await readAll(path)).records.map((r) => r.recordId);
      const size = (await import("node:fs")).statSync(path).size;
      for (const cut of [1, 700, Math.floor(size / 2), size - 10]) {
        const a = await readAll(path, { start: 0, end: cut });
        const b = await readAll(path, { start: cut, end: null });
        expect([...a.records, ...b.records].map((r) => r.recordId)).toEqual(whole);
      }
    }
  });

  it("the warc. counters reach stats.json's extraction section", () => {
    expect(BUILTIN_SOURCES.isExtractionCounter(warcCounter("records"))).toBe(true);
  });
});

describe("warcio's malformed cases: every file completes with counts", () => {
  const files = readdirSync(EDGE).filter((f) => !f.endsWith(".md"));
  it.each(files)("%s", async (f) => {
    const { counters } = await readAll(`${EDGE}${f}`);
    expect(counters.get(warcCounter("files"))).toBe(1);
    expect(counters.get(warcCounter("records")) + counters.get(warcCounter("records.damaged"))).toBeGreaterThan(0);
  });

  it("bytes left after a record (its Content-Length too small) are damage with their offset, never a line on stderr", async () => {
    // warcio prints "Content-Length Too Small: …" with console.warn; the reader counts it instead
    const page = (n: number) => htmlResponse(`http://example.org/${n}`, `<p>page ${n}</p>`);
    const printed: string[] = [];
    const warn = vi.spyOn(console, "warn").mockImplementation((...a: unknown[]) => void printed.push(a.join(" ")));
    const write = vi.spyOn(process.stderr, "write").mockImplementation((c: string | Uint8Array) => (printed.push(String(c)), true));
    try {
      for (const parser of ["sync", "warcio"] as const) {
        const { records, counters } = await readAll(`${EDGE}example-trunc.warc`, { parser });
        expect(counters.get(warcSkippedCounter("damaged.content_length_too_small"))).toBe(1);
        expect(counters.get(warcCounter("records.damaged"))).toBe(1);
        expect([...counters.samples.get("warc.damaged_records")]).toEqual([`${EDGE}example-trunc.warc@2560: content_length_too_small`]);
        expect(records).toHaveLength(1); // the response is read as before; the request after it is skipped as ever
        // crafted: a record whose Content-Length is 5 bytes short, plain and in a gzip member of its own
        const short = warcRecord("response", httpResponse("<p>short by five</p>"), { uri: "http://example.org/short", length: httpResponse("<p>short by five</p>").length - 5 });
        const plain = await readAll(Buffer.concat([short, page(2)]), { parser });
        expect(plain.records.map((r) => r.targetUri)).toEqual(["http://example.org/short", "http://example.org/2"]);
        // the offset of the bytes left over: the record's last five, before its closing blank lines
        expect([...plain.counters.samples.get("warc.damaged_records")]).toEqual([`buffer@${short.length - 4 - 5}: content_length_too_small`]);
        const first = gzipRecords([page(1)]);
        const gz = await readAll(Buffer.concat([first, gzipRecords([short, page(2)])]), { parser });
        expect(gz.records.map((r) => r.targetUri)).toEqual(["http://example.org/1", "http://example.org/short", "http://example.org/2"]);
        expect([...gz.counters.samples.get("warc.damaged_records")]).toEqual([`buffer@${first.length}: content_length_too_small`]);
      }
    } finally {
      warn.mockRestore();
      write.mockRestore();
    }
    expect(printed).toEqual([]);
  });

  it("a record split across gzip members (wrong chunks: its headers in one, its body in the next) is read whole, as one stream", async () => {
    for (const parser of ["sync", "warcio"] as const) {
      const { records, counters } = await readAll(`${EDGE}example-wrong-chunks.warc.gz`, { parser });
      expect(records.map((r) => [r.offset, r.targetUri, r.status])).toEqual([[0, "http://example.com/", 200]]);
      // the page's whole HTML (Python's warcio `recompress` reads the same 1270 bytes)
      expect(records[0]!.body.toString("latin1")).toMatch(/^<!doctype html>[^]*<\/html>\n$/);
      expect(records[0]!.body.length).toBe(1270);
      expect(counters.get(warcCounter("records.split_across_members"))).toBe(1);
      // the request in its third member (after blank lines) is read too
      expect(counters.get(warcSkippedCounter("request"))).toBe(1);
      expect(counters.get(warcCounter("records"))).toBe(2);
      expect(counters.get(warcCounter("records.damaged"))).toBe(0);
    }
  });

  it("chunked transfer encoding is kept for the body decoder; the revisit of example.warc is not content", async () => {
    const chunked = await readAll(`${EDGE}example-iana.org-chunked.warc`);
    expect(chunked.records).toHaveLength(1);
    expect(chunked.records[0]!.headers.get("transfer-encoding")).toBe("chunked");
    const plain = await readAll(`${EDGE}example.warc`);
    const gz = await readAll(`${EDGE}example.warc.gz`);
    expect(plain.records.map((r) => r.recordId)).toEqual(gz.records.map((r) => r.recordId));
    expect(gz.counters.get(warcCounter("records.revisit"))).toBe(1);
  });
});

describe("hostile records: bounded, counted, and the next record is still read", () => {
  const page = (n: number) => htmlResponse(`http://example.org/${n}`, `<p>page ${n}</p>`);

  it("a 2 GB Content-Length claim (plain and gzip): skipped, the next record read", async () => {
    const liar = warcRecord("response", httpResponse("<p>short</p>"), { uri: "http://example.org/liar", length: 2 * 1024 ** 3 });
    const plain = await readAll(Buffer.concat([page(1), liar, page(2)]));
    expect(plain.records.map((r) => r.targetUri)).toEqual(["http://example.org/1", "http://example.org/2"]);
    // the claim runs past the end of the file over the next record: the reader resumes there
    expect(plain.counters.get(warcSkippedCounter("damaged.content_length_too_large"))).toBe(1);
    expect(plain.counters.get(warcCounter("resyncs"))).toBe(1);
    // with no record after it, it may have been cut by the file's end: truncated
    const last = await readAll(Buffer.concat([page(1), liar]));
    expect(last.counters.get(warcSkippedCounter("damaged.truncated"))).toBe(1);
    const gz = await readAll(gzipRecords([page(1), liar, page(2)]));
    expect(gz.records.map((r) => r.targetUri)).toEqual(["http://example.org/1", "http://example.org/2"]);
    // in a gzip member the claim ends with the member, and the rest of the member is searched for a record (as in a plain file)
    expect(gz.counters.get(warcSkippedCounter("damaged.truncated"))).toBe(1);
    expect(gz.counters.get(warcCounter("resyncs"))).toBe(1);
  });

  it("a 100 MB attribute: the body bound skips the record without holding it", async () => {
    const huge = Buffer.concat([Buffer.from('<img alt="'), Buffer.alloc(100 * 1024 * 1024, 0x61), Buffer.from('" src="a.jpg">')]);
    const { records, counters } = await readAll(gzipRecords([page(1), warcRecord("response", httpResponse(huge), { uri: "http://example.org/huge" }), page(2)]));
    expect(records.map((r) => r.targetUri)).toEqual(["http://example.org/1", "http://example.org/2"]);
    expect(counters.get(warcSkippedCounter("body_too_large"))).toBe(1);
  });

  it("a header block of 5 MB is damage, not memory", async () => {
    const bloated = warcRecord("response", httpResponse("<p>x</p>"), { uri: "http://example.org/bloat", extra: `X-Junk: ${"j".repeat(5 * 1024 * 1024)}\r\n` });
    for (const input of [gzipRecords([page(1), bloated, page(2)]), Buffer.concat([page(1), bloated, page(2)])]) {
      const { records, counters } = await readAll(input);
      expect(records.map((r) => r.targetUri)).toEqual(["http://example.org/1", "http://example.org/2"]);
      expect(counters.get(warcSkippedCounter("damaged.header_too_large"))).toBe(1);
    }
  });

  it("garbage between members and a cut last member: counted, with resync to the next verified member", async () => {
    const good = gzipRecords([page(1)]);
    // a fake gzip magic inside the garbage must not be trusted: it does not decode to a WARC record
    const garbage = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0]), Buffer.alloc(500, 7)]);
    const cut = gzipSync(page(3)).subarray(0, 40);
    const { records, counters } = await readAll(Buffer.concat([good, garbage, gzipRecords([page(2)]), cut]));
    expect(records.map((r) => r.targetUri)).toEqual(["http://example.org/1", "http://example.org/2"]);
    expect(counters.get(warcCounter("records.damaged"))).toBe(2);
    expect(counters.get(warcCounter("resyncs"))).toBe(2);
  });

  it("WARC/1.1 and a record that is not WARC at all, in a plain file", async () => {
    const v11 = warcRecord("response", httpResponse("<p>v11</p>"), { uri: "http://example.org/v11", version: "WARC/1.1" });
    const { records, counters } = await readAll(Buffer.concat([v11, Buffer.from("HTTP/1.1 200 OK\r\nfoo: bar\r\n\r\nnot a record\r\n\r\n"), page(2)]));
    expect(records.map((r) => r.targetUri)).toEqual(["http://example.org/v11", "http://example.org/2"]);
    expect(counters.get(warcSkippedCounter("damaged.not_a_warc_record"))).toBe(1);
  });

  it("a record the caller does not want is skipped unread, with its reason", async () => {
    const png = warcRecord("response", httpResponse(Buffer.alloc(100), { "Content-Type": "image/png" }), { uri: "http://example.org/a.png" });
    const { records, counters } = await readAll(gzipRecords([png, page(1)]), { accept: (h) => (/html/.test(h.headers.get("content-type") ?? "") ? null : "not_html") });
    expect(records).toHaveLength(1);
    expect(counters.get(warcSkippedCounter("not_html"))).toBe(1);
  });
});

describe("framing as crawlers really write it: blank bytes, cut records, no record lost and no read without end", () => {
  // dolma's 48 records (22 requests, 22 responses, 2 resources, metadata, warcinfo), one by one
  const records = splitPlainRecords(gunzipSync(readFileSync(`${DATA}dolma-sample-0000.warc.gz`)));
  const types = records.map((r) => /WARC-Type: (\S+)/.exec(r.toString("latin1"))![1]);
  const counts = (c: Awaited<ReturnType<typeof readAll>>["counters"]) => ({
    records: c.get(warcCounter("records")),
    requests: c.get(warcSkippedCounter("request")),
    damaged: c.get(warcCounter("records.damaged")),
  });
  const whole = { records: 48, requests: 22, damaged: 0 };
  const without = (r: Buffer, cut: number) => r.subarray(0, r.length - cut);

  it("the records split here are dolma's", () => {
    expect(records).toHaveLength(48);
    expect(types.filter((t) => t === "request")).toHaveLength(22);
  });

  it("a blank line of any kind after a record or before the first (a stray LF, LF LF, CRLF, a space): every record is read", async () => {
    const variants = [
      Buffer.concat(records.map((r) => Buffer.concat([r, Buffer.from("\n")]))),
      Buffer.concat(records.map((r) => Buffer.concat([without(r, 4), Buffer.from("\n\n")]))),
      Buffer.concat([Buffer.from("\r\n"), ...records]),
      Buffer.concat([Buffer.from(" \r\n\t\n"), ...records.map((r) => Buffer.concat([r, Buffer.from(" \r\r\n")]))]),
    ];
    for (const v of variants) {
      const { records: content, counters } = await readAll(v);
      expect(counts(counters)).toEqual(whole);
      expect(content).toHaveLength(24);
    }
  });

  it("blank bytes before and between gzip members (CRLF, NULs) are padding, not damage", async () => {
    const members = records.map((r) => gzipSync(r));
    for (const pad of [Buffer.from("\r\n"), Buffer.alloc(512)]) {
      const { records: content, counters } = await readAll(Buffer.concat(members.flatMap((m) => [pad, m])));
      expect(counts(counters)).toEqual(whole);
      expect(content).toHaveLength(24);
      expect(counters.get(warcCounter("bytes.skipped"))).toBe(48 * pad.length);
    }
    // 100 kB of newlines before the first member: still a gzip WARC, and only three bytes are held to say so
    const lead = await readAll(Buffer.concat([Buffer.alloc(100_000, 0x0a), ...members]));
    expect(counts(lead.counters)).toEqual(whole);
  });

  it("a cut record the reader skips (a request; an image it does not want) ends as truncated damage, and the next member is read", async () => {
    const i = types.indexOf("request");
    const cut = [...records.slice(0, i), without(records[i]!, 50), ...records.slice(i + 1)];
    const gz = await readAll(gzipRecords(cut));
    expect(counts(gz.counters)).toEqual({ records: 48, requests: 21, damaged: 1 });
    expect(gz.counters.get(warcSkippedCounter("damaged.truncated"))).toBe(1);
    // the cut request is the file's last record: the read ends (warcio's own skip spins forever here)
    const last = await readAll(gzipRecords([...records.slice(0, i), without(records[i]!, 50)]));
    expect(counts(last.counters)).toEqual({ records: i + 1, requests: 0, damaged: 1 });
    const plainLast = await readAll(Buffer.concat([...records.slice(0, i), without(records[i]!, 50)]));
    expect(counts(plainLast.counters)).toEqual({ records: i + 1, requests: 0, damaged: 1 });
    // an image response the caller skips unread, cut inside its body
    const png = warcRecord("response", httpResponse(Buffer.alloc(5000, 1), { "Content-Type": "image/png" }), { uri: "http://example.org/a.png" });
    const notHtml = { accept: (h: { headers: ReadonlyMap<string, string> }) => (/html/.test(h.headers.get("content-type") ?? "") ? null : "not_html") };
    for (const input of [gzipRecords([records[0]!, without(png, 2000)]), Buffer.concat([records[0]!, without(png, 2000)])]) {
      const { counters } = await readAll(input, notHtml);
      expect(counters.get(warcSkippedCounter("damaged.truncated"))).toBe(1);
    }
  });

  it("a request record claiming 10 kB more than its member holds: truncated damage, the rest read", async () => {
    const i = types.indexOf("request");
    const liar = Buffer.from(records[i]!.toString("latin1").replace(/Content-Length: (\d+)/, (_, n: string) => `Content-Length: ${Number(n) + 10_000}`), "latin1");
    const { records: content, counters } = await readAll(gzipRecords([...records.slice(0, i), liar, ...records.slice(i + 1)]));
    expect(counts(counters)).toEqual({ records: 48, requests: 21, damaged: 1 });
    expect(content).toHaveLength(24);
  });

  it("header lines ended by LF alone (WARC says CRLF; Python's warcio reads them): every record read as with CRLF, in every framing", async () => {
    // dolma's records with each header block's lines ended by LF (its blank line too), the bodies
    // unchanged, and each Content-Length the length of the content as rewritten
    const lfBlock = (text: string, from: number) => {
      const end = text.indexOf("\r\n\r\n", from);
      return { head: text.slice(from, end).replace(/\r\n/g, "\n") + "\n\n", rest: end + 4 };
    };
    const rewrite = (r: Buffer, http: boolean, trailer: string) => {
      const text = r.toString("latin1");
      const warc = lfBlock(text, 0);
      const length = Number(/Content-Length: (\d+)/.exec(warc.head)![1]);
      let content = text.slice(warc.rest, warc.rest + length);
      if (http && /WARC-Type: (response|request)\n/.test(warc.head)) {
        const h = lfBlock(content, 0);
        content = h.head + content.slice(h.rest);
      }
      const head = warc.head.replace(/Content-Length: \d+/, `Content-Length: ${content.length}`);
      return Buffer.from(head + content + trailer, "latin1");
    };
    const lf = records.map((r) => rewrite(r, true, "\n\n"));
    const lfHttpOnly = records.map((r) => {
      const text = r.toString("latin1");
      const warcEnd = text.indexOf("\r\n\r\n") + 4;
      const m = rewrite(r, true, "\r\n\r\n").toString("latin1");
      const content = m.slice(m.indexOf("\n\n") + 2, m.length - 4);
      return Buffer.from(text.slice(0, warcEnd).replace(/Content-Length: \d+/, `Content-Length: ${content.length}`) + content + "\r\n\r\n", "latin1");
    });
    const reference = await readAll(Buffer.concat(records));
    const view = (rs: Awaited<ReturnType<typeof readAll>>["records"]) => rs.map((r) => ({ uri: r.targetUri, id: r.recordId, status: r.status, headers: [...r.headers], body: r.body.toString("base64") }));
    const inputs = { plain: Buffer.concat(lf), memberPerRecord: gzipRecords(lf), wholeFileGzip: gzipSync(Buffer.concat(lf)), httpOnlyPlain: Buffer.concat(lfHttpOnly), httpOnlyGzip: gzipRecords(lfHttpOnly) };
    for (const [name, input] of Object.entries(inputs)) {
      const { records: content, counters } = await readAll(input);
      expect({ name, ...counts(counters) }).toEqual({ name, ...whole });
      expect(counters.get(warcCounter("records.lf_headers")), name).toBe(name.startsWith("httpOnly") ? 44 : 48);
      expect(view(content), name).toEqual(view(reference.records));
    }
    // a shard starting anywhere in the plain file: the resync finds LF records, each read once
    const plain = inputs.plain;
    for (const cut of [1, 5000, Math.floor(plain.length / 2), plain.length - 100]) {
      const a = await readAll(plain, { start: 0, end: cut });
      const b = await readAll(plain, { start: cut, end: null });
      expect(view([...a.records, ...b.records])).toEqual(view(reference.records));
      expect(a.counters.get(warcCounter("records.damaged")) + b.counters.get(warcCounter("records.damaged"))).toBe(0);
    }
  });

  it("a plain record whose Content-Length is too large (it runs over the next record's start): content_length_too_large at that record, the records after it read", async () => {
    const i = types.indexOf("response");
    const lengthPlus = (r: Buffer, k: number) => Buffer.from(r.toString("latin1").replace(/Content-Length: (\d+)/, (_, n: string) => `Content-Length: ${Number(n) + k}`), "latin1");
    const reference = await readAll(Buffer.concat(records));
    const others = (rs: Awaited<ReturnType<typeof readAll>>["records"]) => rs.filter((r) => r.recordId !== reference.records.find((x) => x.offset === liarAt)?.recordId).map((r) => [r.recordId, r.body.length]);
    const liarAt = Buffer.concat(records.slice(0, i)).length;
    // over the next record's first line, its headers, its body, and past it into the one after
    for (const k of [10, 100, records[i + 1]!.length - 20, records[i + 1]!.length + 50]) {
      const { records: content, counters } = await readAll(Buffer.concat([...records.slice(0, i), lengthPlus(records[i]!, k), ...records.slice(i + 1)]));
      expect({ k, ...counts(counters) }).toEqual({ k, records: 48, requests: 22, damaged: 1 });
      expect([...counters.samples.get("warc.damaged_records")]).toEqual([`buffer@${liarAt}: content_length_too_large`]);
      expect(others(content)).toEqual(others(reference.records));
    }
    // too small, its payload a record quoted whole: still too small, at the bytes left over
    const archived = warcRecord("resource", Buffer.concat([records[0]!, Buffer.from("<!-- the end of the archived record -->\n")]), { uri: "http://example.org/a.warc", length: records[0]!.length + 30 });
    const { counters } = await readAll(Buffer.concat([records[1]!, archived, records[2]!]));
    expect([...counters.samples.get("warc.damaged_records")]).toEqual([`buffer@${records[1]!.length + archived.indexOf("<!-- the end") + 30}: content_length_too_small`]);
  });

  it("a plain record whose Content-Length runs past the file's end over the records after it (reached in turn or by a resync): content_length_too_large at that record, as the file gzipped whole reads it", async () => {
    // dolma's first 4 responses, the third claiming 2 TB
    const responses = records.filter((_, k) => types[k] === "response").slice(0, 4);
    const rs = responses.map((r, k) => (k === 2 ? Buffer.from(r.toString("latin1").replace(/Content-Length: \d+/, "Content-Length: 2000000000000"), "latin1") : r));
    const liarAt = rs[0]!.length + rs[1]!.length;
    const id = (r: Buffer) => /WARC-Record-ID: (\S+)/.exec(r.toString("latin1"))![1];
    const seen = (c: Awaited<ReturnType<typeof readAll>>["counters"]) => ({ ...counts(c), bodyTooLarge: c.get(warcSkippedCounter("body_too_large")), reasons: [...c.samples.get("warc.damaged_records")] });
    // 20 kB: the first two are over the bound, so a resync finds the liar; 8 MiB: it is read in turn
    for (const [maxBodyBytes, over] of [[20_000, 2], [8 << 20, 0]] as const) {
      const plain = await readAll(Buffer.concat(rs), { maxBodyBytes });
      expect({ maxBodyBytes, ...seen(plain.counters) }).toEqual({ maxBodyBytes, records: 4, requests: 0, damaged: 1, bodyTooLarge: over, reasons: [`buffer@${liarAt}: content_length_too_large`] });
      expect(plain.records.map((r) => r.recordId)).toEqual(responses.slice(over).filter((_, k) => k !== 2 - over).map(id));
      const whole = await readAll(gzipSync(Buffer.concat(rs)), { maxBodyBytes });
      expect({ maxBodyBytes, ...seen(whole.counters) }).toEqual({ maxBodyBytes, ...seen(plain.counters), reasons: ["buffer@0: content_length_too_large"] });
      expect(whole.records.map((r) => r.recordId)).toEqual(plain.records.map((r) => r.recordId));
    }
    // the liar last (the file ends with its blank line): a record (its claim runs on from a record's
    // end, so no quote), truncated as when the file was cut in it
    for (const [maxBodyBytes, over] of [[20_000, 2], [8 << 20, 0]] as const) {
      const plain = await readAll(Buffer.concat(rs.slice(0, 3)), { maxBodyBytes });
      expect({ maxBodyBytes, ...seen(plain.counters) }).toEqual({ maxBodyBytes, records: 3, requests: 0, damaged: 1, bodyTooLarge: over, reasons: [`buffer@${liarAt}: truncated`] });
      const whole = await readAll(gzipSync(Buffer.concat(rs.slice(0, 3))), { maxBodyBytes });
      expect({ maxBodyBytes, ...seen(whole.counters) }).toEqual({ maxBodyBytes, ...seen(plain.counters), reasons: ["buffer@0: truncated"] });
    }
  });

  it("a record cut into gzip members anywhere (in its WARC headers, its HTTP headers, its body; two or three members) is read as written whole", async () => {
    const reference = await readAll(gzipRecords(records));
    const view = (rs: Awaited<ReturnType<typeof readAll>>["records"]) => rs.map((r) => ({ uri: r.targetUri, id: r.recordId, status: r.status, headers: [...r.headers], body: r.body.toString("base64") }));
    const i = types.indexOf("response");
    const r = records[i]!;
    const http = r.indexOf("\r\n\r\n") + 4;
    const body = r.indexOf("\r\n\r\n", http) + 4;
    for (const cuts of [[40], [http + 10], [body + 100], [30, body + 5], [http - 2, http + 1, r.length - 3]]) {
      const starts = [0, ...cuts];
      const pieces = starts.map((from, k) => r.subarray(from, starts[k + 1] ?? r.length));
      const before = gzipRecords(records.slice(0, i));
      const input = Buffer.concat([before, gzipRecords(pieces), gzipRecords(records.slice(i + 1))]);
      const { records: content, counters } = await readAll(input);
      expect({ cuts, ...counts(counters) }).toEqual({ cuts, ...whole });
      expect(counters.get(warcCounter("records.split_across_members"))).toBe(1);
      expect(view(content)).toEqual(view(reference.records));
      // a shard boundary at the record's second member: the record is read once, by the shard it starts in
      const second = before.length + gzipSync(pieces[0]!).length;
      const a = await readAll(input, { start: 0, end: second });
      const b = await readAll(input, { start: second, end: null });
      expect(view([...a.records, ...b.records])).toEqual(view(reference.records));
      expect(a.counters.get(warcCounter("records.damaged")) + b.counters.get(warcCounter("records.damaged"))).toBe(0);
    }
  });

  it("a file gzipped whole split into shards: the shard that starts it reads it all, the others pass over their own range only", async () => {
    const input = gzipSync(Buffer.concat(records));
    const view = (rs: Awaited<ReturnType<typeof readAll>>["records"]) => rs.map((r) => ({ uri: r.targetUri, id: r.recordId, body: r.body.toString("base64") }));
    const reference = await readAll(input);
    const cuts = [0, 1000, 50_000, 90_000, null];
    const shards = await Promise.all(cuts.slice(0, -1).map((start, k) => readAll(input, { start: start!, end: cuts[k + 1] })));
    expect(view(shards.flatMap((s) => s.records))).toEqual(view(reference.records));
    expect(shards.map((s) => s.counters.get(warcCounter("records")))).toEqual([48, 0, 0, 0]);
    // (each shard used to scan on to the file's end for a member: there is none after its first byte)
    expect(shards.map((s) => s.counters.get(warcCounter("bytes.skipped")))).toEqual([0, 49_000, 40_000, input.length - 90_000]);
  });

  describe("a damaged record in a member of many records (a file gzipped whole, a member per four records): the records after it are read and counted as in the plain file", () => {
    const setLength = (r: Buffer, to: (n: number) => string) => Buffer.from(r.toString("latin1").replace(/Content-Length: (\d+)/, (_, n: string) => `Content-Length: ${to(Number(n))}`), "latin1");
    const damages = { many: () => "many", tooLarge: (n: number) => String(n + 100), tooSmall: (n: number) => String(n - 10) };
    const framings = {
      wholeFile: (rs: Buffer[]) => gzipSync(Buffer.concat(rs)),
      memberPerFour: (rs: Buffer[]) => Buffer.concat(Array.from({ length: Math.ceil(rs.length / 4) }, (_, g) => gzipSync(Buffer.concat(rs.slice(4 * g, 4 * g + 4))))),
    };
    const view = (rs: Awaited<ReturnType<typeof readAll>>["records"], skip: string) =>
      rs.filter((r) => r.recordId !== skip).map((r) => ({ uri: r.targetUri, id: r.recordId, status: r.status, headers: [...r.headers], body: r.body.toString("base64") }));
    const reasons = (c: Awaited<ReturnType<typeof readAll>>["counters"]) => [...c.samples.get("warc.damaged_records")].map((s) => s.replace(/^buffer@\d+: /, ""));
    // the first record, a response in the middle (dolma's 11th record), the last
    for (const i of [0, 10, 47]) {
      it(`record ${i + 1} of 48`, async () => {
        const id = /WARC-Record-ID: (\S+)/.exec(records[i]!.toString("latin1"))![1]!;
        for (const [damage, to] of Object.entries(damages)) {
          const rs = records.map((r, k) => (k === i ? setLength(r, to) : r));
          const plain = await readAll(Buffer.concat(rs));
          expect(counts(plain.counters).damaged).toBe(1);
          for (const [framing, frame] of Object.entries(framings)) {
            const { records: content, counters } = await readAll(frame(rs));
            const got = { damage, framing, ...counts(counters), reasons: reasons(counters) };
            expect(got).toEqual({ damage, framing, ...counts(plain.counters), reasons: reasons(plain.counters) });
            expect(view(content, id)).toEqual(view(plain.records, id));
          }
        }
      });
    }

    it("a record over the body bound with a wrong Content-Length: skipped as in the plain file, no damage, the records after it read", async () => {
      const i = types.indexOf("response", 10);
      const bound = { maxBodyBytes: 2000 };
      for (const to of [damages.tooLarge, (n: number) => String(n + 1e9)]) {
        const rs = records.map((r, k) => (k === i ? setLength(r, to) : r));
        const plain = await readAll(Buffer.concat(rs), bound);
        const tooLarge = (c: Awaited<ReturnType<typeof readAll>>["counters"]) => ({ ...counts(c), bodyTooLarge: c.get(warcSkippedCounter("body_too_large")) });
        expect(tooLarge(plain.counters).damaged).toBe(0);
        for (const frame of Object.values(framings)) {
          const { records: content, counters } = await readAll(frame(rs), bound);
          expect(tooLarge(counters)).toEqual(tooLarge(plain.counters));
          expect(view(content, "")).toEqual(view(plain.records, ""));
        }
      }
    });

    it("a claim past the end of a member of 9 MB (the record's start no longer held): read again from the member's start, every record after it read", async () => {
      const rs = Array.from({ length: 12 }, (_, n) => (n === 0 ? [setLength(records[0]!, (k) => String(k + 1e9)), ...records.slice(1)] : records)).flat();
      const plain = await readAll(Buffer.concat(rs));
      const whole = await readAll(gzipSync(Buffer.concat(rs)));
      expect(counts(whole.counters)).toEqual({ records: 12 * 48, requests: 12 * 22, damaged: 1 });
      expect(counts(whole.counters)).toEqual(counts(plain.counters));
      expect(reasons(whole.counters)).toEqual(["content_length_too_large"]);
      expect(reasons(plain.counters)).toEqual(reasons(whole.counters));
      expect(whole.records).toHaveLength(12 * 24);
    });
  });
});
