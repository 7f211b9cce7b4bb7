/**
 * The synchronous member parser (member-records.ts) against warcio, the reference: every real WARC,
 * warcio's malformed cases and hostile inputs are read both ways (`parser: "sync"` and
 * `parser: "warcio"`), and the records (bodies included), counters and damage samples must be equal;
 * so must the WARC source's documents and their references. The real crawls must also be the plain
 * case the parser takes, member by member, or the fast path would be a fallback in disguise.
 */
import { createReadStream, readdirSync, readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { Counters } from "../../../shared/core/counters.ts";
import { ParacapConfig } from "../../../shared/core/config.ts";
import { documentExtractor } from "../../../shared/pipeline/extract-stage.ts";
import { warcDocuments, warcSource, type WarcPage } from "../../../shared/sources/warc/warc-source.ts";
import { acceptHtml } from "../../../shared/web/html/page-captions.ts";
import { ByteCursor } from "../../../shared/web/warc/byte-cursor.ts";
import { inflateHeldMember, inflateWholeMember, isGzipMagic } from "../../../shared/web/warc/gzip-member.ts";
import { parseMemberRecords } from "../../../shared/web/warc/member-records.ts";
import { readWarcWithRevisits, type WarcReadOptions } from "../../../shared/web/warc/warc-reader.ts";
import { DATA, EDGE, gzipRecords, htmlResponse, httpResponse, warcRecord } from "./warc-helpers.ts";

const PIECE = 64 * 1024;

type Input = string | Buffer;

async function* chunked(buf: Buffer, start: number, size = 4096): AsyncGenerator<Buffer> {
  for (let i = start; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

const opener = (input: Input) => (typeof input === "string" ? (s: number) => createReadStream(input, { start: s }) as AsyncIterable<Buffer> : (s: number) => chunked(input, s));

type Extra = Partial<Omit<WarcReadOptions, "open" | "file" | "counters" | "parser">>;

async function readBoth(input: Input, extra: Extra = {}) {
  const read = async (parser: "sync" | "warcio") => {
    const counters = new Counters();
    const records: unknown[] = [];
    const opts = { open: opener(input), file: "f", counters, maxBodyBytes: 8 << 20, revisits: () => true, parser, ...extra };
    for await (const r of readWarcWithRevisits(opts)) records.push(r);
    return { records, counters: counters.toJSON(), samples: counters.samples.toJSON() };
  };
  return { sync: await read("sync"), warcio: await read("warcio") };
}

/** Bytes as their length and hash, Maps as their entries in order: cheap to compare, order included. */
function canon(x: unknown): unknown {
  if (x instanceof Uint8Array) return `bytes ${x.length} ${createHash("sha1").update(x).digest("hex")}`;
  if (x instanceof Map) return { map: [...x].map(canon) };
  if (Array.isArray(x)) return x.map(canon);
  if (x && typeof x === "object") return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, canon(v)]));
  return x;
}

/** Equal values, in the same order (documents carry headers as objects: their key order is compared too). */
function expectEqual(a: unknown, b: unknown): void {
  const [ca, cb] = [canon(a), canon(b)];
  expect(ca).toEqual(cb);
  expect(JSON.stringify(ca)).toBe(JSON.stringify(cb));
}

async function expectSame(input: Input, extra: Extra = {}) {
  const { sync, warcio } = await readBoth(input, extra);
  expectEqual(sync, warcio);
  return sync;
}

/** Share of the members of a .warc.gz the sync parser takes (the rest go to warcio). */
async function plainShare(path: string): Promise<{ members: number; parsed: number }> {
  const cur = new ByteCursor(createReadStream(path) as AsyncIterable<Buffer>);
  let members = 0;
  let parsed = 0;
  for (;;) {
    await cur.fill(3);
    if (cur.done) break;
    expect(isGzipMagic(cur.buffered)).toBe(true);
    const whole = await inflateWholeMember(cur);
    expect(whole).not.toBeNull();
    members++;
    if (parseMemberRecords(whole!, PIECE) !== null) parsed++;
  }
  await cur.close();
  return { members, parsed };
}

const REAL = ["dolma-sample-0000.warc.gz", "pywb-iana.warc.gz", "commoncrawl-whirlwind.warc.gz"];

