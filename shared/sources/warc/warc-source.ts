/**
 * Web crawls (WARC, `.warc` and per-record `.warc.gz`; ARC, `.arc` and `.arc.gz`, read by
 * arc-reader.ts into the same records): a document is one HTML response (or resource) record, named
 * by its WARC-Record-ID (an ARC record by its file and offset) and carrying its target URI and date; the extractor
 * decodes its body, finds the captions of its images (shared/web/html) and keeps the captions the
 * web filters pass (shared/web/filters). A large `.warc.gz` splits at any byte: a shard owns the
 * gzip members that START in its range, found by scanning and verified by decoding.
 *
 * Identity: page = the normalised target URI (its page id too); revision = capture date + record id,
 * so the captures of one page sort by time. Two crawls of one site are revisions of the same pages:
 * given as history inputs they feed the bronze tier as Wikipedia revisions do. One reference per
 * image use, source `img`; caption types: `alt` (img alt), `caption` (figcaption, else a one-column
 * table's caption cell), `title` (img title) and `nearby` (the text around the image, lower
 * confidence), each paired only with its own type.
 *
 * Pixels: in a run with a pixel pivot, image response records (2xx, `image/*`) are documents too,
 * without references; they carry their bytes (image-bytes.ts) under the key an `<img src>` naming
 * their URL gets (web/html/image-url.ts), so the pixel pipeline joins them to the pages that use
 * them, in any shard of the run. A revisit of an image (a capture that repeats an earlier one's
 * payload) is given that capture's bytes under its own URL when the original is an image response
 * read before it in the same shard (revisit-originals.ts), counted `warc.image_revisits.resolved`,
 * else `.unresolved` and handed on as a pending revisit naming its original by payload digest (else
 * target URI + date, else record id): the pixel pipeline joins it to an image capture of another
 * shard (or one this shard no longer held) and then counts it resolved (`countResolvedRevisit`).
 * Other runs read exactly what they read before.
 */
import { dropsTemplateImages } from "../../web/html/template-images.ts";
import { dropsCredits } from "../../web/html/hidden-text.ts";
import { readsClassCaptions } from "../../web/html/class-captions.ts";
import { basename } from "node:path";
import type { ParacapConfig } from "../../core/config.ts";
import type { Counters } from "../../core/counters.ts";
import { WARC_SKIPPED_PREFIX, extractDocumentsCounter, extractSkippedCounter, warcCounter, warcSkippedCounter } from "../../core/counter-names.ts";
import type { ByteRange, DocumentRefs, Source, SourceRef } from "../source.ts";
import type { ShardSpec } from "../shard-spec.ts";
import { bytesFrom, knownSize, windowedRead, type ByteSource } from "../../io/byte-source.ts";
import { readWarcWithRevisits } from "../../web/warc/warc-reader.ts";
import { DumpError } from "../../dump/errors.ts";
import { RevisitOriginals } from "./revisit-originals.ts";
import { decodesToWarc, isGzipMagic } from "../../web/warc/gzip-member.ts";
import { isArcName, isWarcName, warcKind } from "../../web/warc/warc-kind.ts";
import { decodedFrom, isWholeCompressedCrawl } from "../../web/warc/compressed-crawl.ts";
import { isArcInput, readArc, startsAsArc } from "../../web/warc/arc-reader.ts";
import { isWaczName, openWacz, ownedPart } from "../../web/warc/wacz.ts";
import { acceptHtml, recordCaptions } from "../../web/html/page-captions.ts";
import type { WebCaption } from "../../web/html/extract-captions.ts";
import { loadLanguageDetector, webCaptionKeeper, WEB_FILTER_TIER, webCaptionFilters, type LanguageDetector } from "../../web/filters/web-caption-filters.ts";
import { imageKey } from "../../web/html/image-url.ts";
import { isPixelPivot } from "../../core/plugin-names.ts";
import type { WarcRecordHead, WarcRevisitRecord } from "../../web/warc/warc-reader.ts";
import { decodeContent, dechunk } from "../../web/warc/http-body.ts";
import type { ImageBytes, ImageBytesSource, PendingRevisit } from "../image-bytes.ts";

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
  /** a revisit record given its original's body: the original's URI (or record id) */
  revisitOf?: string;
  /** an image response's WARC-Payload-Digest (pixel runs), a key revisits name it by */
  payloadDigest?: string;
  /** a revisit whose original this shard did not read (pixel runs): no body, not a page */
  pendingRevisit?: Omit<PendingRevisit, "image">;
}

