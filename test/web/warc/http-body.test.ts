/** HTTP bodies as WARCs store them → text: chunking, Content-Encoding with a bound, charsets. */
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { bodyText, dechunk, decodeContent, decodeText } from "../../../shared/web/warc/http-body.ts";
import { EDGE, DATA, readAll } from "./warc-helpers.ts";

describe("HTTP bodies", () => {
  it("de-chunks warcio's real chunked iana.org capture into a whole page", async () => {
    const [rec] = (await readAll(`${EDGE}example-iana.org-chunked.warc`)).records;
    const out = bodyText(rec!, 1 << 20);
    if ("drop" in out) throw new Error(out.drop);
    expect(out.text.trimStart()).toMatch(/^<!doctype html>/i);
    expect(out.text.trimEnd()).toMatch(/<\/html>$/i);
    expect(out.text).not.toMatch(/\r\n[0-9a-f]+\r\n/);
  });

  it("a body that says chunked but is not (already de-chunked by the crawler) is kept as is", () => {
    const body = Buffer.from("<html><p>x</p></html>");
    expect(dechunk(body)).toEqual(body);
    expect(dechunk(Buffer.from("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")).toString()).toBe("hello world");
  });

  it("gzip, deflate (zlib and raw) and br are undone", () => {
    const page = Buffer.from("<p>caption text</p>");
    for (const [enc, bytes] of [["gzip", gzipSync(page)], ["x-gzip", gzipSync(page)], ["deflate", deflateSync(page)], ["deflate", deflateRawSync(page)], ["br", brotliCompressSync(page)], ["identity", page]] as const) {
      expect(decodeContent(bytes, enc, 1 << 20)).toEqual({ bytes: page });
    }
    expect(decodeContent(page, "compress", 1 << 20)).toEqual({ drop: "unknown_content_encoding" });
    // a crawler that stored the decoded page but kept the header
    expect(decodeContent(page, "gzip", 1 << 20)).toEqual({ bytes: page });
    expect(decodeContent(Buffer.from([1, 2, 3, 4]), "gzip", 1 << 20)).toEqual({ drop: "bad_content_encoding" });
  });

  it("a gzip bomb (1 MB → 1 GB) is a counted drop at the bound, never decoded whole", () => {
    const member = gzipSync(Buffer.alloc(16 * 1024 * 1024));
    const bomb = Buffer.concat(Array.from({ length: 64 }, () => member));
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    expect(decodeContent(bomb, "gzip", 8 * 1024 * 1024)).toEqual({ drop: "decoded_too_large" });
    expect(decodeContent(brotliCompressSync(Buffer.alloc(32 * 1024 * 1024)), "br", 8 * 1024 * 1024)).toEqual({ drop: "decoded_too_large" });
  });

  it("charset: BOM, then header, then <meta>, then UTF-8 if valid, else windows-1252", () => {
    const latin1 = Buffer.from("<p>Caf\xe9 \xab\xa0na\xefve\xa0\xbb</p>", "latin1");
    expect(decodeText(latin1, "text/html; charset=ISO-8859-1")).toEqual({ text: "<p>Café «\u00a0naïve\u00a0»</p>", charset: "windows-1252" });
    const cp1251 = Buffer.concat([Buffer.from('<meta charset="windows-1251"><p>'), Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]), Buffer.from("</p>")]);
    expect(decodeText(cp1251, "text/html").text).toContain("Привет");
    const httpEquiv = Buffer.concat([Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=shift_jis"><p>'), Buffer.from([0x93, 0xfa, 0x96, 0x7b]), Buffer.from("</p>")]);
    expect(decodeText(httpEquiv, "text/html").text).toContain("日本");
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("<p>é</p>")]);
    expect(decodeText(bom, "text/html; charset=iso-8859-1")).toEqual({ text: "<p>é</p>", charset: "utf-8" });
    expect(decodeText(Buffer.from("<p>é</p>"), "text/html").charset).toBe("utf-8");
    expect(decodeText(Buffer.from("<p>\xe9</p>", "latin1"), "text/html")).toEqual({ text: "<p>é</p>", charset: "windows-1252" });
    expect(decodeText(Buffer.from("<p>x</p>"), "text/html; charset=no-such-charset").charset).toBe("utf-8");
  });

  it("iana.org's iso-8859-1 pages decode without replacement characters", async () => {
    const { records } = await readAll(`${DATA}pywb-iana.warc.gz`);
    const pages = records.filter((r) => /html/.test(r.headers.get("content-type") ?? ""));
    expect(pages.some((r) => /iso-8859-1/i.test(r.headers.get("content-type") ?? ""))).toBe(true);
    for (const r of pages) {
      const out = bodyText(r, 8 << 20);
      if ("drop" in out) throw new Error(out.drop);
      expect(out.text).not.toContain("\ufffd");
    }
  });
});