describe("the sync member parser reads the real crawls as warcio does", () => {
  it.each(REAL)("%s: every member is the plain case", async (f) => {
    const { members, parsed } = await plainShare(`${DATA}${f}`);
    expect(members).toBeGreaterThan(0);
    expect(parsed).toBe(members);
  });

  const all = [...readdirSync(DATA).filter((f) => /\.warc/.test(f)).map((f) => `${DATA}${f}`), ...readdirSync(EDGE).filter((f) => !f.endsWith(".md")).map((f) => `${EDGE}${f}`)];
  it.each(all)("%s: same records, counters and samples (all records; HTML only)", async (path) => {
    const every = await expectSame(path);
    expect(every.counters["warc.files"]).toBe(1);
    await expectSame(path, { accept: acceptHtml, revisits: undefined });
  });

  it("shards: split anywhere, the same records either way", async () => {
    const path = `${DATA}pywb-iana.warc.gz`;
    for (const cut of [1, 5000, 333_333, 786_000]) {
      await expectSame(path, { start: 0, end: cut });
      await expectSame(path, { start: cut, end: null });
    }
  });

  it("the WARC source's documents and references are the same (pixel runs: the documents, image records and revisits included)", async () => {
    for (const config of [ParacapConfig.parse({}), ParacapConfig.parse({ pivot: "md5" })]) {
      const pixels = config.pivot === "md5";
      const extract = pixels ? () => null : documentExtractor(warcSource, config, new Counters(), await warcSource.prepare!(config));
      for (const f of [...REAL, "warcio-edge-cases/example.warc.gz", "warcio-edge-cases/example-wrong-chunks.warc.gz"]) {
        const run = async (parser: "sync" | "warcio") => {
          const counters = new Counters();
          const docs: WarcPage[] = [];
          const input = { file: f, label: f, open: opener(`${DATA}${f}`), start: 0, end: null, parser };
          for await (const d of warcDocuments(input, config, counters)) docs.push(d);
          return { docs, refs: docs.map((d) => extract(d, "current")), counters: counters.toJSON(), samples: counters.samples.toJSON() };
        };
        const sync = await run("sync");
        expectEqual(sync, await run("warcio"));
        if (pixels && f === "pywb-iana.warc.gz") expect(sync.counters["warc.image_revisits.resolved"]).toBeGreaterThan(0);
        if (!pixels && f === "dolma-sample-0000.warc.gz") expect(sync.refs.flatMap((r) => r!.refs).length).toBeGreaterThan(50); // (84: the page template's images are not references)
      }
    }
  });
});

