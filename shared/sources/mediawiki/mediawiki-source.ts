/**
 * MediaWiki XML exports (pages-articles, pages-meta-history; bz2, multistream bz2, gzip or plain):
 * pages and revisions from the streaming dump reader, image references from the wikitext parser.
 * Multistream split points come from the dump's index file, which the runner locates and reads.
 */
import { isDumpPath, siteSettings } from "../../dump/site-file-namespaces.ts";
import type { PageRevision } from "../../core/records.ts";
import { DumpError } from "../../dump/errors.ts";
import { planByteRangeShards, readMultistreamIndex } from "../../dump/multistream.ts";
import { DamageLog } from "../../dump/bz2-blocks.ts";
import { decompressStream } from "../../dump/open-dump.ts";
import { sniffFormat } from "../../dump/magic.ts";
import { readPages } from "../../dump/page-reader.ts";
import { packRevisions, textSize, unpackRevisions, type PackedRevisions } from "../../dump/revision-text.ts";
import type { ByteSource } from "../../io/byte-source.ts";
import type { Source } from "../source.ts";
import { DUMP_SKIPPED_PREFIX, dumpCounter, dumpSkippedCounter } from "../../core/counter-names.ts";
import { wikitextExtractor } from "./wikitext-extractor.ts";

/** Wikimedia's names: `…-multistream.xml.bz2` with `…-multistream-index.txt(.bz2)` beside it. */
const MULTISTREAM = /^(.*-multistream)\.xml\.bz2$/;
const MULTISTREAM_INDEX = /^(.*-multistream)-index\.txt(\.bz2)?$/;
/** `….xml`, `.xml.bz2`, `.xml.gz`, and Wikimedia's split dumps (`…pages-articles1.xml-p1p41242.bz2`) */
// zstd too: decoded in-process where the functions have no zstd program (dump/zstd-in-process.ts)
const DUMP = /\.xml(?:-p\d+p\d+)?(?:\.bz2|\.gz|\.zst)?$/;

