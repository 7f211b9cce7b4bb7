/**
 * Resync in an uncompressed WARC (a shard's start, the record after a damaged one): a `WARC/1.0`
 * line inside a payload is not taken for a record unless its claimed length ends at a record's end.
 */
import { describe, expect, it } from "vitest";
import { warcCounter } from "../../../shared/core/counter-names.ts";
import { EDGE, htmlResponse, readAll, warcRecord, httpResponse } from "./warc-helpers.ts";
import { readFileSync } from "node:fs";

// a page about the WARC format, quoting a record in a <pre> (CRLF line ends, as copied from a file)
const quoted = "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:phantom>\r\nContent-Length: 1200\r\n\r\nHTTP/1.1 200 OK\r\n\r\n<p>phantom</p>";
const about = htmlResponse("http://example.org/about-warc", `<html><body><h1>The WARC format</h1><pre>\n${quoted}\n</pre><p>${"More text. ".repeat(200)}</p></body></html>`);
const page = (n: number) => htmlResponse(`http://example.org/${n}`, `<p>page ${n}</p>`);

describe("seekPlainRecord", () => {
  it("a shard starting anywhere before a quoted record line does not read a phantom page", async () => {
    const file = Buffer.concat([page(1), about, page(2), page(3)]);
    const whole = await readAll(file);
    expect(whole.records.map((r) => r.targetUri)).toEqual(["http://example.org/1", "http://example.org/about-warc", "http://example.org/2", "http://example.org/3"]);
    const phantomAt = file.indexOf("WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:phantom>");
    for (let cut = page(1).length + 1; cut <= phantomAt + 1; cut += 97) {
      const a = await readAll(file, { start: 0, end: cut });
      const b = await readAll(file, { start: cut, end: null });
      expect([...a.records, ...b.records].map((r) => r.targetUri)).toEqual(whole.records.map((r) => r.targetUri));
      expect(b.counters.get(warcCounter("records.damaged"))).toBe(0);
    }
  });

  it("after a damaged record, the resync passes over a record line quoted in its payload", async () => {
    const damaged = warcRecord("response", httpResponse(`<pre>\n${quoted}\n</pre>`), { uri: "http://example.org/bad" });
    const broken = Buffer.from(damaged.toString("latin1").replace(/Content-Length: \d+/, "Content-Length: many"), "latin1");
    // (records enough after it that the quoted record's claimed length ends inside the file: for one
    // running past the end, see below)
    const after = [2, 3, 4, 5, 6, 7, 8].map(page);
    const { records, counters } = await readAll(Buffer.concat([page(1), broken, ...after]));
    expect(records.map((r) => r.targetUri)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => `http://example.org/${n}`));
    expect(counters.get(warcCounter("records.damaged"))).toBe(1);
  });

  it("a record quoted whole (its length ends at a record's end) is taken: it is one", async () => {
    const inner = page(9);
    const archive = warcRecord("resource", Buffer.concat([Buffer.from("\r\n"), inner]), { uri: "http://example.org/archive.warc", extra: "Content-Type: application/warc\r\n" });
    const file = Buffer.concat([page(1), archive, page(2)]);
    const at = file.indexOf("WARC/1.0", page(1).length + 10);
    const b = await readAll(file, { start: at - 1, end: null });
    expect(b.records.map((r) => r.targetUri)).toContain("http://example.org/9");
  });

  it("a record line quoted in the file's last record, its claimed length past the end: no false truncated record", async () => {
    const damaged = warcRecord("response", httpResponse(`<pre>\n${quoted}\n</pre>`), { uri: "http://example.org/bad" });
    const broken = Buffer.from(damaged.toString("latin1").replace(/Content-Length: \d+/, "Content-Length: many"), "latin1");
    // after a damaged record (the resync finds the quote), the next page after it and none
    for (const after of [[page(2)], []]) {
      const { records, counters } = await readAll(Buffer.concat([page(1), broken, ...after]));
      expect(records.map((r) => r.targetUri)).toEqual(["http://example.org/1", ...(after.length ? ["http://example.org/2"] : [])]);
      expect([...counters.samples.get("warc.damaged_records")]).toEqual([`buffer@${page(1).length}: bad_content_length`]);
      expect(counters.get(warcCounter("records"))).toBe(1 + after.length);
    }
    // a shard starting inside the last record, which quotes: nothing there, and nothing damaged
    const last = htmlResponse("http://example.org/about", `<pre>\n${quoted}\n</pre>`);
    const file = Buffer.concat([page(1), last]);
    for (const cut of [page(1).length + 1, file.indexOf("WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:phantom>")]) {
      const b = await readAll(file, { start: cut, end: null });
      expect(b.records).toEqual([]);
      expect(b.counters.get(warcCounter("records.damaged"))).toBe(0);
      expect(b.counters.get(warcCounter("records"))).toBe(0);
    }
  });

  it("a cut last record is still found and counted as damage, not skipped unseen", async () => {
    const file = readFileSync(`${EDGE}example.warc`);
    const cut = file.subarray(0, file.length - 200);
    const b = await readAll(cut, { start: 5, end: null });
    expect(b.counters.get(warcCounter("records.damaged"))).toBeGreaterThanOrEqual(1);
  });
});
