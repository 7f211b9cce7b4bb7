/**
 * `paracap extract <file.warc.gz>`: every caption of every HTML page of a crawl file (WARC, ARC, a crawl
 * compressed whole, a WACZ), one JSON line per image and caption type (all five types, before the web
 * filters, as `extract` prints a dump's references before the caption filters). The file is read as a
 * run's one shard of it is (warcSource.documents), so extract reads every crawl file a run reads.
 */
import type { ParacapConfig } from "../../core/config.ts";
import { Counters } from "../../core/counters.ts";
import { DumpError } from "../../dump/errors.ts";
import { fileBytes } from "../../io/file-bytes.ts";
import { recordCaptions } from "../../web/html/page-captions.ts";
import type { ExtractOptions } from "../../web/html/extract-captions.ts";
import { warcSource } from "./warc-source.ts";

/**
 * @param onDamage told the shard's damage, once the rest was read (records the reader counted, an
 * unreadable member of a WACZ, a decoder's failure)
 */
export async function* warcCaptionLines(path: string, config: ParacapConfig, counters = new Counters(), opts: ExtractOptions = {}, onDamage?: (e: DumpError) => void): AsyncGenerator<object> {
  const shard = { id: "extract", uri: path, source: "warc", kind: "current" as const, start: null, end: null, fragment: false };
  const maxPageBytes = config.extraction.maxPageBytes;
  try {
    for await (const doc of warcSource.documents(shard, fileBytes(path), config, counters)) {
      const found = recordCaptions({ headers: new Map(Object.entries(doc.headers)), body: doc.body, targetUri: doc.uri }, maxPageBytes, opts);
      if ("drop" in found) continue;
      for (const c of found.captions) yield { image: c.image, type: c.type, text: c.text, page: doc.uri, url: c.url, recordId: doc.id };
    }
  } catch (e) {
    if (!(e instanceof DumpError) || !onDamage) throw e;
    onDamage(e);
  }
}
