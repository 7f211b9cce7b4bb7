/**
 * Captions found on the real crawls equal a hand count of their HTML.
 *
 * How the hand counts were made: every HTML response of each WARC was decoded (http-body.ts) and
 * written to a file; then, over those files with line breaks joined (`tr '\n' ' '`):
 *   img tags            grep -oiE '<img\b[^>]*>' | wc -l
 *   non-empty alt       … | grep -ciE '\balt\s*=\s*("[^"]*[^" ][^"]*"|'"'"'…'"'"'|[^"'"'"' >]+)'
 *   figcaptions         grep -oiE '<figcaption\b' | wc -l
 *   tables with images  a regex walk over <table>…</table>, rows and cells, by hand-checked output
 * dolma: 242 <img>, 170 with a non-empty alt, one of them inside an HTML comment (008: me_banner.jpg
 * alt="default") and one with `src="null"` (homes.cs.washington.edu/~axz/: alt="img alt", a script's
 * unfilled address, no picture), so 168; 8 with a title; 6 <figcaption>; 7 tables, none holding an image, so 0
 * table captions. pywb iana: 32 <img>, 16 with alt; no figcaption; 30 tables, none with an image.
 * Common Crawl: 13 <img>, 7 with alt, one a 1x1 login beacon inside <noscript> (no alt); no
 * <figcaption>, but one MediaWiki thumbnail whose caption is marked by class (2 images in it); 4
 * tables, two with an image: a two-cell row (not one column) and the infobox's coat of arms in a
 * one-row table, so 0 table captions (crafted tables test the rule in extract-captions.test.ts).
 * These counts are of every image the HTML holds (`templateImages: false`); the page template's
 * images (template-images.ts) are counted on their own below, against a regex count of their own.
 */
import { createReadStream } from "node:fs";
import { describe, expect, it } from "vitest";
import { Counters } from "../../../shared/core/counters.ts";
import { readWarc } from "../../../shared/web/warc/warc-reader.ts";
import { acceptHtml, recordCaptions } from "../../../shared/web/html/page-captions.ts";
import type { ExtractOptions, WebCaption } from "../../../shared/web/html/extract-captions.ts";
import { DATA, gzipRecords, httpResponse, readAll, warcRecord } from "../warc/warc-helpers.ts";

async function captionsOf(path: string, templateImages = false, opts: ExtractOptions = {}): Promise<{ captions: WebCaption[]; images: number; pages: number; dropped: Map<string, number> }> {
  const counters = new Counters();
  const out = { captions: [] as WebCaption[], images: 0, pages: 0, dropped: new Map<string, number>() };
  for await (const r of readWarc({ open: (s) => createReadStream(path, { start: s }), file: path, counters, maxBodyBytes: 8 << 20, accept: acceptHtml })) {
    const c = recordCaptions(r, 8 << 20, { templateImages, ...opts });
    if ("drop" in c) continue;
    for (const [k, v] of c.dropped) out.dropped.set(k, (out.dropped.get(k) ?? 0) + v);
    out.pages++;
    out.images += c.images;
    out.captions.push(...c.captions);
  }
  return out;
}

const count = (cs: WebCaption[], type: string) => cs.filter((c) => c.type === type).length;

describe("captions on real crawls = hand counts", () => {
  it("dolma: 168 alt, 8 title, 6 figcaption, 0 table", async () => {
    const { captions, pages } = await captionsOf(`${DATA}dolma-sample-0000.warc.gz`);
    expect(pages).toBe(22);
    expect(count(captions, "alt")).toBe(168);
    expect(count(captions, "title")).toBe(8);
    expect(count(captions, "figcaption")).toBe(6);
    expect(count(captions, "table")).toBe(0);
  });

  it("pywb iana: 16 alt on 32 images, no figcaption or table caption; the revisits add nothing", async () => {
    const { captions, images } = await captionsOf(`${DATA}pywb-iana.warc.gz`);
    expect(images).toBe(32);
    expect(count(captions, "alt")).toBe(16);
    expect(captions.some((c) => c.type === "alt" && c.text === "Map of RIRs")).toBe(true);
    expect(count(captions, "figcaption") + count(captions, "table")).toBe(0);
  });

  it("Common Crawl: 7 alt on 12 images (the noscript beacon is not one); Wikimedia thumbnails keyed as File: names", async () => {
    const { captions, images } = await captionsOf(`${DATA}commoncrawl-whirlwind.warc.gz`);
    expect(images).toBe(12);
    expect(count(captions, "alt")).toBe(7);
    expect(count(captions, "table")).toBe(0);
    // the location map is MediaWiki's thumbnail without <figure> (thumbinner … thumbcaption): its caption, and its
    // pointer's (a 24px image in the same thumbnail, the page template's by its declared size); <figure> tags only, none
    expect(captions.filter((c) => c.type === "figcaption").map((c) => [c.image, c.text])).toEqual([
      ["File:Castilla-La Mancha-loc.svg", "Escopete en Castiella-La Mancha"],
      ["File:Map pointer.svg", "Escopete en Castiella-La Mancha"],
    ]);
    expect(count((await captionsOf(`${DATA}commoncrawl-whirlwind.warc.gz`, false, { classCaptions: false })).captions, "figcaption")).toBe(0);
    expect(captions).toContainEqual(expect.objectContaining({ type: "alt", text: "Escudo d'armas", image: "File:Escudo de Escopete (Guadalajara).svg" }));
  });

  it("the page template's images are dropped: declared under 3,000 pixels (as a regex count of width × height finds: 15, 16, 8), shown twice on one page (dolma: 120)", async () => {
    const dolma = await captionsOf(`${DATA}dolma-sample-0000.warc.gz`, true);
    expect(Object.fromEntries(dolma.dropped)).toMatchObject({ declared_too_small: 15, repeated_on_page: 120 });
    // (a regex count of identical src attributes per page gives 122: two uses share a key with a different spelling)
    expect((await captionsOf(`${DATA}pywb-iana.warc.gz`, true)).dropped.get("declared_too_small")).toBe(16);
    const cc = await captionsOf(`${DATA}commoncrawl-whirlwind.warc.gz`, true);
    expect(cc.dropped.get("declared_too_small")).toBe(8);
    // the article's own images stay: the coat of arms (its declared size is 100 × 112)
    expect(cc.captions).toContainEqual(expect.objectContaining({ type: "alt", text: "Escudo d'armas", image: "File:Escudo de Escopete (Guadalajara).svg" }));
    // what is kept is a subset of what the HTML holds, never a changed caption (ordinals count the images kept)
    const all = await captionsOf(`${DATA}dolma-sample-0000.warc.gz`);
    const same = (c: WebCaption) => JSON.stringify([c.image, c.url, c.type, c.text]);
    const held = new Set(all.captions.map(same));
    for (const c of dolma.captions) expect(held.has(same(c))).toBe(true);
  });

  it("a revisit record, even with an HTML payload, produces no references", async () => {
    const html = '<img src="a.jpg" alt="a cat on a mat">';
    const revisit = warcRecord("revisit", httpResponse(html), { uri: "http://example.org/", extra: "WARC-Profile: http://netpreserve.org/warc/1.0/revisit/identical-payload-digest\r\n" });
    const response = warcRecord("response", httpResponse(html), { uri: "http://example.org/" });
    const { records, counters } = await readAll(gzipRecords([revisit, response, revisit]), { accept: acceptHtml });
    expect(records).toHaveLength(1);
    expect(counters.get("warc.records.revisit")).toBe(2);
  });
});
