/**
 * ARC files read as WARCs are: the HTTP responses of three real crawls (dolma's wget capture,
 * pywb's iana.org crawl, a Common Crawl excerpt) written as ARC v1 and v2, plain and with a gzip
 * member per record (arc-helpers.ts), give the records the WARCs give; hostile ARCs (lying or
 * broken lengths, a cut file, garbage, no version block, not an ARC) give counted damage with its
 * offset, and every other record.
 */
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { Counters } from "../../../shared/core/counters.ts";
import { parseArcLine, readArc } from "../../../shared/web/warc/arc-reader.ts";
import type { WarcContentRecord } from "../../../shared/web/warc/warc-reader.ts";
import { arcRecord, versionBlock, warcResponses, writeArc, type ArcEntry } from "./arc-helpers.ts";
import { DATA, readAll, warcRecord, type ReadOpts } from "./warc-helpers.ts";

async function* chunked(buf: Buffer, start: number, size = 4096): AsyncGenerator<Buffer> {
  for (let i = start; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

async function readArcAll(buf: Buffer, opts: ReadOpts & { file?: string } = {}): Promise<{ records: WarcContentRecord[]; counters: Counters }> {
  const counters = new Counters();
  const records: WarcContentRecord[] = [];
  for await (const r of readArc({ open: (s) => chunked(buf, s), file: "crawl.arc", counters, maxBodyBytes: 8 << 20, ...opts })) records.push(r);
  return { records, counters };
}

/** What a record says of its capture, without the framing's own identity (record id, offset). */
const capture = (r: WarcContentRecord) => ({ uri: r.targetUri, date: r.date, status: r.status, headers: [...r.headers], body: r.body.toString("latin1") });

const damaged = (c: Counters) => c.samples.get("warc.damaged_records");

const CRAWLS = ["dolma-sample-0000.warc.gz", "pywb-iana.warc.gz", "commoncrawl-whirlwind.warc.gz"];

describe("ARC files", () => {
  it("the responses of three real crawls as ARC v1/v2, plain and per-record gzip, are the WARC's records", async () => {
    for (const crawl of CRAWLS) {
      const entries = warcResponses(`${DATA}${crawl}`);
      const warc = await readAll(`${DATA}${crawl}`);
      // (a WARC's resource records have no ARC form)
      const want = warc.records.filter((r) => r.type === "response").map(capture);
      expect(want.length).toBeGreaterThan(0);
      const responsesOnly = await readAll(Buffer.concat(entries.map((e) => warcRecord("response", e.content, { uri: e.url }))));
      expect(responsesOnly.records.map((r) => ({ ...capture(r), date: null }))).toEqual(want.map((w) => ({ ...w, date: null })));
      for (const variant of [{ version: 1, gzip: false }, { version: 1, gzip: true }, { version: 2, gzip: true }, { version: 2, gzip: false }] as const) {
        const arc = await readArcAll(writeArc(entries, variant));
        expect(arc.records.map(capture), `${crawl} ${JSON.stringify(variant)}`).toEqual(want);
        expect(damaged(arc.counters)).toEqual([]);
        // the same skips and counts as a WARC of just these responses
        const counts = (c: Counters) => Object.fromEntries(Object.entries(c.toJSON()).filter(([k]) => !/^warc\.(files|records$|skipped\.(filedesc|warcinfo)$)/.test(k)));
        expect(counts(arc.counters)).toEqual(counts(responsesOnly.counters));
        expect(arc.counters.get("warc.records")).toBe(entries.length + 1);
        expect(arc.counters.get("warc.skipped.filedesc")).toBe(1);
        expect(arc.counters.get("warc.files.arc")).toBe(1);
      }
    }
  });

  it("warcio reads the responses as the sync parser does, and so does a body bound that streams them", async () => {
    const entries = warcResponses(`${DATA}pywb-iana.warc.gz`);
    const arc = writeArc(entries, { gzip: true });
    const sync = await readArcAll(arc);
    const warcio = await readArcAll(arc, { parser: "warcio" });
    expect(warcio.records.map(capture)).toEqual(sync.records.map(capture));
    expect(warcio.counters.toJSON()).toEqual(sync.counters.toJSON());
    // records over the bound are skipped and counted as in the WARC, held or streamed (bound + header bound below a record)
    for (const opts of [{ maxBodyBytes: 2000 }, { maxBodyBytes: 2000, maxHeaderBytes: 1024 }]) {
      const warc = await readAll(`${DATA}pywb-iana.warc.gz`, opts);
      for (const bytes of [arc, writeArc(entries)]) {
        const small = await readArcAll(bytes, opts);
        expect(small.records.map(capture)).toEqual(warc.records.map(capture));
        expect(small.counters.get("warc.skipped.body_too_large")).toBe(warc.counters.get("warc.skipped.body_too_large"));
        expect(small.counters.get("warc.skipped.body_too_large")).toBeGreaterThan(0);
        expect(damaged(small.counters)).toEqual([]);
      }
    }
  });

  it("a record is named by its file and offset (its gzip member's), its date the capture date", async () => {
    const entries = warcResponses(`${DATA}dolma-sample-0000.warc.gz`).slice(0, 3);
    const plain = writeArc(entries);
    const { records } = await readArcAll(plain, { file: "/some/dir/crawl-1.arc" });
    const offsets = [versionBlock("test.arc", 1).length];
    offsets.push(offsets[0]! + arcRecord(entries[0]!).length, offsets[0]! + arcRecord(entries[0]!).length + arcRecord(entries[1]!).length);
    expect(records.map((r) => [r.recordId, r.offset])).toEqual(offsets.map((o) => [`crawl-1.arc@${o}`, o]));
    expect(records[0]!.date).toBe("2024-04-25T16:24:44Z");
    const gz = writeArc(entries, { gzip: true });
    const members = await readArcAll(gz);
    for (const r of members.records) expect([gz[r.offset], gz[r.offset + 1], r.recordId]).toEqual([0x1f, 0x8b, `crawl.arc@${r.offset}`]);
    // a file gzipped whole is one member: its records are told apart by their offset in it
    const whole = await readArcAll(gzipSync(plain));
    expect(whole.records.map((r) => r.recordId)).toEqual(offsets.map((o) => `crawl.arc@0+${o}`));
    expect(whole.records.map(capture)).toEqual(members.records.map(capture));
  });

  it("a URL with spaces: the fields after it are fixed, the rest is the URL (kept with %20, as a WARC's)", async () => {
    // a real page under a URL with spaces (as warcio's space-in-target-uri case has one), in a WARC and an ARC
    const entries = warcResponses(`${DATA}commoncrawl-whirlwind.warc.gz`).map((e) => ({ ...e, url: "https://an.wikipedia.org/wiki/Escopete (Guadalajara) 2" }));
    const warc = await readAll(Buffer.concat(entries.map((e) => warcRecord("response", e.content, { uri: e.url }))));
    for (const version of [1, 2] as const) {
      const arc = await readArcAll(writeArc(entries, { version }));
      expect(arc.records.map((r) => ({ ...capture(r), date: null }))).toEqual(warc.records.map((r) => ({ ...capture(r), date: null })));
      expect(arc.records[0]!.targetUri).toBe("https://an.wikipedia.org/wiki/Escopete%20(Guadalajara)%202");
    }
    expect(parseArcLine("http://example.com/a b c.html 1.2.3.4 20080430204825 text/html 12")).toEqual({ url: "http://example.com/a b c.html", date: "2008-04-30T20:48:25Z", length: 12 });
    expect(parseArcLine("http://example.com/ 1.2.3.4 20080430204825 text/html abc")).toBe("bad_length");
    expect(parseArcLine("<html><body>hello world</body></html>")).toBeNull();
  });

  describe("hostile ARCs: damage is counted with its offset, every other record read", () => {
    const entries = warcResponses(`${DATA}dolma-sample-0000.warc.gz`).slice(0, 4);
    const uris = (rs: WarcContentRecord[]) => rs.map((r) => r.targetUri);
    const all = entries.map((e) => e.url);
    /** the file: version block, then the records (one replaced by `bad`), with a member each when gzip */
    const build = (gzip: boolean, bad?: { at: number; bytes: Buffer }, block = true) => {
      const parts = [...(block ? [versionBlock("x.arc", 1)] : []), ...entries.map((e, i) => (bad && bad.at === i ? bad.bytes : arcRecord(e)))];
      const offsets: number[] = [];
      let at = 0;
      const out = parts.map((p) => {
        const b = gzip ? gzipSync(p) : p;
        offsets.push(at);
        at += b.length;
        return b;
      });
      return { bytes: Buffer.concat(out), offsetOf: (i: number) => offsets[i + (block ? 1 : 0)]! };
    };
    const lying = (e: ArcEntry, length: string | number) => arcRecord(e, 1, { length });

    it("gzipped whole (one member, `gzip -c`): a length of 2 TB or 20 MB that lies loses its record only, as in the plain file", async () => {
      // (the records over a small body bound are held to their true lengths, streamed, and read on after)
      for (const opts of [{}, { maxBodyBytes: 20_000, maxHeaderBytes: 1024 }]) {
        for (const length of ["2000000000000", "20000000"]) {
          const f = build(false, { at: 2, bytes: lying(entries[2]!, length) });
          const plain = await readArcAll(f.bytes, opts);
          const whole = await readArcAll(gzipSync(f.bytes), opts);
          expect(uris(whole.records), `${length} ${JSON.stringify(opts)}`).toEqual(uris(plain.records));
          expect(uris(whole.records)).toContain(all[3]);
          expect(whole.counters.toJSON()).toEqual(plain.counters.toJSON());
          expect(damaged(whole.counters)).toEqual(["crawl.arc@0: length_too_large"]);
        }
        // honest: every record, as in the plain file
        const honest = build(false).bytes;
        const plain = await readArcAll(honest, opts);
        const whole = await readArcAll(gzipSync(honest), opts);
        expect(uris(whole.records)).toEqual(uris(plain.records));
        expect(whole.counters.toJSON()).toEqual(plain.counters.toJSON());
      }
    });

    it("gzipped: a record of 9 MB over the body bound that tells the truth is inflated once (more than the 8 MiB held behind the reader)", async () => {
      // a real page's HTTP response, its body repeated to 9 MB
      const e = entries[0]!;
      const split = e.content.indexOf("\r\n\r\n") + 4;
      const big = { ...e, content: Buffer.concat([e.content.subarray(0, split), ...Array.from({ length: Math.ceil(9e6 / (e.content.length - split)) }, () => e.content.subarray(split))]) };
      const plain = Buffer.concat([versionBlock("x.arc", 1), arcRecord(entries[1]!), arcRecord(big), arcRecord(entries[2]!)]);
      for (const bytes of [gzipSync(plain, { level: 1 }), Buffer.concat([versionBlock("x.arc", 1), arcRecord(entries[1]!), arcRecord(big), arcRecord(entries[2]!)].map((b) => gzipSync(b, { level: 1 })))]) {
        const opened: number[] = [];
        const counters = new Counters();
        const records: WarcContentRecord[] = [];
        const open = (s: number) => (opened.push(s), chunked(bytes, s, 64 * 1024));
        for await (const r of readArc({ open, file: "crawl.arc", counters, maxBodyBytes: 1 << 20 })) records.push(r);
        expect(uris(records)).toEqual([all[1], all[2]]);
        expect(counters.get("warc.skipped.body_too_large")).toBe(1);
        expect(damaged(counters)).toEqual([]);
        // the file's head, then its members in one read: none read again
        expect(opened).toEqual([0, 0]);
      }
    });

    for (const gzip of [false, true]) {
      const kind = gzip ? "per-record gzip" : "plain";

      it(`${kind}: a length too large (it runs over the next record) loses its record only`, async () => {
        const f = build(gzip, { at: 1, bytes: lying(entries[1]!, entries[1]!.content.length + 300) });
        const { records, counters } = await readArcAll(f.bytes);
        expect(uris(records)).toEqual([all[0], all[2], all[3]]);
        expect(damaged(counters)).toEqual([`crawl.arc@${f.offsetOf(1)}: length_too_large`]);
        expect(counters.get("warc.records.damaged")).toBe(1);
      });

      it(`${kind}: a length too small: the record is read as its length says, the bytes after it are damage`, async () => {
        const f = build(gzip, { at: 1, bytes: lying(entries[1]!, entries[1]!.content.length - 300) });
        const { records, counters } = await readArcAll(f.bytes);
        expect(uris(records)).toEqual(all);
        expect(records[1]!.body.length).toBeLessThan(records[0]!.body.length + entries[1]!.content.length);
        expect(damaged(counters)).toEqual([`crawl.arc@${gzip ? f.offsetOf(1) : f.offsetOf(2) - 301}: not_an_arc_record`]);
      });

      it(`${kind}: a length that is no number, or one of 2 TB`, async () => {
        for (const [length, reason] of [["12ab", "bad_length"], ["2000000000000", "length_too_large"]] as const) {
          const f = build(gzip, { at: 2, bytes: lying(entries[2]!, length) });
          const { records, counters } = await readArcAll(f.bytes);
          expect(uris(records), length).toEqual([all[0], all[1], all[3]]);
          expect(damaged(counters)).toEqual([`crawl.arc@${f.offsetOf(2)}: ${reason}`]);
        }
      });

      it(`${kind}: a file cut inside its last record, or inside a header line`, async () => {
        const f = build(gzip);
        for (const cut of [f.offsetOf(3) + 200, f.offsetOf(3) + 20]) {
          const { records, counters } = await readArcAll(f.bytes.subarray(0, cut));
          expect(uris(records)).toEqual(all.slice(0, 3));
          expect(damaged(counters)).toEqual([`crawl.arc@${f.offsetOf(3)}: ${gzip ? "gzip" : "truncated"}`]);
        }
      });

      it(`${kind}: garbage between records`, async () => {
        const f = build(gzip, { at: 2, bytes: Buffer.concat([Buffer.from("<html>stray bytes of a page, not a record</html>\n\x00\x01\x02 more\n"), gzip ? Buffer.alloc(0) : arcRecord(entries[2]!)]) });
        const bytes = gzip ? Buffer.concat([f.bytes.subarray(0, f.offsetOf(2)), Buffer.from("garbage between members\n"), gzipSync(arcRecord(entries[2]!)), f.bytes.subarray(f.offsetOf(3))]) : f.bytes;
        const { records, counters } = await readArcAll(bytes);
        expect(uris(records)).toEqual(all);
        expect(damaged(counters)).toEqual([`crawl.arc@${f.offsetOf(2)}: ${gzip ? "not_a_gzip_member" : "not_an_arc_record"}`]);
      });

      it(`${kind}: no version block: counted, every record read (v1 or v2 told by the line)`, async () => {
        const f = build(gzip, undefined, false);
        const { records, counters } = await readArcAll(f.bytes);
        expect(uris(records)).toEqual(all);
        expect(counters.get("warc.files.arc_no_version_block")).toBe(1);
        expect(damaged(counters)).toEqual([]);
        const v2 = Buffer.concat(entries.map((e) => arcRecord(e, 2)));
        expect(uris((await readArcAll(gzip ? gzipSync(v2) : v2)).records)).toEqual(all);
      });

      it(`${kind}: a file that is no ARC is one damaged record at byte 0, nothing read`, async () => {
        const text = Buffer.from("<!doctype html>\n<html><body><p>Not a crawl.</p></body></html>\n");
        const { records, counters } = await readArcAll(gzip ? gzipSync(text) : text);
        expect(records).toEqual([]);
        expect(damaged(counters)).toEqual(["crawl.arc@0: not_an_arc_record"]);
      });
    }
  });
});