/** The keys a revisit may name an image capture by (captureKeysOf), one per way of naming it. */
const byDigest = (digest: string) => `digest ${digest}`;
const byUriDate = (uri: string, date: string) => `uri ${uri}\n${date}`;
const byRecordId = (id: string) => `id ${id}`;

/**
 * How a revisit names its original for the join across shards: by payload digest first (any capture
 * of the payload has its bytes, and the identical-payload-digest profile requires the digest), else
 * by target URI + date, else by record id; null when it names it in no way.
 */
function originalKey(rec: WarcRevisitRecord): string | null {
  if (rec.payloadDigest) return byDigest(rec.payloadDigest);
  if (rec.refersTo.targetUri && rec.refersTo.date) return byUriDate(rec.refersTo.targetUri, rec.refersTo.date);
  return rec.refersTo.recordId ? byRecordId(rec.refersTo.recordId) : null;
}

/** The page identity of a target URI: normalised like an image URL, so re-crawls of one page meet. */
function pageKey(uri: string): string {
  const v = imageKey(uri, uri);
  return "key" in v && !v.key.startsWith("File:") ? v.key : uri;
}

const NO_BODY = Buffer.alloc(0);

/** Largest decoded image body (the pixel readers' bound, pixels/img2dataset.ts). */
const MAX_IMAGE_BYTES = 32 * 1024 * 1024;

const IMAGE_TYPE = /^\s*image\//i;

const isImageRecord = (headers: Record<string, string>) => IMAGE_TYPE.test(headers["content-type"] ?? "");

/** HTML as always, and image responses (2xx) for the pixel pipeline. */
function acceptHtmlOrImage(head: WarcRecordHead): string | null {
  const html = acceptHtml(head);
  if (html !== "not_html") return html;
  return IMAGE_TYPE.test(head.headers.get("content-type") ?? "") ? null : html;
}

/** An image response's bytes under its `<img src>` key; none when its URL is not one an image could have or its body cannot be decoded. */
function imageRecordBytes(doc: WarcPage, maxBytes: number): ImageBytes[] {
  const key = imageKey(doc.uri, doc.uri);
  if (!("key" in key)) return [];
  const te = doc.headers["transfer-encoding"]?.toLowerCase() ?? "";
  const decoded = decodeContent(te.includes("chunked") ? dechunk(doc.body) : doc.body, doc.headers["content-encoding"], maxBytes);
  return [{ image: key.key, bytes: "drop" in decoded ? null : new Uint8Array(decoded.bytes.buffer, decoded.bytes.byteOffset, decoded.bytes.byteLength) }];
}

/** One WARC file to read: its name (WET/WAT are told by it), a label for damage samples, its bytes from a position, the shard's range. */
export interface WarcInput {
  /** told of each damaged record (warc-reader.ts) */
  onDamage?(offset: number, reason: string): void;
  file: string;
  label: string;
  open(start: number): AsyncIterable<Buffer>;
  start: number;
  end: number | null;
  /** the WARC reader's parser (warc-reader.ts): the sync fast path by default, "warcio" for the reference */
  parser?: "sync" | "warcio";
  /** the file's format, when known (else by its name, then its first bytes: crawlFormat) */
  format?: CrawlFormat;
}

export type CrawlFormat = "warc" | "arc";

/** A WARC by name, else an ARC by name or first bytes, else a WARC (named otherwise, claimed by its first bytes). */
export async function crawlFormat(input: Pick<WarcInput, "file" | "open">): Promise<CrawlFormat> {
  return !isWarcName(input.file) && (await isArcInput(input.file, input.open)) ? "arc" : "warc";
}

