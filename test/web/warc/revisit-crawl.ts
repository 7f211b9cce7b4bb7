/**
 * A small WARC of image revisits, built record by record as warcio writes them around the real test
 * photo (test/fixtures/data/images; captions invented here): the photo's capture, then revisits of it
 * by record id, by payload digest, by URI and date, one of a capture the crawl never stored, and
 * (`untyped`) one without a Content-Type; each image on a page of its own with its caption.
 */
import { readFileSync } from "node:fs";
import { PHOTO } from "../../pixels/images.ts";
import { htmlResponse, httpResponse, warcRecord } from "./warc-helpers.ts";

const ORIGINAL_ID = "<urn:uuid:0b5e9c55-0000-4000-8000-000000000001>";
const DIGEST = "sha1:MUOBKDZ7WDJ4GMM3JZXPJVOUHC3BWYIA";
const PROFILE = "WARC-Profile: http://netpreserve.org/warc/1.0/revisit/identical-payload-digest\r\n";

/** A revisit record: HTTP headers of the repeated response, no payload, and what it refers to. */
const revisit = (uri: string, refers: string, contentType = true) =>
  warcRecord("revisit", httpResponse("", contentType ? { "Content-Type": "image/jpeg" } : {}), { uri, extra: `Content-Type: application/http; msgtype=response\r\n${PROFILE}${refers}` });

/** The images' URLs and captions, in crawl order (the first is the photo's own capture). */
export const REVISIT_USES: readonly { url: string; caption: string }[] = [
  { url: "http://img.example.org/photos/road.jpg", caption: "A quiet road runs through a forest in autumn." },
  { url: "http://mirror.example.org/copy-of-road.jpg", caption: "The forest road is covered with fallen leaves." },
  { url: "http://cdn.example.org/a/b/road-large.jpg", caption: "An empty road leads into the autumn woods." },
  { url: "http://static.example.org/road-by-date.jpg", caption: "Trees line both sides of a quiet country road." },
  { url: "http://gone.example.org/lost.jpg", caption: "A lighthouse stands on a rocky coast at dusk." },
  { url: "http://plain.example.org/untyped.jpg", caption: "Fallen leaves cover a narrow road between the trees." },
];

function page(i: number): Buffer {
  const u = REVISIT_USES[i]!;
  return htmlResponse(`http://site.example.org/page-${i}.html`, `<!doctype html><html lang="en"><head><title>Page ${i}</title></head><body><p>Some words about the trip we made last year.</p><figure><img src="${u.url}" alt=""><figcaption>${u.caption}</figcaption></figure></body></html>`);
}

/** The crawl's records in order. */
export function revisitCrawlRecords(opts: { untyped: boolean }): Buffer[] {
  const photo = readFileSync(PHOTO.original);
  const u = REVISIT_USES;
  return [
    page(0),
    warcRecord("response", httpResponse(photo, { "Content-Type": "image/jpeg", "Content-Length": String(photo.length) }), { uri: u[0]!.url, id: ORIGINAL_ID, extra: `WARC-Payload-Digest: ${DIGEST}\r\n` }),
    page(1),
    revisit(u[1]!.url, `WARC-Refers-To: ${ORIGINAL_ID}\r\n`),
    page(2),
    revisit(u[2]!.url, `WARC-Payload-Digest: ${DIGEST}\r\n`),
    page(3),
    revisit(u[3]!.url, `WARC-Refers-To-Target-URI: ${u[0]!.url}\r\nWARC-Refers-To-Date: 2024-05-18T00:00:00Z\r\n`),
    page(4),
    revisit(u[4]!.url, "WARC-Refers-To: <urn:uuid:0b5e9c55-0000-4000-8000-00000000dead>\r\nWARC-Payload-Digest: sha1:NOTINTHISFILEAAAAAAAAAAAAAAAAAAA\r\n"),
    ...(opts.untyped ? [page(5), revisit(u[5]!.url, `WARC-Payload-Digest: ${DIGEST}\r\n`, false)] : []),
  ];
}
