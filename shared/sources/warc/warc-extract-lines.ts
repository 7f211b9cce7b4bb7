/**
 * `paracap extract <file.warc.gz>`: every caption of every HTML page of a WARC (or an ARC), one JSON line per
 * image and caption type (all five types, before the web filters, as `extract` prints a dump's
 * references before the caption filters).
 */
import { createReadStream } from "node:fs";
import { Counters } from "../../core/counters.ts";
import { warcCounter } from "../../core/counter-names.ts";
import { readWarc } from "../../web/warc/warc-reader.ts";
import { readArc } from "../../web/warc/arc-reader.ts";
import { basename } from "node:path";
import { crawlFormat } from "./warc-source.ts";
import { acceptHtml, recordCaptions } from "../../web/html/page-captions.ts";
import type { ExtractOptions } from "../../web/html/extract-captions.ts";

const MAX_PAGE_BYTES = 8 * 1024 * 1024;

/** `maxPageBytes`: the run's extraction.maxPageBytes (a larger page is skipped, as in a run) */
export async function* warcCaptionLines(path: string, counters = new Counters(), maxPageBytes = MAX_PAGE_BYTES, opts: ExtractOptions = {}): AsyncGenerator<object> {
  const open = (start: number) => createReadStream(path, { start }) as AsyncIterable<Buffer>;
  const read = (await crawlFormat({ file: basename(path), open })) === "arc" ? readArc : readWarc;
  for await (const rec of read({ open, file: path, counters, maxBodyBytes: maxPageBytes, accept: acceptHtml })) {
    counters.inc(warcCounter("documents"));
    const found = recordCaptions(rec, maxPageBytes, opts);
    if ("drop" in found) continue;
    for (const c of found.captions) yield { image: c.image, type: c.type, text: c.text, page: rec.targetUri, url: c.url, recordId: rec.recordId };
  }
}
