/**
 * Web crawls (WARC, `.warc` and per-record `.warc.gz`): a document is one HTML response (or
 * resource) record, named by its WARC-Record-ID and carrying its target URI and date; the extractor
 * decodes its body, finds the captions of its images (shared/web/html) and keeps the captions the
 * web filters pass (shared/web/filters). A large `.warc.gz` splits at any byte: a shard owns the
 * gzip members that START in its range, found by scanning and verified by decoding.
 *
 * Under today's record contract (numeric page and revision ids, caption types `caption` and `alt`):
 *  - page = the target URI; pageId = a stable 48-bit hash of it, revisionId = one of the record id.
 *    Two crawls of one site are then revisions of the same pages: given as history inputs they feed
 *    the bronze tier as Wikipedia revisions do (an unchanged caption is one use seen twice, a changed
 *    one a second use of the same page).
 *  - one reference per image use, source `row` (a web image keyed by URL, to which the caption-list
 *    equivalence-set bound applies), alt = the `<img alt>`, caption = the figcaption or, failing
 *    that, the table caption. Title and nearby captions are found and counted
 *    (`warc.skipped.caption_type.<type>`) but have no column yet: they wait for open caption types.
 */
import { createHash } from "node:crypto";
import { basename } from "node:path";
import type { InputKind } from "../../core/records.ts";
import { warcCounter, warcSkippedCounter, extractCounter, extractSkippedCounter } from "../../core/counter-names.ts";
import { createFeatureLookup, type ExtractedRef, type RevisionRefs } from "../../pipeline/extract-stage.ts";
import { createPivot } from "../../plugins/pivots.ts";
import type { ByteRange, Source } from "../source.ts";
import { readWarc } from "../../web/warc/warc-reader.ts";
import { decodesToWarc, isGzipMagic } from "../../web/warc/gzip-member.ts";
import { isWarcName, warcKind } from "../../web/warc/warc-kind.ts";
import { acceptHtml, recordCaptions } from "../../web/html/page-captions.ts";
import type { WebCaption } from "../../web/html/extract-captions.ts";
import { keepWebCaption, webCaptionFilters } from "../../web/filters/web-caption-filters.ts";
import { imageKey } from "../../web/html/image-url.ts";

/** One HTML page of a crawl, as the WARC stored it (body still encoded). */
export interface WarcPage {
  /** WARC-Record-ID */
  id: string;
  uri: string;
  date: string | null;
  file: string;
  offset: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** A stable non-negative safe integer for a string id (the contract still wants numbers). */
export function numericId(id: string): number {
  return Number.parseInt(createHash("sha256").update(id).digest("hex").slice(0, 12), 16);
}

/** The page identity of a target URI: normalised like an image URL, so re-crawls of one page meet. */
function pageKey(uri: string): string {
  const v = imageKey(uri, uri);
  return "key" in v && !v.key.startsWith("File:") ? v.key : uri;
}

export const warcSource: Source<WarcPage> = {
  name: "warc",
  description: "web crawl WARC files (.warc, .warc.gz): image captions from HTML pages",
  documentsCounter: warcCounter("documents"),
  claims(fileName, head) {
    if (isWarcName(fileName)) return true;
    if (/^WARC\/1\.[01]\r?\n/.test(head.subarray(0, 16).toString("latin1"))) return true;
    return isGzipMagic(head) && decodesToWarc(head);
  },
  planRanges(size, targetBytes): ByteRange[] | null {
    if (size <= targetBytes) return null;
    const ranges: ByteRange[] = [];
    for (let start = 0; start < size; start += targetBytes) {
      const end = start + targetBytes;
      ranges.push({ start, end: end >= size ? null : end, fragment: start > 0 });
    }
    return ranges;
  },
  async *documents(shard, bytes, config, counters) {
    const file = basename(shard.uri);
    const kind = warcKind(file);
    if (kind !== "warc") {
      // WET (plain text) and WAT (metadata) hold no HTML: recognised, counted, not read
      counters.inc(warcSkippedCounter(`${kind}_file`));
      return;
    }
    for await (const rec of readWarc({
      open: (start) => bytes.read(start),
      file: bytes.label,
      start: shard.start ?? 0,
      end: shard.end,
      counters,
      maxBodyBytes: config.extraction.maxPageBytes,
      accept: acceptHtml,
    })) {
      if (!rec.targetUri) {
        counters.inc(warcSkippedCounter("no_target_uri"));
        continue;
      }
      counters.inc(warcCounter("documents"));
      yield { id: rec.recordId, uri: rec.targetUri, date: rec.date, file, offset: rec.offset, headers: Object.fromEntries(rec.headers), body: rec.body };
    }
  },
  createExtractor(config, counters) {
    const features = createFeatureLookup(config, counters);
    const pivot = createPivot(config.pivot);
    const filters = webCaptionFilters();
    const kept = (c: WebCaption | undefined) => (c && keepWebCaption(filters, c, counters) ? c.text : null);
    return (doc: WarcPage, kind: InputKind): RevisionRefs => {
      const page = pageKey(doc.uri);
      const base = { kind, page, pageId: numericId(page), revisionId: numericId(doc.id) };
      counters.inc(extractCounter(kind, "revisions"));
      const found = recordCaptions({ headers: new Map(Object.entries(doc.headers)), body: doc.body, targetUri: doc.uri }, config.extraction.maxPageBytes);
      if ("drop" in found) {
        counters.inc(extractSkippedCounter(kind, found.drop));
        return { ...base, refs: [], skipped: found.drop };
      }
      for (const [reason, n] of found.dropped) counters.inc(warcSkippedCounter(`image.${reason}`), n);
      const byUse = new Map<number, { image: string; alt?: WebCaption; figcaption?: WebCaption; table?: WebCaption }>();
      for (const c of found.captions) {
        const use = byUse.get(c.ordinal) ?? { image: c.image };
        byUse.set(c.ordinal, use);
        if (c.type === "alt" || c.type === "figcaption" || c.type === "table") use[c.type] = c;
        else counters.inc(warcSkippedCounter(`caption_type.${c.type}`));
      }
      const refs: ExtractedRef[] = [];
      for (const [ordinal, use] of [...byUse].sort((a, b) => a[0] - b[0])) {
        const alt = kept(use.alt);
        const caption = kept(use.figcaption) ?? kept(use.table);
        refs.push({ image: pivot.key({ image: use.image, page }), source: "row", ordinal, caption: features(caption), alt: features(alt) });
      }
      counters.inc(warcCounter("image_refs"), refs.length);
      return { ...base, refs };
    };
  },
  pack: (docs) => docs,
  unpack: (packed) => (packed as WarcPage[]).map((d) => ({ ...d, body: Buffer.isBuffer(d.body) ? d.body : Buffer.from((d.body as Uint8Array).buffer, (d.body as Uint8Array).byteOffset, (d.body as Uint8Array).byteLength) })),
  size: (doc) => doc.body.length,
};
