/**
 * Caption TSV files (`caption<TAB>image URL` per line: Conceptual Captions, img2dataset URL lists).
 * One line is one document with one image reference, keyed by its normalised URL. Files split at any
 * byte: a shard owns the lines that start in its range (tsv-lines.ts).
 */
import { basename } from "node:path";
import type { ByteRange, DocumentRefs, Source } from "../source.ts";
import { imageUrlKey } from "./image-url.ts";
import { tsvLines, tsvShardBytes, type TsvRecord } from "./tsv-lines.ts";
import { TSV_SKIPPED_PREFIX, tsvCounter, tsvSkippedCounter } from "../../core/counter-names.ts";

/** A line of the file, named by the file and its byte offset (stable under any sharding). */
export interface CaptionLine extends TsvRecord {
  file: string;
}

export const captionTsvSource: Source<CaptionLine> = {
  name: "caption-tsv",
  description: "caption<TAB>image URL lines (Conceptual Captions, img2dataset URL lists)",
  counterPrefix: "tsv",
  webReferenceSources: ["row"],
  documentsCounter: tsvCounter("lines.emitted"),
  documentsNoun: "lines",
  claims(fileName, head) {
    if (/\.tsv$/i.test(fileName)) return true;
    // No extension to go by: the first line is two fields, the second an http(s) URL.
    const first = head.toString("utf8").split("\n", 1)[0]!.replace(/\r$/, "");
    const fields = first.split("\t");
    return fields.length === 2 && /^https?:\/\//i.test(fields[1]!.trim());
  },
  uploadRole: (name) => (/\.tsv$/i.test(name) ? { role: "input" } : null),
  // Lines split at any byte: a shard owns the lines that start in its range.
  async planRanges({ size }, targetBytes): Promise<ByteRange[]> {
    const ranges: ByteRange[] = [];
    const step = Math.max(1, targetBytes);
    for (let start = 0; start < size || ranges.length === 0; start += step) {
      const end = Math.min(size, start + step);
      ranges.push({ start, end: end >= size ? null : end, fragment: start > 0 });
      if (end >= size) break;
    }
    return ranges;
  },
  async *documents(shard, bytes, _config, counters) {
    const start = shard.start ?? 0;
    const file = basename(shard.uri);
    const chunks = tsvShardBytes((from, to) => bytes.read(from, to), start, shard.end);
    for await (const line of tsvLines(chunks, start, shard.end ?? Infinity)) {
      counters.inc(tsvCounter("lines"));
      if ("drop" in line) {
        counters.inc(tsvSkippedCounter(line.drop));
        // where, so a user can find the line (stats.json extraction_examples, report.md)
        counters.samples.add(tsvSkippedCounter(line.drop), `${file} byte ${line.offset}`);
        continue;
      }
      counters.inc(tsvCounter("lines.emitted"));
      yield { ...line, file };
    }
  },
  createExtractor() {
    return (line: CaptionLine): DocumentRefs => {
      const page = `${line.file}:${line.offset}`;
      const base = { page, pageId: line.offset, revisionId: line.offset };
      const url = imageUrlKey(line.url);
      if ("drop" in url) return { ...base, refs: null, skipped: url.drop };
      return { ...base, refs: [{ image: url.key, source: "row", caption: line.caption, alt: null }] };
    };
  },
  pack: (docs) => docs,
  unpack: (packed) => packed as CaptionLine[],
  size: (line) => line.caption.length + line.url.length,
  reportLines(x) {
    const lines = x[tsvCounter("lines")];
    if (lines === undefined) return [];
    const skipped = Object.entries(x).filter(([k]) => k.startsWith(TSV_SKIPPED_PREFIX)).map(([k, v]) => `${v.toLocaleString("en-US")} skipped (${k.slice(TSV_SKIPPED_PREFIX.length)})`);
    return [`- ${lines.toLocaleString("en-US")} caption lines read = ${[`${(x[tsvCounter("lines.emitted")] ?? 0).toLocaleString("en-US")} used`, ...skipped].join(" + ")}.`];
  },
};
