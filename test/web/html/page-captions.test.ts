/**
 * A WARC record → its page's captions (page-captions.ts). A page whose bytes hold no `<img` (in any
 * ASCII case) is not decoded: the result must be what decoding it and looking in its text gives, on
 * every HTML record of every real WARC and on bytes made to catch a byte scan out: upper and mixed
 * case, `<img` only in a comment or a script, a tag split across HTTP chunks, compressed bodies,
 * UTF-16 (where `<img` is no run of bytes), ISO-2022-JP escapes between its letters, legacy encodings.
 */
import { readdirSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { extractCaptions } from "../../../shared/web/html/extract-captions.ts";
import { recordCaptions } from "../../../shared/web/html/page-captions.ts";
import { bodyText, mayHoldImgTag } from "../../../shared/web/warc/http-body.ts";
import { DATA, EDGE, readAll } from "../warc/warc-helpers.ts";

const URL_ = "https://example.org/page.html";
const MAX = 8 << 20;

type Rec = { headers: ReadonlyMap<string, string>; body: Buffer; targetUri: string | null };

/** recordCaptions as it was: every body decoded, then looked at. */
function reference(rec: Rec) {
  if (!rec.targetUri) return { drop: "no_target_uri" };
  const text = bodyText(rec, MAX);
  if ("drop" in text) return text;
  if (!/<(?:amp-)?img\b/i.test(text.text)) return { captions: [], images: 0, dropped: new Map() };
  return extractCaptions(text.text, rec.targetUri);
}

const rec = (body: Buffer, headers: Record<string, string> = { "content-type": "text/html" }): Rec => ({ headers: new Map(Object.entries(headers)), body, targetUri: URL_ });

const chunked = (parts: string[]) => Buffer.from(parts.map((p) => `${Buffer.byteLength(p, "latin1").toString(16)}\r\n${p}\r\n`).join("") + "0\r\n\r\n", "latin1");

describe("record captions", () => {
  it("every HTML record of every real WARC gives what decoding it first gives", async () => {
    const files = [...readdirSync(DATA).filter((f) => /\.warc(\.gz)?$/.test(f)).map((f) => DATA + f), ...readdirSync(EDGE).filter((f) => /\.warc/.test(f)).map((f) => EDGE + f)];
    let pages = 0;
    let withoutImg = 0;
    for (const f of files) {
      for (const r of (await readAll(f)).records) {
        if (!/html/i.test(r.headers.get("content-type") ?? "")) continue;
        pages++;
        const t = bodyText(r, MAX);
        if (!("drop" in t) && !/<img/i.test(t.text)) withoutImg++;
        expect(recordCaptions(r, MAX)).toEqual(reference(r));
      }
    }
    // both kinds are there: pages that are decoded and pages that are not
    expect(pages).toBeGreaterThan(40);
    expect(withoutImg).toBeGreaterThan(5);
  });

  it("crafted bodies: cases, comments, chunks, compression, UTF-16, ISO-2022-JP, legacy encodings", () => {
    const page = (img: string) => `<html><body><p>A dog on a beach at sunset ${img}</p></body></html>`;
    const cases: [string, Rec, boolean][] = [
      ["lower case", rec(Buffer.from(page('<img src="a.jpg" alt="a dog on the beach">'))), true],
      ["upper case", rec(Buffer.from(page('<IMG SRC="a.jpg" ALT="a dog on the beach">'))), true],
      ["mixed case", rec(Buffer.from(page('<iMg src="a.jpg" alt="a dog on the beach">'))), true],
      ["mixed case, no word end", rec(Buffer.from(page('<iMgx src="a.jpg" alt="a dog on the beach">'))), true],
      ["in a comment only", rec(Buffer.from(page('<!-- <Img src="a.jpg" alt="old"> -->'))), true],
      ["in a script only", rec(Buffer.from(page('<script>x = "<iMG src=a.jpg>"</script>'))), true],
      ["none", rec(Buffer.from(page("<span>no picture</span> <im g> < img> &lt;img"))), false],
      ["split across HTTP chunks", rec(chunked([page("<i"), 'mg src="a.jpg" alt="a dog on the beach">'].join("").match(/.{1,7}/gs)!), { "content-type": "text/html", "transfer-encoding": "chunked" }), true],
      ["gzip-encoded", rec(gzipSync(Buffer.from(page('<Img src="a.jpg" alt="a dog on the beach">'))), { "content-type": "text/html", "content-encoding": "gzip" }), false],
      ["UTF-16LE with its BOM", rec(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(page('<iMg src="a.jpg" alt="a dog on the beach">'), "utf16le")])), true],
      ["UTF-16LE named by the header, no BOM", rec(Buffer.from(page('<iMg src="a.jpg" alt="a dog on the beach">'), "utf16le"), { "content-type": "text/html; charset=UTF-16LE" }), true],
      ["UTF-16BE with its BOM", rec(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(page('<iMg src="a.jpg" alt="a dog">'), "utf16le").swap16()])), true],
      ["ISO-2022-JP, escapes between the letters", rec(Buffer.from(page('<\u001b(BImg src="a.jpg" alt="a dog on the beach">'), "latin1"), { "content-type": "text/html; charset=iso-2022-jp" }), true],
      ["windows-1252", rec(Buffer.from(page('<iMG src="caf\xe9.jpg" alt="caf\xe9 au lait">'), "latin1"), { "content-type": "text/html; charset=windows-1252" }), true],
      ["Shift_JIS", rec(Buffer.from([...Buffer.from("<p>"), 0x82, 0xa0, ...Buffer.from('<Img src="a.jpg" alt="x">')]), { "content-type": "text/html; charset=shift_jis" }), true],
      ["an AMP page: <amp-img> only", rec(Buffer.from(page('<amp-img src="lake.jpg" width="1600" height="900" layout="responsive" alt="A lake at dawn under mist"></amp-img>'))), false],
      ["invalid UTF-8 before the tag", rec(Buffer.from([...Buffer.from("<p>"), 0xe2, 0x82, ...Buffer.from('<IMg src="a.jpg" alt="a dog on the beach">')])), true],
    ];
    for (const [name, r, bytesShow] of cases) {
      expect(recordCaptions(r, MAX), name).toEqual(reference(r));
      // where the decoded bytes hold the letters, the scan says so (the gzip case is scanned after decoding)
      if (bytesShow) expect(mayHoldImgTag(r.headers.get("transfer-encoding") ? Buffer.from(page("<img")) : r.body, r.headers.get("content-type")), name).toBe(true);
    }
    // the skip is taken where it may be, and only there
    expect(mayHoldImgTag(Buffer.from(page("<span>no picture</span> < img>")), "text/html")).toBe(false);
    // UTF-16 named by the header is believed when the bytes are UTF-16 (then no byte scan can say), not over ASCII bytes
    expect(mayHoldImgTag(Buffer.from(page("<span>no picture</span>"), "utf16le"), "text/html; charset=utf-16")).toBe(true);
    expect(mayHoldImgTag(Buffer.from(page("<span>no picture</span>")), "text/html; charset=utf-16")).toBe(false);
    expect(mayHoldImgTag(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(page("<span>none</span>"), "utf16le")]), "text/html")).toBe(true);
    expect(mayHoldImgTag(Buffer.from(page("<span>none</span>")), "text/html; charset=iso-2022-jp")).toBe(true);
    // some of these pages do hold captions: a comparison of empties proves little
    expect(cases.filter(([, r]) => { const c = recordCaptions(r, MAX); return "captions" in c && c.captions.length > 0; }).length).toBeGreaterThan(8);
  });
});
