/** HTTP bodies as WARCs store them → text: chunking, Content-Encoding with a bound, charsets. */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { brotliCompressSync, deflateRawSync, deflateSync, gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { bodyText, dechunk, decodeContent, decodeText } from "../../../shared/web/warc/http-body.ts";
import { EDGE, DATA, readAll } from "./warc-helpers.ts";
import { headerCharset, metaCharset } from "../../../shared/web/warc/http-body.ts";

/** decodeText as it was before its fast paths: TextDecoder alone, a new one per call. */
function referenceDecodeText(bytes: Buffer, contentType: string | undefined): { text: string; charset: string } {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? { charset: "utf-8", skip: 3 } : bytes[0] === 0xfe && bytes[1] === 0xff ? { charset: "utf-16be", skip: 2 } : bytes[0] === 0xff && bytes[1] === 0xfe ? { charset: "utf-16le", skip: 2 } : null;
  if (bom) return { text: new TextDecoder(bom.charset).decode(bytes.subarray(bom.skip)), charset: bom.charset };
  for (const label of [headerCharset(contentType), metaCharset(bytes)]) {
    let d: InstanceType<typeof TextDecoder> | null = null;
    try {
      d = label ? new TextDecoder(label) : null;
    } catch {
      d = null;
    }
    if (d && !d.encoding.startsWith("utf-16")) return { text: d.encoding === "windows-1252" ? windows1252(bytes) : d.decode(bytes), charset: d.encoding };
  }
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), charset: "utf-8" };
  } catch {
    return { text: windows1252(bytes), charset: "windows-1252" };
  }
}