/** The HTML pages of one WARC (or of one shard of it); WET and WAT files are counted and not read. */
export async function* warcDocuments(input: WarcInput, config: ParacapConfig, counters: Counters): AsyncGenerator<WarcPage> {
  const kind = warcKind(input.file);
  if (kind !== "warc") {
    // WET (plain text) and WAT (metadata) hold no HTML: recognised, counted, not read; the example
    // tells a run that read nothing else what to give instead
    counters.inc(warcSkippedCounter(`${kind}_file`));
    counters.samples.add(warcSkippedCounter(`${kind}_file`), `${input.label}: a ${kind.toUpperCase()} file holds the pages' ${kind === "wet" ? "extracted text" : "metadata"}, not their HTML: give the crawl's WARC (.warc.gz) instead`);
    return;
  }
  const pixels = isPixelPivot(config.pivot);
  // pixel runs: image captures a later revisit may repeat
  const originals = pixels ? new RevisitOriginals() : null;
  const format = input.format ?? (await crawlFormat(input));
  for await (const rec of (format === "arc" ? readArc : readWarcWithRevisits)({
    open: input.open,
    file: input.label,
    start: input.start,
    end: input.end,
    counters,
    ...(input.onDamage ? { onDamage: input.onDamage } : {}),
    maxBodyBytes: config.extraction.maxPageBytes,
    ...(input.parser ? { parser: input.parser } : {}),
    accept: pixels ? acceptHtmlOrImage : acceptHtml,
    // an image revisit, or one whose HTTP headers do not say (its original may be an image)
    ...(pixels ? { revisits: (head) => !head.headers.has("content-type") || IMAGE_TYPE.test(head.headers.get("content-type")!) } : {}),
  })) {
    if (!rec.targetUri) {
      counters.inc(warcSkippedCounter("no_target_uri"));
      continue;
    }
    if (rec.type === "revisit") {
      const original = originals!.find(rec);
      const image = original !== null || IMAGE_TYPE.test(rec.headers.get("content-type") ?? "");
      if (image) {
        counters.inc(warcCounter("image_revisits"));
        counters.inc(warcCounter(original ? "image_revisits.resolved" : "image_revisits.unresolved"));
      }
      // the revisit's URL with the original capture's body and the headers that say how it is encoded
      if (original) yield { id: rec.recordId, uri: rec.targetUri, date: rec.date, file: input.file, offset: rec.offset, headers: original.headers, body: original.body, revisitOf: original.targetUri ?? original.recordId };
      else {
        // its original may be an image capture of another shard (one without Content-Type too)
        const named = originalKey(rec);
        if (named !== null) yield { id: rec.recordId, uri: rec.targetUri, date: rec.date, file: input.file, offset: rec.offset, headers: {}, body: NO_BODY, pendingRevisit: { original: named, counted: image } };
      }
      continue;
    }
    const isImage = IMAGE_TYPE.test(rec.headers.get("content-type") ?? "");
    if (originals && isImage) originals.add(rec);
    counters.inc(warcCounter(isImage ? "image_records" : "documents"));
    yield { id: rec.recordId, uri: rec.targetUri, date: rec.date, file: input.file, offset: rec.offset, headers: Object.fromEntries(rec.headers), body: rec.body, ...(originals && isImage && rec.payloadDigest ? { payloadDigest: rec.payloadDigest } : {}) };
  }
}

/**
 * A shard's documents (warcDocuments), then, when records were damaged, a DumpError: as a dump with
 * damaged bz2 blocks, everything else was read and used, and the shard is reported damaged (stats.json
 * shards.corrupt, complete: false) instead of passing for a whole read.
 */
export async function* warcShardDocuments(input: WarcInput, config: ParacapConfig, counters: Counters): AsyncGenerator<WarcPage> {
  const damage = { records: 0, first: null as { offset: number; reason: string } | null };
  const format = input.format ?? (await crawlFormat(input));
  const onDamage = (offset: number, reason: string) => {
    damage.records++;
    damage.first ??= { offset, reason };
    input.onDamage?.(offset, reason);
  };
  yield* warcDocuments({ ...input, onDamage, format }, config, counters);
  if (damage.first !== null) {
    const n = damage.records;
    throw new DumpError(input.label, null, `${n} damaged ${format.toUpperCase()} record${n === 1 ? "" : "s"} skipped (the first at file byte ${damage.first.offset}: ${damage.first.reason}): ${n === 1 ? "its" : "their"} pages are lost, the rest was read`);
  }
}

/**
 * A shard of a WACZ: of each crawl in it, the records its range holds (wacz.ts); every damaged or
 * unreadable crawl is told in one DumpError after the rest was read.
 */