describe("hostile and unusual members: the sync path gives what warcio gives", () => {
  const page = (n: number) => htmlResponse(`http://example.org/${n}`, `<p>page ${n}</p>`);
  const raw = (s: string) => Buffer.from(s, "latin1");
  /** a response record whose WARC header block is given as is */
  const withWarcHead = (head: string, block: Buffer) => Buffer.concat([raw(head.replace("{len}", String(block.length))), block, raw("\r\n\r\n")]);
  const http = (head: string, body = "<p>x</p>") => raw(`${head}\r\n\r\n${body}`);
  const warcHead = (extra = "", type = "response") => `WARC/1.0\r\nWARC-Type: ${type}\r\nWARC-Record-ID: <urn:uuid:x-${type}>\r\nWARC-Target-URI: http://example.org/h\r\n${extra}Content-Length: {len}\r\n\r\n`;

  const cases: [string, Buffer[]][] = [
    ["a 2 GB Content-Length claim", [page(1), warcRecord("response", httpResponse("<p>short</p>"), { uri: "http://example.org/liar", length: 2 * 1024 ** 3 }), page(2)]],
    ["a Content-Length too short", [page(1), warcRecord("response", httpResponse("<p>short</p>"), { uri: "http://example.org/short", length: 20 }), page(2)]],
    ["a 5 MB header block", [page(1), warcRecord("response", httpResponse("<p>x</p>"), { uri: "http://example.org/bloat", extra: `X-Junk: ${"j".repeat(5 * 1024 * 1024)}\r\n` }), page(2)]],
    ["a body over the bound", [page(1), warcRecord("response", httpResponse(Buffer.alloc(300_000, 0x61)), { uri: "http://example.org/big" }), page(2)]],
    ["WARC/1.1 and a non-WARC member", [warcRecord("response", httpResponse("<p>v11</p>"), { uri: "http://example.org/v11", version: "WARC/1.1" }), raw("HTTP/1.1 200 OK\r\nfoo: bar\r\n\r\nnot a record\r\n\r\n"), page(2)]],
    ["WARC/1.2 and a lower-case version line", [warcRecord("response", httpResponse("<p>a</p>"), { uri: "http://example.org/a", version: "WARC/1.2" }), warcRecord("response", httpResponse("<p>b</p>"), { uri: "http://example.org/b", version: "warc/1.0" }), page(3)]],
    ["a folded header line and a line without a colon", [withWarcHead(warcHead("X-Fold: a\r\n  b\r\nno colon here\r\n"), http("HTTP/1.1 200 OK\r\nContent-Type: text/html;\r\n charset=utf-8\r\nbroken line")), page(2)]],
    ["non-ASCII and invalid UTF-8 header values", [withWarcHead(warcHead("X-Name: Zürich\r\n"), http("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Disposition: inline; filename=\"caf\xe9.html\"\r\nX-Utf8: Z\xc3\xbcrich")), page(2)]],
    ["repeated headers, set-cookie, empty values, odd names", [withWarcHead(warcHead("WARC-Target-URI: http://example.org/second\r\nX-Empty:\r\n"), http("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nX-Dup: 1\r\nx-dup: 2\r\nX-Empty: \r\nZ-Last: z\r\nA-First: a")), withWarcHead(warcHead(), http("HTTP/1.1 200 OK\r\nBad Name: x\r\nContent-Type: text/html")), page(2)]],
    ["duplicate and odd Content-Length values", [withWarcHead(warcHead("Content-Length: {len}\r\n"), http("HTTP/1.1 200 OK\r\nContent-Type: text/html")), withWarcHead(warcHead().replace("{len}", " {len} "), http("HTTP/1.1 200 OK\r\nContent-Type: text/html")), withWarcHead(warcHead().replace("{len}", "0x10"), http("HTTP/1.1 200 OK\r\nContent-Type: text/html")), page(2)]],
    ["status lines: none, no headers, odd spacing, no status code", [withWarcHead(warcHead(), raw("<html>not http</html>")), withWarcHead(warcHead(), http("HTTP/1.1 200 OK")), withWarcHead(warcHead(), http("HTTP/1.1  200 OK\r\nContent-Type: text/html")), withWarcHead(warcHead(), http("HTTP/1.1\r\nContent-Type: text/html")), withWarcHead(warcHead(), raw("\r\nHTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\nx")), page(2)]],
    ["HTTP headers that run past the record's content", [withWarcHead(warcHead(), raw("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n")), page(2)]],
    ["revisits with and without HTTP headers, resources, requests with bodies, no WARC-Type", [
      withWarcHead(warcHead("WARC-Refers-To: <urn:uuid:orig>\r\nWARC-Payload-Digest: sha1:AAAA\r\n", "revisit"), raw("")),
      withWarcHead(warcHead("WARC-Refers-To-Target-URI: http://example.org/o\r\nWARC-Refers-To-Date: 2020-01-01T00:00:00Z\r\n", "revisit"), http("HTTP/1.1 200 OK\r\nContent-Type: image/png", "")),
      withWarcHead(warcHead("Content-Type: text/html\r\n", "resource"), raw("<p><img src=a.jpg alt=x></p>")),
      withWarcHead(warcHead("", "request"), http("POST /form HTTP/1.1\r\nHost: example.org\r\nContent-Type: application/x-www-form-urlencoded", "a=1&b=2")),
      withWarcHead(warcHead("", "warcinfo"), raw("software: test\r\n")),
      withWarcHead("WARC/1.0\r\nWARC-Record-ID: <urn:uuid:no-type>\r\nContent-Length: {len}\r\n\r\n", raw("x")),
      withWarcHead("WARC/1.0\r\nWARC-Type: response\r\nContent-Length: {len}\r\n\r\n", http("HTTP/1.1 200 OK\r\nContent-Type: text/html")),
      page(2),
    ]],
  ];

  it.each(cases)("%s (one record per member, and plain)", async (_name, records) => {
    await expectSame(gzipRecords(records));
    await expectSame(Buffer.concat(records));
    await expectSame(gzipRecords(records), { accept: acceptHtml, maxBodyBytes: 64 * 1024 });
  });

  it("members of several records, with what may lie between them", async () => {
    const two = Buffer.concat([page(1), page(2)]);
    const members = [
      gzipSync(two),
      // no CRLFs after a record, extra CRLFs, many CRLFs, a bare LF, junk, a cut record at the member's end
      gzipSync(Buffer.concat([page(3).subarray(0, -4), page(4)])),
      gzipSync(Buffer.concat([page(5), raw("\r\n\r\n\r\n"), page(6)])),
      gzipSync(Buffer.concat([page(7), raw("\r\n".repeat(40)), page(8)])),
      gzipSync(Buffer.concat([page(9).subarray(0, -2), raw("\n\n"), page(10)])),
      gzipSync(Buffer.concat([page(11), raw("junk\r\n"), page(12)])),
      gzipSync(Buffer.concat([page(13), page(14).subarray(0, 60)])),
      gzipSync(Buffer.alloc(0)),
      gzipSync(page(15)),
    ];
    const sync = await expectSame(Buffer.concat(members));
    expect(sync.records.length).toBeGreaterThan(8);
  });

  it("garbage between members (a fake gzip magic in it) and a cut last member", async () => {
    const garbage = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0]), Buffer.alloc(500, 7)]);
    const cut = gzipSync(page(3)).subarray(0, 40);
    const sync = await expectSame(Buffer.concat([gzipRecords([page(1)]), garbage, gzipRecords([page(2)]), cut]));
    expect(sync.counters["warc.records.damaged"]).toBe(2);
    // and split into shards anywhere
    const input = Buffer.concat([gzipRecords([page(1), page(4)]), garbage, gzipRecords([page(2)]), cut]);
    for (const at of [1, 100, 300, 700, 900]) {
      await expectSame(input, { start: 0, end: at });
      await expectSame(input, { start: at, end: null });
    }
  });

  it("a record whose header block crosses a 64 KiB piece of its member", async () => {
    const big = (n: number) => htmlResponse(`http://example.org/big${n}`, `<p>${"b".repeat(n)}</p>`);
    // the second record's headers start just before, at, and after the first piece's end
    for (const n of [PIECE - 400, PIECE - 330, PIECE - 300, PIECE - 200, PIECE - 100, PIECE - 40, PIECE]) {
      const sync = await expectSame(gzipSync(Buffer.concat([big(n), page(2), page(3)])));
      expect(sync.records).toHaveLength(3);
    }
  });

  it("warcio's piece-edge quirk: a header block whose end starts in the last 4 bytes of a piece is read past", async () => {
    // warcio looks for CRLFCRLF chunk by chunk and skips a chunk remainder under 5 bytes: the record is
    // padded so that its HTTP status line ends 4 bytes before the first piece's end, its block "a:\r\n" + "\r\n"
    const odd = (pad: number) => Buffer.concat([htmlResponse("http://example.org/pad", `<p>${"p".repeat(pad)}</p>`), warcRecord("response", raw("HTTP/1.1 200 OK\r\na:\r\n\r\n<p>odd</p>\r\n\r\nrest"), { uri: "http://example.org/odd" }), page(3)]);
    const status = (m: Buffer) => m.indexOf("HTTP/1.1 200 OK\r\na:");
    let m = odd(PIECE - 1000);
    m = odd(PIECE - 1000 + (PIECE - 4 - (status(m) + 17)));
    expect(status(m) + 17).toBe(PIECE - 4);
    const sync = await expectSame(gzipSync(m));
    expect(sync.counters["warc.records"]).toBeGreaterThan(0);
  });

  it("a gzip bomb inside an HTTP payload gives the same documents and drop either way", async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x3c));
    const rec = warcRecord("response", httpResponse(bomb, { "Content-Type": "text/html", "Content-Encoding": "gzip" }), { uri: "http://example.org/bomb" });
    const input = gzipRecords([page(1), rec, page(2)]);
    const config = ParacapConfig.parse({});
    const run = async (parser: "sync" | "warcio") => {
      const counters = new Counters();
      const extract = documentExtractor(warcSource, config, counters, await warcSource.prepare!(config));
      const out: unknown[] = [];
      for await (const d of warcDocuments({ file: "b.warc.gz", label: "b", open: opener(input), start: 0, end: null, parser }, config, counters)) out.push(extract(d, "current"));
      return { out, counters: counters.toJSON() };
    };
    const sync = await run("sync");
    expectEqual(sync, await run("warcio"));
    expect(sync.out).toHaveLength(3);
  });

  it("the real Common Crawl member with its bytes changed one at a time in the headers", async () => {
    // every 8th byte of the WARC and HTTP header blocks of the response member, set to a space, CR, LF, colon or é in turn
    const path = `${DATA}commoncrawl-whirlwind.warc.gz`;
    const file = readFileSync(path);
    const cur = new ByteCursor(chunked(file, 0, file.length));
    const members: Buffer[] = [];
    for (;;) {
      await cur.fill(3);
      if (cur.done) break;
      members.push((await inflateWholeMember(cur))!);
    }
    const real = members.find((m) => m.includes("WARC-Type: response"))!;
    // its headers as they are, its body cut to 2 KB (Content-Length fixed), so the variants are cheap to read
    const warcEnd = real.indexOf("\r\n\r\n") + 4;
    const httpEnd = real.indexOf("\r\n\r\n", warcEnd) + 4;
    const content = real.subarray(warcEnd, httpEnd + 2000);
    const warcHeadText = real.toString("latin1", 0, warcEnd).replace(/Content-Length: \d+/, `Content-Length: ${content.length}`);
    const response = Buffer.concat([Buffer.from(warcHeadText, "latin1"), content, raw("\r\n\r\n")]);
    const variants: Buffer[] = [];
    const headEnd = response.indexOf("\r\n\r\n", response.indexOf("\r\n\r\n") + 4) + 4;
    expect(headEnd).toBeGreaterThan(500);
    for (let i = 0; i < headEnd; i += 8) {
      for (const v of [0x20, 0x0a, 0x0d, 0x3a, 0xe9]) {
        const b = Buffer.from(response);
        b[i] = v;
        variants.push(b);
      }
    }
    // both paths are exercised: variants the sync parser takes, and variants it leaves to warcio
    const taken = variants.filter((v) => parseMemberRecords(v, PIECE) !== null).length;
    expect(taken).toBeGreaterThan(variants.length / 4);
    expect(taken).toBeLessThan(variants.length);
    const sync = await expectSame(gzipRecords([...variants, page(1)]));
    expect(sync.records.length).toBeGreaterThan(variants.length / 2);
  });

  it("a member held whole is inflated without waiting as inflateWholeMember inflates it; held short, cut or damaged, it is left to that", async () => {
    const page = Buffer.from(`<p>${"caption text ".repeat(50)}</p>`);
    const member = gzipSync(page);
    // noise that does not compress, so the second member is far past the 64 KiB a held read needs
    const noise = gzipSync(Buffer.concat(Array.from({ length: 80 * 32 }, (_, i) => createHash("sha256").update(String(i)).digest())));
    const file = Buffer.concat([member, noise, member]);
    const held = (bytes: Buffer) => new ByteCursor(chunked(bytes, 0, bytes.length), 0);
    // whole and held: the same bytes, the cursor at the same place
    const a = held(file);
    await a.fill(file.length);
    expect(inflateHeldMember(a)).toEqual(page);
    expect(a.position).toBe(member.length);
    const b = held(file);
    await b.fill(file.length);
    expect(await inflateWholeMember(b)).toEqual(page);
    expect(b.position).toBe(member.length);
    // fewer bytes held than a held read needs: undefined, nothing consumed (also for the last member)
    const c = held(Buffer.concat([member, member]));
    await c.fill(2 * member.length);
    expect(inflateHeldMember(c)).toBeUndefined();
    expect(c.position).toBe(0);
    // cut by the end of what is held: undefined (inflateWholeMember reads on); damaged: null (streamed, where pako says how)
    const cut = held(noise.subarray(0, noise.length - 100));
    await cut.fill(noise.length);
    expect(inflateHeldMember(cut)).toBeUndefined();
    expect(cut.position).toBe(0);
    const damaged = Buffer.from(noise);
    damaged[damaged.length - 6]! ^= 0xff; // its length in the trailer
    const d = held(Buffer.concat([damaged, member]));
    await d.fill(damaged.length + member.length);
    expect(inflateHeldMember(d)).toBeNull();
    expect(d.position).toBe(0);
  });
});