/** windows-1252 by the WHATWG index (Node's TextDecoder reads 0x80–0x9F as Latin-1 since 20.18.3). */
function windows1252(bytes: Uint8Array): string {
  const high = [0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178];
  let s = "";
  for (const b of bytes) s += String.fromCodePoint(b >= 0x80 && b <= 0x9f ? high[b - 0x80]! : b);
  return s;
}

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

  it("zstd (browsers' newest Content-Encoding) and a list of codings applied in turn are undone; a zstd bomb stops at the bound", () => {
    // a real page of the iana.org crawl, compressed by the zstd program (as a server sends it)
    const crawl = gunzipSync(readFileSync(`${DATA}pywb-iana.warc.gz`)).toString("latin1");
    const start = crawl.search(/<!doctype html>/i);
    const page = Buffer.from(crawl.slice(start, crawl.indexOf("</html>", start) + 7), "latin1");
    expect(page.length).toBeGreaterThan(1000);
    const zstd = (input: Buffer, ...args: string[]) => execFileSync("zstd", ["-q", "-c", ...args], { input, maxBuffer: 1 << 26 });
    const packed = zstd(page);
    expect(decodeContent(packed, "zstd", 1 << 20)).toEqual({ bytes: page });
    expect(decodeContent(packed, " ZSTD ", 1 << 20)).toEqual({ bytes: page });
    // RFC 9110: "gzip, br" is gzip applied first, then br
    expect(decodeContent(brotliCompressSync(gzipSync(page)), "gzip, br", 1 << 20)).toEqual({ bytes: page });
    expect(decodeContent(gzipSync(packed), "zstd, identity, gzip", 1 << 20)).toEqual({ bytes: page });
    expect(decodeContent(gzipSync(page), "compress, gzip", 1 << 20)).toEqual({ drop: "unknown_content_encoding" });
    // a body stored decoded under its header is taken as markup, as for gzip; garbage is a counted drop
    expect(decodeContent(page, "zstd", 1 << 20)).toEqual({ bytes: page });
    expect(decodeContent(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3, 4]), "zstd", 1 << 20)).toEqual({ drop: "bad_content_encoding" });
    // a body cut short gives its whole blocks (128 KiB each) before the cut, as a cut gzip body gives what it holds
    const long = Buffer.from(crawl.slice(0, 600_000), "latin1");
    const cut = decodeContent(zstd(long).subarray(0, Math.floor(zstd(long).length * 0.7)), "zstd", 1 << 20);
    if (!("bytes" in cut)) throw new Error(cut.drop);
    expect(cut.bytes.length).toBeGreaterThanOrEqual(128 << 10);
    expect(long.subarray(0, cut.bytes.length)).toEqual(cut.bytes);
    // 64 MiB of zeros in a few KB: never decoded past the bound
    const bomb = zstd(Buffer.alloc(64 << 20));
    expect(bomb.length).toBeLessThan(1 << 20);
    expect(decodeContent(bomb, "zstd", 8 << 20)).toEqual({ drop: "decoded_too_large" });
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

  it("windows-1252 (and iso-8859-1, ascii, no charset and not UTF-8) reads 0x80–0x9F as a browser does: curly quotes, dashes, €, not C1 controls", () => {
    // Node's TextDecoder("windows-1252") decodes these bytes as Latin-1 since 20.18.3 and 22.13.0 (nodejs/node#60888)
    const page = Buffer.from("<p>\x93Caf\xe9\x94 \x96 Tom\x92s \x80 5 \x85 \x99 \x9f</p>", "latin1");
    const shown = "<p>\u201cCafé\u201d \u2013 Tom\u2019s \u20ac 5 \u2026 \u2122 \u0178</p>";
    for (const type of ["text/html; charset=windows-1252", "text/html; charset=ISO-8859-1", "text/html; charset=us-ascii", "text/html"]) {
      expect(decodeText(page, type)).toEqual({ text: shown, charset: "windows-1252" });
    }
    expect(decodeText(Buffer.concat([Buffer.from('<meta charset="latin1">'), page]), "text/html").text).toBe(`<meta charset="latin1">${shown}`);
    // the five bytes the standard leaves as C1 controls stay so; every other byte is Latin-1
    const all = decodeText(Buffer.from(Array.from({ length: 256 }, (_, i) => i)), "text/html; charset=windows-1252").text;
    expect([0x81, 0x8d, 0x8f, 0x90, 0x9d].map((b) => all.charCodeAt(b))).toEqual([0x81, 0x8d, 0x8f, 0x90, 0x9d]);
    expect([...all].filter((c, i) => (i < 0x80 || i > 0x9f) && c.charCodeAt(0) !== i)).toEqual([]);
    expect([...all].filter((c, i) => i >= 0x80 && i <= 0x9f && c.charCodeAt(0) >= 0x80 && c.charCodeAt(0) <= 0x9f)).toHaveLength(5);
  });

  it("charset evidence a browser uses that a 4 KiB regex misses, and evidence that is none", () => {
    const cp1251 = Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]);
    // a <meta charset> after a large inline script, still in the head
    const late = Buffer.concat([Buffer.from(`<html><head><script>${"var x = 1;\n".repeat(800)}</script><meta charset="windows-1251"></head><body><p>`), cp1251, Buffer.from("</p>")]);
    expect(decodeText(late, "text/html")).toMatchObject({ charset: "windows-1251" });
    expect(decodeText(late, "text/html").text).toContain("Привет");
    // "charset=" in a description's content declares nothing; the real declaration after it counts
    const description = Buffer.concat([Buffer.from('<meta name="description" content="How to set charset=koi8-r in Apache"><meta http-equiv="content-type" content="text/html; charset=windows-1251"><p>'), cp1251]);
    expect(decodeText(description, "text/html").charset).toBe("windows-1251");
    expect(metaCharset(Buffer.from('<meta name="description" content="charset=koi8-r">'))).toBeNull();
    // UTF-16LE named by the HTTP header, no BOM
    expect(decodeText(Buffer.from("<p>Grüße, 日本</p>", "utf16le"), "text/html; charset=utf-16le")).toEqual({ text: "<p>Grüße, 日本</p>", charset: "utf-16le" });
    // an XHTML page whose only declaration is its XML declaration
    const xhtml = Buffer.concat([Buffer.from('<?xml version="1.0" encoding="Shift_JIS"?>\n<html><p>'), Buffer.from([0x93, 0xfa, 0x96, 0x7b]), Buffer.from("</p></html>")]);
    expect(decodeText(xhtml, "application/xhtml+xml").text).toContain("日本");
  });

  it("a compressed body cut short gives what it holds; a corrupt one is a counted drop", () => {
    const html = Buffer.from(`<html><body>${'<p><img src="a.jpg" alt="a dog on the beach"></p>'.repeat(2000)}</body></html>`);
    for (const [enc, packed] of [["gzip", gzipSync(html)], ["deflate", deflateSync(html)]] as const) {
      const cut = decodeContent(packed.subarray(0, Math.floor(packed.length / 2)), enc, 8 << 20);
      expect("bytes" in cut && html.subarray(0, cut.bytes.length).equals(cut.bytes) && cut.bytes.length > 1000).toBe(true);
    }
    const corrupt = Buffer.from(gzipSync(html));
    corrupt.fill(0xff, 20, 60);
    expect(decodeContent(corrupt, "gzip", 8 << 20)).toEqual({ drop: "bad_content_encoding" });
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

  it("decodes every real page, and crafted bytes at the edges of UTF-8, exactly as TextDecoder alone does (windows-1252 by its table)", async () => {
    const bodies: { bytes: Buffer; type: string | undefined }[] = [];
    for (const f of ["dolma-sample-0000.warc.gz", "pywb-iana.warc.gz", "commoncrawl-whirlwind.warc.gz"]) {
      for (const r of (await readAll(`${DATA}${f}`)).records) {
        const out = decodeContent(r.headers.get("transfer-encoding")?.includes("chunked") ? dechunk(r.body) : r.body, r.headers.get("content-encoding"), 8 << 20);
        if (!("drop" in out)) bodies.push({ bytes: out.bytes, type: r.headers.get("content-type") });
      }
    }
    expect(bodies.length).toBeGreaterThan(30);
    const bom = [0xef, 0xbb, 0xbf];
    const crafted = [
      [],
      bom,
      [...bom, ...bom, 0x61],
      [...Buffer.from("<p>a😀b\u00e9\u2014\u00a0x</p>")],
      [...Buffer.from("\ufffe\uffff\u0000\u{10ffff}")],
      [0x3c, 0x70, 0x3e, 0xc0, 0x80], // overlong NUL
      [0x61, 0xed, 0xa0, 0x80], // an encoded surrogate
      [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
      [0x61, 0xe2, 0x82], // cut in a sequence
      [0x61, 0xe9, 0x62], // Latin-1
      [0x80, 0x9f, 0xff],
      [0xfe, 0xff, 0x00, 0x3c, 0x00, 0x70],
      [0xff, 0xfe, 0x3c, 0x00, 0x70, 0x00],
      [...bom, 0xe9],
    ].map((b) => Buffer.from(b));
    for (const type of [undefined, "text/html", "text/html; charset=utf-8", "text/html; charset=iso-8859-1", "text/html; charset=shift_jis", "text/html; charset=utf-16"]) {
      for (const bytes of crafted) bodies.push({ bytes, type });
      bodies.push({ bytes: Buffer.from("<meta charset=windows-1252><p>plain ASCII</p>"), type });
      bodies.push({ bytes: Buffer.from("<meta charset=utf-8><p>caf\xe9</p>", "latin1"), type });
    }
    for (const { bytes, type } of bodies) expect(decodeText(bytes, type)).toEqual(referenceDecodeText(bytes, type));
  });
});
