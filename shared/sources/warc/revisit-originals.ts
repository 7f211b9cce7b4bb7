/**
 * The image responses a revisit record may repeat, within one shard of a crawl. A revisit (WARC
 * `revisit`, e.g. profile identical-payload-digest) stores no payload: its capture is an earlier
 * one's. For pixel identity the revisit's URL is given that capture's bytes, found by, in order,
 * WARC-Refers-To (the original's record id), WARC-Refers-To-Target-URI + WARC-Refers-To-Date, or an
 * equal WARC-Payload-Digest. Only image responses of the same shard, read before the revisit, are
 * known, and at most `maxBytes` of their bodies (oldest forgotten first), so memory stays bounded
 * whatever the crawl holds; a revisit whose original is not known is the caller's to count.
 */
import type { WarcContentRecord, WarcRevisitRecord } from "../../web/warc/warc-reader.ts";

export interface OriginalCapture {
  readonly recordId: string;
  readonly targetUri: string | null;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

/** Bodies kept for revisits, per shard. */
export const REVISIT_ORIGINAL_BYTES = 64 * 1024 * 1024;

export class RevisitOriginals {
  private readonly byId = new Map<string, OriginalCapture>();
  private readonly byUriDate = new Map<string, string>();
  private readonly byDigest = new Map<string, string>();
  private bytes = 0;

  constructor(private readonly maxBytes = REVISIT_ORIGINAL_BYTES) {}

  add(rec: WarcContentRecord): void {
    if (rec.body.length > this.maxBytes || this.byId.has(rec.recordId)) return;
    this.byId.set(rec.recordId, { recordId: rec.recordId, targetUri: rec.targetUri, headers: Object.fromEntries(rec.headers), body: rec.body });
    this.bytes += rec.body.length;
    if (rec.targetUri && rec.date) this.byUriDate.set(uriDate(rec.targetUri, rec.date), rec.recordId);
    // the first capture of a payload stays its original
    if (rec.payloadDigest && !this.byDigest.has(rec.payloadDigest)) this.byDigest.set(rec.payloadDigest, rec.recordId);
    for (const [id, c] of this.byId) {
      if (this.bytes <= this.maxBytes) break;
      this.byId.delete(id);
      this.bytes -= c.body.length;
    }
  }

  /** The capture a revisit repeats, or null when it is not (or no longer) known. */
  find(rev: WarcRevisitRecord): OriginalCapture | null {
    const ids = [
      rev.refersTo.recordId,
      rev.refersTo.targetUri && rev.refersTo.date ? this.byUriDate.get(uriDate(rev.refersTo.targetUri, rev.refersTo.date)) : undefined,
      rev.payloadDigest ? this.byDigest.get(rev.payloadDigest) : undefined,
    ];
    for (const id of ids) {
      const c = id ? this.byId.get(id) : undefined;
      if (c) return c;
    }
    return null;
  }
}

const uriDate = (uri: string, date: string) => `${uri}\n${date}`;