async function* waczShardDocuments(shard: ShardSpec, bytes: ByteSource, config: ParacapConfig, counters: Counters): AsyncGenerator<WarcPage> {
  const size = knownSize(bytes);
  if (size === null) throw new DumpError(bytes.label, null, "a WACZ is read from its zip directory at its end, and this file's size is not known here");
  const wacz = await openWacz(bytes, size);
  const damaged: DumpError[] = [];
  try {
    const start = shard.start ?? 0;
    // the shard holding the zip's first byte tells of a WACZ with no crawl in it
    if (wacz.crawls.length === 0 && start === 0) throw new DumpError(bytes.label, null, "a zip with no WARC or ARC file in it (a WACZ keeps its crawl under archive/)");
    for (const crawl of wacz.crawls) {
      const part = ownedPart(crawl, start, shard.end);
      if (part === null) continue;
      const label = `${bytes.label}!/${crawl.name}`;
      if (crawl.unreadable !== null) {
        damaged.push(new DumpError(label, null, `not read: ${crawl.unreadable}`));
        continue;
      }
      const open = crawl.deflated
        ? (from: number) => bytesFrom(wacz.inflated(crawl), from)
        : (from: number) => windowedRead((a, b) => bytes.read(a, Math.min(b ?? crawl.end, crawl.end)), crawl.start + from);
      try {
        yield* warcShardDocuments({ file: basename(crawl.name), label, open, start: part.start, end: part.end }, config, counters);
      } catch (e) {
        if (!(e instanceof DumpError)) throw e;
        damaged.push(e);
      }
    }
  } finally {
    wacz.close();
  }
  if (damaged.length === 1) throw damaged[0];
  if (damaged.length > 1) throw new DumpError(bytes.label, null, `${damaged.length} of its crawl files damaged: ${damaged.map((e) => e.message).join("; ")}`);
}

/** A WARC's documents: the captures of HTML pages (and, in a pixel run, of images, counted as not parsed). */
const WARC_DOCUMENT = { one: "page", other: "pages" } as const;

