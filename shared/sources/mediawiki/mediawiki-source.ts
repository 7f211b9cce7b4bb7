/**
 * MediaWiki XML exports (pages-articles, pages-meta-history; bz2, multistream bz2, gzip or plain):
 * pages and revisions from the streaming dump reader, image references from the wikitext parser.
 * Multistream split points come from the dump's index file, which the runner locates and reads.
 */
import type { PageRevision } from "../../core/records.ts";
import { DumpError } from "../../dump/errors.ts";
import { DamageLog } from "../../dump/bz2-blocks.ts";
import { decompressStream } from "../../dump/open-dump.ts";
import { sniffFormat } from "../../dump/magic.ts";
import { readPages } from "../../dump/page-reader.ts";
import { packRevisions, textSize, unpackRevisions, type PackedRevisions } from "../../dump/revision-text.ts";
import { createReferenceExtractor } from "../../pipeline/extract-stage.ts";
import type { Source } from "../source.ts";
import { dumpCounter } from "../../core/counter-names.ts";

async function* startsBz2Stream(chunks: AsyncIterable<Buffer>, label: string, start: number): AsyncGenerator<Buffer> {
  let head = Buffer.alloc(0);
  let checked = false;
  for await (const chunk of chunks) {
    if (checked) {
      yield chunk;
      continue;
    }
    head = Buffer.concat([head, chunk]);
    if (head.length < 4) continue;
    if (sniffFormat(head) !== "bz2") {
      throw new DumpError(label, null, `the multistream index does not match this dump: no bz2 stream starts at byte ${start} (was the index made for another file?)`);
    }
    checked = true;
    yield head;
  }
  if (!checked && head.length > 0) yield head;
}

export const mediawikiSource: Source<PageRevision> = {
  name: "mediawiki",
  description: "MediaWiki XML export (bz2, multistream bz2, gzip or plain XML)",
  documentsCounter: dumpCounter("pages"),
  // Compressed input is a dump (the only compressed format we read); plain input must look like XML.
  claims(_fileName, head) {
    const format = sniffFormat(head);
    if (format !== "plain") return true;
    return /^(\uFEFF)?\s*</.test(head.subarray(0, 64).toString("utf8"));
  },
  documents(shard, bytes, config, counters) {
    const start = shard.start ?? 0;
    const end = shard.end ?? undefined;
    const ranged = start > 0 || end !== undefined;
    const label = ranged ? `${bytes.label}[${start}..${end ?? "end"}]` : bytes.label;
    // A slice of a multistream dump must start a bz2 stream; otherwise its index belongs to another file.
    const open = () => (start > 0 ? startsBz2Stream(bytes.read(start, end), label, start) : bytes.read(start, end));
    // damaged bz2 blocks are skipped, the rest read, and the shard then fails as corrupt naming them
    const damage = new DamageLog();
    return readPages(decompressStream(open(), { decoder: config.dump.decoder, file: label, reopen: open, onDecoded: bytes.onDecoded, damage }), {
      damage,
      fragment: shard.fragment,
      partial: end !== undefined,
      namespaces: config.dump.namespaces,
      skipRedirects: config.dump.skipRedirects,
      maxTextBytes: config.extraction.maxPageBytes,
      expectedPages: shard.pages,
      counters,
      file: label,
    });
  },
  createExtractor: createReferenceExtractor,
  pack: (docs) => packRevisions(docs),
  unpack: (packed) => unpackRevisions(packed as PackedRevisions),
  size: textSize,
};