/** The index files a multistream dump may have beside it, in the order they are looked for. */
export function multistreamIndexNames(dump: string): string[] {
  const m = MULTISTREAM.exec(dump);
  return m ? [`${m[1]}-index.txt.bz2`, `${m[1]}-index.txt`] : [];
}

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
  description: "MediaWiki XML export (bz2, multistream bz2, gzip, zstd or plain XML; the local runner also reads 7z and xz)",
  counterPrefix: "dump",
  documentsCounter: dumpCounter("pages"),
  documentsNoun: "pages",
  document: { one: "revision", other: "revisions" },
  unusableInput: stubDump,
  // Compressed input is a dump (the only compressed format we read); plain input must look like XML.
  claims(_fileName, head) {
    const format = sniffFormat(head);
    if (format !== "plain") return true;
    const h = head.subarray(0, 64);
    const xml = (text: string) => /^(\uFEFF)?\s*</.test(text);
    // UTF-8, or UTF-16 as some exports are (with its mark or without: "<" then a zero byte, or the reverse)
    return xml(h.toString("utf8")) || (h.length >= 2 && ((h[0] === 0xff && h[1] === 0xfe) || (h[0] !== 0 && h[1] === 0) ? xml(h.toString("utf16le")) : (h[0] === 0xfe && h[1] === 0xff) || (h[0] === 0 && h[1] !== 0) ? xml(Buffer.from(h.subarray(0, h.length & ~1)).swap16().toString("utf16le")) : false));
  },
  uploadRole(name) {
    const index = MULTISTREAM_INDEX.exec(name);
    if (index) return { role: "companion", of: `${index[1]}.xml.bz2` };
    return DUMP.test(name) ? { role: "input" } : null;
  },
  // A multistream dump splits along the bz2 streams its index lists; without the index it is read whole
  // locally, and waited for in the cloud (its upload starts the run).
  async planRanges(file, targetBytes, view) {
    const names = multistreamIndexNames(file.name);
    if (names.length === 0) return null;
    for (const index of names) {
      if (!(await view.exists(index))) continue;
      const { offsets, pagesAt } = await view.withLocalCopy(index, readMultistreamIndex);
      return planByteRangeShards(file.name, file.size, offsets, targetBytes, pagesAt).map((r) => ({ start: r.start, end: r.end, fragment: r.start > 0, pages: r.pages }));
    }
    return { wait: `multistream dump ${file.name} has no index yet; upload ${names[0]} to start the run` };
  },
  documents(shard, bytes, config, counters) {
    const start = shard.start ?? 0;
    const end = shard.end ?? undefined;
    const ranged = start > 0 || end !== undefined;
    const label = ranged ? `${bytes.label}[${start}..${end ?? "end"}]` : bytes.label;
    // A slice of a multistream dump must start a bz2 stream; otherwise its index belongs to another file.
    const open = (read: ByteSource["read"]) => (start > 0 ? startsBz2Stream(read(start, end), label, start) : read(start, end));
    // a second pass (the layout scan beside a bz2 binary, a recovery) reads bytes the decoder's pass counts
    const reopen = () => open((s, e) => (bytes.reread ? bytes.reread(s, e) : bytes.read(s, e)));
    // damaged bz2 blocks are skipped, the rest read, and the shard then fails as corrupt naming them
    const damage = new DamageLog();
    return readPages(decompressStream(open((s, e) => bytes.read(s, e)), { decoder: config.dump.decoder, file: label, reopen, onDecoded: bytes.onDecoded, threads: bytes.decoderThreads, damage, ...(ranged || bytes.localPath === undefined ? {} : { localPath: bytes.localPath }) }), {
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
  // a non-English dump writes its file links and image options in its language: its <siteinfo> says which
  inputSettings: (paths, current) => siteSettings(paths.filter(isDumpPath), current),
  createExtractor: wikitextExtractor,
  pack: (docs) => packRevisions(docs),
  unpack: (packed) => unpackRevisions(packed as PackedRevisions),
  size: textSize,
  reportLines(x) {
    if (!Object.keys(x).some((k) => k.startsWith(`${mediawikiSource.counterPrefix}.`))) return [];
    const n = (name: string) => x[name] ?? 0;
    const fmt = (v: number) => v.toLocaleString("en-US");
    const counted = (v: number, word: string) => `${fmt(v)} ${word}${v === 1 ? "" : "s"}`;
    const skipped = Object.entries(x).filter(([k]) => k.startsWith(DUMP_SKIPPED_PREFIX)).map(([k, v]) => `${fmt(v)} skipped (${k.slice(DUMP_SKIPPED_PREFIX.length)})`);
    return [`- ${counted(n(dumpCounter("pages")), "page")}, ${counted(n(dumpCounter("revisions")), "revision")} read = ${[`${fmt(n(dumpCounter("revisions.emitted")))} used`, ...skipped].join(" + ")}.`];
  },
};

/**
 * A stub dump (stub-meta-history, stub-articles: `<text bytes="2264" id="…"/>`, the text kept in another file)
 * read as a dump: nearly every revision is a no_text skip. A blank revision (bytes="0") is read as an empty
 * page, so "all" would miss the real files; nine in ten is far from any full dump (their texts are never empty
 * with a size).
 */
function stubDump(counters: Readonly<Record<string, number>>): string | null {
  const stubs = counters[dumpSkippedCounter("no_text")] ?? 0;
  const read = counters[dumpCounter("revisions.emitted")] ?? 0;
  if (stubs === 0 || stubs < 0.9 * (stubs + read)) return null;
  return `${stubs.toLocaleString("en-US")} of ${(stubs + read).toLocaleString("en-US")} revisions have no text in the input (<text bytes="…" id="…"/>): a stub dump (stub-meta-history, stub-meta-current, stub-articles) holds revision metadata only; give the pages-articles or pages-meta-history dump`;
}
