/**
 * WACZ (Web Archive Collection Zipped: what Browsertrix Crawler, ArchiveWeb.page and Conifer write):
 * a zip holding a crawl's WARCs under `archive/`, beside its page list and indexes. The format asks
 * for the WARCs to be stored, not deflated, so a stored WARC's bytes lie in the zip exactly as in a
 * file of their own: a shard of the zip reads, of each WARC it overlaps, the records that start in its
 * part of it, as a shard of a `.warc.gz` does. A WARC the writer deflated anyway is read whole by the
 * shard that holds its first byte. The zip's directory is read with yauzl through ranged reads (a
 * local file, a Cloud Storage object), never the whole file.
 */
import { Readable } from "node:stream";
import type { Entry, ZipFile } from "yauzl";
import { DumpError } from "../../dump/errors.ts";
import { drained, type ByteSource } from "../../io/byte-source.ts";
import { isArcName, isWarcName } from "./warc-kind.ts";

/** A WACZ by name (its first bytes are any zip's). */
export const isWaczName = (fileName: string): boolean => /\.wacz$/i.test(fileName);

/** One crawl file inside a WACZ. */
export interface WaczCrawl {
  /** its path in the zip (`archive/data.warc.gz`) */
  name: string;
  /** where its stored bytes start and end in the zip */
  start: number;
  end: number;
  /** deflated by the zip (read whole, decoded) rather than stored (read in place, in parts) */
  deflated: boolean;
  /** why it cannot be read (encrypted, a compression method other than stored or deflate); null: readable */
  unreadable: string | null;
}

/** The zip's directory, open for reading deflated members. */
export interface WaczDirectory {
  crawls: WaczCrawl[];
  /** a deflated member's decoded bytes */
  inflated(crawl: WaczCrawl): AsyncIterable<Buffer>;
  close(): void;
}

/** Crawl files are named as outside a zip; resource forks and the page list's folders are not crawls. */
const isCrawlMember = (name: string) => !name.endsWith("/") && !/(^|\/)(__MACOSX\/|\._)/.test(name) && (isWarcName(name) || isArcName(name));

/** Reads the WACZ's directory (`size`: the file's length, where its end-of-directory record is). */
export async function openWacz(bytes: ByteSource, size: number): Promise<WaczDirectory> {
  const yauzl = await import("yauzl");
  // the directory is read again by every shard: not input read (progress counts each byte once)
  const read = bytes.reread ?? bytes.read;
  class Reader extends yauzl.RandomAccessReader {
    override _readStreamForRange(start: number, end: number): Readable {
      return Readable.from(drained(read(start, end)), { objectMode: false });
    }
  }
  let zip: ZipFile;
  try {
    zip = await yauzl.fromRandomAccessReaderPromise(new Reader(), size, { lazyEntries: true, autoClose: false, decodeStrings: true, strictFileNames: false, validateEntrySizes: true });
  } catch (e) {
    throw new DumpError(bytes.label, null, `not a readable WACZ (zip) file: ${(e as Error).message}`, { cause: e });
  }
  const crawls: WaczCrawl[] = [];
  const entries = new Map<WaczCrawl, Entry>();
  try {
    for (let entry = await nextEntry(zip); entry !== null; entry = await nextEntry(zip)) {
      if (!isCrawlMember(entry.fileName)) continue;
      const method = entry.compressionMethod;
      const unreadable = entry.isEncrypted() ? "encrypted" : method !== 0 && method !== 8 ? `compression method ${method} (only stored and deflate are read)` : null;
      const start = unreadable ? entry.relativeOffsetOfLocalHeader : (await zip.readLocalFileHeaderPromise(entry, { minimal: true })).fileDataStart;
      const crawl: WaczCrawl = { name: entry.fileName, start, end: start + entry.compressedSize, deflated: method === 8, unreadable };
      if (!unreadable && crawl.end > size) crawl.unreadable = `its ${entry.compressedSize} bytes run past the zip's end`;
      crawls.push(crawl);
      entries.set(crawl, entry);
    }
  } catch (e) {
    zip.close();
    throw new DumpError(bytes.label, null, `a damaged WACZ (zip) directory: ${(e as Error).message}`, { cause: e });
  }
  return {
    crawls,
    inflated: (crawl) => inflatedMember(zip, entries.get(crawl)!),
    close: () => zip.close(),
  };
}

function nextEntry(zip: ZipFile): Promise<Entry | null> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      zip.off("entry", onEntry);
      zip.off("end", onEnd);
      zip.off("error", onError);
    };
    const onEntry = (e: Entry) => (cleanup(), resolve(e));
    const onEnd = () => (cleanup(), resolve(null));
    const onError = (e: Error) => (cleanup(), reject(e));
    zip.on("entry", onEntry);
    zip.on("end", onEnd);
    zip.on("error", onError);
    zip.readEntry();
  });
}

async function* inflatedMember(zip: ZipFile, entry: Entry): AsyncGenerator<Buffer> {
  const stream = await zip.openReadStreamPromise(entry);
  for await (const chunk of stream) yield chunk as Buffer;
}

/**
 * A shard's part [start, end) of a crawl member, relative to the member's first byte (end null: to its
 * end); null: none. A member read whole (deflated, unreadable, empty) is the part of the shard holding its first byte.
 */
export function ownedPart(crawl: WaczCrawl, start: number, end: number | null): { start: number; end: number | null } | null {
  const holds = (at: number) => start <= at && (end === null || at < end);
  if (crawl.deflated || crawl.unreadable !== null || crawl.start === crawl.end) return holds(crawl.start) ? { start: 0, end: null } : null;
  const from = Math.max(start, crawl.start);
  const to = end === null ? crawl.end : Math.min(end, crawl.end);
  if (from >= to) return null;
  return { start: from - crawl.start, end: to >= crawl.end ? null : to - crawl.start };
}
