/**
 * A WARC content record → the captions of its page's images: the HTML body decoded (http-body.ts),
 * then read by extract-captions.ts with the record's target URI as the page URL.
 */
import { bodyBytes, decodeText, mayHoldImgTag } from "../warc/http-body.ts";
import type { WarcContentRecord, WarcRecordHead } from "../warc/warc-reader.ts";
import { extractCaptions, type ExtractOptions, type PageCaptions } from "./extract-captions.ts";

const HTML_TYPES = /^\s*(text\/html|application\/xhtml\+xml)\b/i;

/** The WARC reader's `accept`: only HTML pages that were served (2xx) are read. */
export function acceptHtml(head: WarcRecordHead): string | null {
  if (head.status !== null && (head.status < 200 || head.status > 299)) return "http_status";
  return HTML_TYPES.test(head.headers.get("content-type") ?? "") ? null : "not_html";
}

export type RecordCaptions = PageCaptions | { drop: string };

export function recordCaptions(rec: Pick<WarcContentRecord, "headers" | "body" | "targetUri">, maxBytes: number, opts?: ExtractOptions): RecordCaptions {
  if (!rec.targetUri) return { drop: "no_target_uri" };
  const bytes = bodyBytes(rec, maxBytes);
  if ("drop" in bytes) return bytes;
  // a page without an <img> (or AMP's <amp-img>) tag has no image to caption (<picture> needs one too):
  // not parsed, and when its bytes show it, not even decoded
  const contentType = rec.headers.get("content-type");
  if (!mayHoldImgTag(bytes.bytes, contentType)) return { captions: [], images: 0, dropped: new Map() };
  const text = decodeText(bytes.bytes, contentType);
  if (!/<(?:amp-)?img\b/i.test(text.text)) return { captions: [], images: 0, dropped: new Map() };
  return extractCaptions(text.text, rec.targetUri, opts);
}