export const warcSource: Source<WarcPage, { detector: LanguageDetector }> & ImageBytesSource = {
  name: "warc",
  carriesImages: true,
  description: "web crawl WARC and ARC files (.warc, .warc.gz, .arc, .arc.gz; .warc.zst, .warc.bz2, .warc.xz read whole; the WARCs of a .wacz): image captions from HTML pages",
  counterPrefix: "warc",
  webReferenceSources: ["img"],
  captionFilters: { tier: WEB_FILTER_TIER, filters: webCaptionFilters() },
  documentsCounter: warcCounter("documents"),
  documentsNoun: "HTML records",
  document: WARC_DOCUMENT,
  claims(fileName, head) {
    if (isWarcName(fileName) || isArcName(fileName) || isWholeCompressedCrawl(fileName) || isWaczName(fileName)) return true;
    if (/^WARC\/1\.[01]\r?\n/.test(head.subarray(0, 16).toString("latin1"))) return true;
    return (isGzipMagic(head) && decodesToWarc(head)) || startsAsArc(head);
  },
  uploadRole: (name) => (isWarcName(name) || isArcName(name) || isWholeCompressedCrawl(name) || isWaczName(name) ? { role: "input" } : null),
  async planRanges({ name, size }, targetBytes): Promise<ByteRange[] | null> {
    // one stream (or frames no index lists): read whole
    if (size <= targetBytes || isWholeCompressedCrawl(name)) return null;
    const ranges: ByteRange[] = [];
    for (let start = 0; start < size; start += targetBytes) {
      const end = start + targetBytes;
      ranges.push({ start, end: end >= size ? null : end, fragment: start > 0 });
    }
    return ranges;
  },
  documents(shard, bytes, config, counters) {
    const file = basename(shard.uri);
    if (isWaczName(file)) return waczShardDocuments(shard, bytes, config, counters);
    const raw = (start: number) => windowedRead((from, to) => bytes.read(from, to), start);
    // a crawl compressed whole is read as the plain crawl it decodes to (offsets are then decoded ones)
    const open = isWholeCompressedCrawl(file) ? (start: number) => decodedFrom(() => raw(0), start, bytes.label) : raw;
    return warcShardDocuments({ file: file.replace(/\.(?:bz2|xz|zst|zstd)$/i, ""), label: bytes.label, open, start: shard.start ?? 0, end: shard.end }, config, counters);
  },
  prepare: async () => ({ detector: await loadLanguageDetector() }),
  createExtractor(config, counters, prepared) {
    const filters = webCaptionFilters({ detector: prepared.detector });
    const keep = webCaptionKeeper(filters, counters);
    const kept = (c: WebCaption | undefined) => (c && keep(c) ? c.text : null);
    return (doc: WarcPage): DocumentRefs => {
      const page = pageKey(doc.uri);
      const base = { page, pageId: page, revisionId: `${doc.date ?? ""} ${doc.id}` };
      // an image response (pixel runs) holds pixels, not captions
      if (isImageRecord(doc.headers)) return { ...base, refs: null, skipped: "image_record" };
      // the page template's images (an avatar beside every post, an icon) are not content: dropped, counted (template-images.ts)
      const found = recordCaptions({ headers: new Map(Object.entries(doc.headers)), body: doc.body, targetUri: doc.uri }, config.extraction.maxPageBytes, { templateImages: dropsTemplateImages(config), credits: dropsCredits(config), classCaptions: readsClassCaptions(config) });
      if ("drop" in found) return { ...base, refs: null, skipped: found.drop };
      for (const [reason, n] of found.dropped) counters.inc(warcSkippedCounter(`image.${reason}`), n);
      const byUse = new Map<number, { image: string } & Partial<Record<WebCaption["type"], WebCaption>>>();
      for (const c of found.captions) {
        const use = byUse.get(c.ordinal) ?? { image: c.image };
        byUse.set(c.ordinal, use);
        use[c.type] = c;
      }
      const refs: SourceRef[] = [];
      for (const [, use] of [...byUse].sort((a, b) => a[0] - b[0])) {
        const ref: SourceRef = { image: use.image, source: "img", caption: kept(use.figcaption) ?? kept(use.table), alt: kept(use.alt) };
        const title = kept(use.title);
        const nearby = kept(use.nearby);
        if (title) ref.title = title;
        if (nearby) ref.nearby = nearby;
        refs.push(ref);
      }
      counters.inc(warcCounter("image_refs"), refs.length);
      return { ...base, refs };
    };
  },
  imagesOf(doc) {
    const d = doc as WarcPage;
    return isImageRecord(d.headers) ? imageRecordBytes(d, MAX_IMAGE_BYTES) : [];
  },
  captureKeysOf(doc) {
    const d = doc as WarcPage;
    // an image response (a revisit given its original's bytes is no capture of its own)
    if (d.revisitOf !== undefined || d.pendingRevisit || !isImageRecord(d.headers)) return [];
    return [byRecordId(d.id), ...(d.date ? [byUriDate(d.uri, d.date)] : []), ...(d.payloadDigest ? [byDigest(d.payloadDigest)] : [])];
  },
  pendingRevisitOf(doc) {
    const d = doc as WarcPage;
    if (!d.pendingRevisit) return null;
    const key = imageKey(d.uri, d.uri);
    return { ...d.pendingRevisit, image: "key" in key ? key.key : null };
  },
  countResolvedRevisit(revisit, kind, counters) {
    if (revisit.counted) counters.inc(warcCounter("image_revisits.unresolved"), -1);
    else counters.inc(warcCounter("image_revisits"));
    counters.inc(warcCounter("image_revisits.resolved"));
    counters.inc(warcCounter("image_revisits.across_shards"));
    // the document its shard would have read: a revision of its URL, an image record
    counters.inc(extractDocumentsCounter(kind, WARC_DOCUMENT));
    counters.inc(extractSkippedCounter(kind, "image_record"));
  },
  pack: (docs) => docs,
  unpack: (packed) => (packed as WarcPage[]).map((d) => ({ ...d, body: Buffer.isBuffer(d.body) ? d.body : Buffer.from((d.body as Uint8Array).buffer, (d.body as Uint8Array).byteOffset, (d.body as Uint8Array).byteLength) })),
  size: (doc) => doc.body.length,
  reportLines(x) {
    const read = x[warcCounter("documents")];
    if (read === undefined && !Object.keys(x).some((k) => k.startsWith(WARC_SKIPPED_PREFIX))) return [];
    const fmt = (v: number) => v.toLocaleString("en-US");
    const skipped = Object.entries(x).filter(([k]) => k.startsWith(WARC_SKIPPED_PREFIX)).map(([k, v]) => `${fmt(v)} ${k.slice(WARC_SKIPPED_PREFIX.length)}`);
    const arcs = x[warcCounter("files.arc")] ?? 0;
    const files = arcs === 0 ? "WARC files" : arcs === (x[warcCounter("files")] ?? 0) ? "ARC files" : "WARC and ARC files";
    const lines = [`- ${fmt(read ?? 0)} HTML records read from ${files}, ${fmt(x[warcCounter("image_refs")] ?? 0)} image uses found (their captions before the web caption filters)${skipped.length ? `; skipped: ${skipped.join(", ")}` : ""}.`];
    const revisits = x[warcCounter("image_revisits")];
    if (revisits !== undefined) {
      const across = x[warcCounter("image_revisits.across_shards")];
      lines.push(
        `- ${fmt(revisits)} image revisits (a capture standing for an earlier one's bytes): ${fmt(x[warcCounter("image_revisits.resolved")] ?? 0)} given their original's pixels` +
          `${across ? ` (${fmt(across)} from another shard)` : ""}, ${fmt(x[warcCounter("image_revisits.unresolved")] ?? 0)} whose original the run did not read.`,
      );
    }
    return lines;
  },
};
