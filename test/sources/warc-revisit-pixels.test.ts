/**
 * Image revisit records in a pixel run: a revisit (a capture that repeats an earlier payload) of an
 * image response gets that response's bytes under its own URL, found by WARC-Refers-To, by
 * Refers-To-Target-URI + Date, or by an equal WARC-Payload-Digest; a revisit whose original the shard
 * never read is counted unresolved. The WARC is built here, record by record as warcio writes them,
 * around the real test photo (test/fixtures/data/images); captions invented here.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { ScoredPair } from "../../shared/core/records.ts";
import { runLocal } from "../../shared/runner/local-runner.ts";
import { PARTITIONS } from "../cloud/helpers.ts";
import { PHOTO } from "../pixels/images.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";
import { htmlResponse, httpResponse, warcRecord } from "../web/warc/warc-helpers.ts";

afterAll(removeTempDirs);

const ORIGINAL_ID = "<urn:uuid:0b5e9c55-0000-4000-8000-000000000001>";
const DIGEST = "sha1:MUOBKDZ7WDJ4GMM3JZXPJVOUHC3BWYIA";
const PROFILE = "WARC-Profile: http://netpreserve.org/warc/1.0/revisit/identical-payload-digest\r\n";

/** A revisit record: HTTP headers of the repeated response, no payload, and what it refers to. */
const revisit = (uri: string, refers: string) =>
  warcRecord("revisit", httpResponse("", { "Content-Type": "image/jpeg" }), { uri, extra: `Content-Type: application/http; msgtype=response\r\n${PROFILE}${refers}` });

const USES: { url: string; caption: string }[] = [
  { url: "http://img.example.org/photos/road.jpg", caption: "A quiet road runs through a forest in autumn." },
  { url: "http://mirror.example.org/copy-of-road.jpg", caption: "The forest road is covered with fallen leaves." },
  { url: "http://cdn.example.org/a/b/road-large.jpg", caption: "An empty road leads into the autumn woods." },
  { url: "http://static.example.org/road-by-date.jpg", caption: "Trees line both sides of a quiet country road." },
  { url: "http://gone.example.org/lost.jpg", caption: "A lighthouse stands on a rocky coast at dusk." },
];

function page(i: number): Buffer {
  const u = USES[i]!;
  return htmlResponse(`http://site.example.org/page-${i}.html`, `<!doctype html><html lang="en"><head><title>Page ${i}</title></head><body><p>Some words about the trip we made last year.</p><figure><img src="${u.url}" alt=""><figcaption>${u.caption}</figcaption></figure></body></html>`);
}

describe("WARC image revisits in a pixel run", () => {
  it("three revisits of the photo (by record id, by URI and date, by payload digest) join its pixels; one of an unread capture is counted unresolved", async () => {
    const dir = tempDir("paracap-warc-revisit-");
    const photo = readFileSync(PHOTO.original);
    const records = [
      page(0),
      warcRecord("response", httpResponse(photo, { "Content-Type": "image/jpeg", "Content-Length": String(photo.length) }), { uri: USES[0]!.url, id: ORIGINAL_ID, extra: `WARC-Payload-Digest: ${DIGEST}\r\n` }),
      page(1),
      revisit(USES[1]!.url, `WARC-Refers-To: ${ORIGINAL_ID}\r\n`),
      page(2),
      revisit(USES[2]!.url, `WARC-Payload-Digest: ${DIGEST}\r\n`),
      page(3),
      revisit(USES[3]!.url, `WARC-Refers-To-Target-URI: ${USES[0]!.url}\r\nWARC-Refers-To-Date: 2024-05-18T00:00:00Z\r\n`),
      page(4),
      revisit(USES[4]!.url, "WARC-Refers-To: <urn:uuid:0b5e9c55-0000-4000-8000-00000000dead>\r\nWARC-Payload-Digest: sha1:NOTINTHISFILEAAAAAAAAAAAAAAAAAAA\r\n"),
    ];
    writeFileSync(join(dir, "crawl.warc"), Buffer.concat(records));
    const run = await runLocal({ inputs: [{ path: join(dir, "crawl.warc"), kind: "current" }], outDir: join(dir, "out"), config: resolveConfig({ partitions: PARTITIONS, tiers: ["silver"], pivot: "md5" }), workers: 1, progress: null });
    const c = run.stats.counters;
    expect(c["warc.records.revisit"]).toBe(4);
    expect(c["warc.image_revisits"]).toBe(4);
    expect(c["warc.image_revisits.resolved"]).toBe(3);
    expect(c["warc.image_revisits.unresolved"]).toBe(1);
    // the original and the three resolved revisits carry the photo's bytes
    expect(c["pixel_identity.images"]).toBe(4);
    expect(c["pixel_identity.decoded"]).toBe(4);
    const row = run.stats.tiers.silver!.funnel.find((r) => r.id === "image_pixels_thesis_v1")!;
    expect(row.filter).toMatchObject({ in: 5, kept: 4, dropped: 1, reasons: { no_image: 1 } });
    const pairs = readFileSync(join(dir, "out", "silver.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => ScoredPair.parse(JSON.parse(l)));
    expect(pairs.length).toBeGreaterThan(0);
    const photoCaptions = new Set(USES.slice(0, 4).map((u) => u.caption));
    for (const p of pairs) {
      expect(p.image).toMatch(/^md5:/);
      expect(photoCaptions.has(p.a.text) && photoCaptions.has(p.b.text)).toBe(true);
    }
    // a revisit joined a page's caption: some pair has a side that names a revisited URL's page
    expect(pairs.some((p) => [p.a.page, p.b.page].some((pg) => /page-[123]\.html$/.test(pg)))).toBe(true);
  });
});
