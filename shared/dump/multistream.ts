/**
 * Multistream dumps (`…-pages-articles-multistream.xml.bz2`): many concatenated bz2 streams — a
 * header stream (<mediawiki><siteinfo>), then N pages per stream, then the closing tag — with an
 * index of `offset:pageid:title` lines. Every indexed offset is a stream start, so a byte range
 * between two of them decodes on its own: this is what lets the runners fan one dump out.
 */
import { spawn } from "node:child_process";
import { open } from "node:fs/promises";
import { basename } from "node:path";
import { decodeXML } from "entities";
import { findSystemBzip2 } from "./bz2-decoders.ts";
import { DumpError } from "./errors.ts";
import { openDumpStream } from "./open-dump.ts";
import { decodeXmlText } from "./xml-text.ts";

/** What a multistream index says: where the page streams start, and how many pages each holds. */
export interface MultistreamIndex {
  /** distinct stream offsets, ascending */
  offsets: number[];
  /** pages listed per stream offset */
  pagesAt: Map<number, number>;
}

/**
 * Reads a multistream index. The index may be bz2-compressed or plain; a line that is not
 * `offset:pageid:title` is a DumpError naming its line number.
 */
export async function readMultistreamIndex(indexPath: string): Promise<MultistreamIndex> {
  const pagesAt = new Map<number, number>();
  let carry = "";
  let line = 0;
  const take = (text: string): void => {
    line++;
    if (text === "") return;
    const colon = text.indexOf(":");
    const offset = colon > 0 ? Number(text.slice(0, colon)) : NaN;
    if (!Number.isSafeInteger(offset) || offset < 0) throw new DumpError(indexPath, null, `line ${line} of the multistream index is not "offset:pageid:title": "${text.slice(0, 80)}"`);
    pagesAt.set(offset, (pagesAt.get(offset) ?? 0) + 1);
  };
  const source = decodeXmlText(openDumpStream(indexPath) as AsyncIterable<Buffer>);
  for await (const { text } of source.chunks) {
    const lines = (carry + text).split("\n");
    carry = lines.pop()!;
    for (const l of lines) take(l);
  }
  take(carry);
  return { offsets: [...pagesAt.keys()].sort((a, b) => a - b), pagesAt };
}

/** A byte range of whole bz2 streams of one dump file; end null = to the end of the file. */
export interface ByteRangeShard {
  id: string;
  path: string;
  start: number;
  end: number | null;
  /** pages the index lists in the range (when `pagesAt` was given) */
  pages?: number;
}

/**
 * Groups consecutive streams into shards of about `targetBytes` compressed bytes. The first shard
 * starts at 0 so it carries the header stream (siteinfo); the last runs to the end of the file so
 * it carries the closing tag. Ids are `<basename>@<start>`, stable across re-plans. With the index's
 * page counts, each shard says how many pages it must yield, so a stream a decoder silently stops at
 * (lbzip2 takes a damaged stream header for trailing garbage and exits 0) is seen as lost pages.
 */
export function planByteRangeShards(path: string, fileSize: number, streamOffsets: number[], targetBytes: number, pagesAt?: ReadonlyMap<number, number>): ByteRangeShard[] {
  if (!(targetBytes > 0)) throw new RangeError(`targetBytes must be positive, got ${targetBytes}`);
  for (const o of streamOffsets) {
    if (!Number.isSafeInteger(o) || o < 0 || o >= fileSize) {
      throw new DumpError(path, null, `multistream index offset ${o} is outside the dump (${fileSize} bytes): does the index belong to this dump?`);
    }
  }
  const starts = [...new Set([0, ...streamOffsets])].sort((a, b) => a - b);
  const name = basename(path);
  const shards: ByteRangeShard[] = [];
  let shardStart = 0;
  let pages = 0;
  const counted = (shard: ByteRangeShard): ByteRangeShard => (pagesAt ? { ...shard, pages } : shard);
  for (const s of starts) {
    if (s - shardStart >= targetBytes) {
      shards.push(counted({ id: `${name}@${shardStart}`, path, start: shardStart, end: s }));
      shardStart = s;
      pages = 0;
    }
    pages += pagesAt?.get(s) ?? 0;
  }
  shards.push(counted({ id: `${name}@${shardStart}`, path, start: shardStart, end: null }));
  return shards;
}

export interface WriteMultistreamOptions {
  /** pages per bz2 stream; Wikipedia uses 100 */
  pagesPerStream?: number;
  /** index file; default: `<out without .xml.bz2>-index.txt.bz2`, the name the runners look for */
  indexPath?: string;
}

export interface WriteMultistreamResult {
  indexPath: string;
  /** bz2 streams in the output: header, page streams, closing tag */
  streams: number;
  pages: number;
}

/** Default index name: `x-multistream.xml.bz2` → `x-multistream-index.txt.bz2`. */
export function multistreamIndexPath(dumpPath: string): string {
  return `${dumpPath.replace(/\.xml\.bz2$/, "")}-index.txt.bz2`;
}

/**
 * Re-packs a single-stream dump (a path openDumpStream can read, or its XML text/bytes) into a
 * multistream bz2 file plus index, laid out like Wikipedia's: the header up to the first <page>
 * in stream 0, `pagesPerStream` pages per stream after it, the rest (</mediawiki>) in a last
 * stream. Page XML is copied verbatim (as UTF-8). Needs the bzip2 or lbzip2 binary.
 */
export async function writeMultistream(source: string | AsyncIterable<Buffer | string>, outPath: string, opts: WriteMultistreamOptions = {}): Promise<WriteMultistreamResult> {
  const perStream = opts.pagesPerStream ?? 100;
  if (!Number.isInteger(perStream) || perStream < 1) throw new RangeError(`pagesPerStream must be a positive integer, got ${perStream}`);
  const bin = findSystemBzip2();
  if (bin === null) throw new Error("writeMultistream needs bzip2 or lbzip2 on PATH");
  const label = typeof source === "string" ? source : "<stream>";
  const input = typeof source === "string" ? (openDumpStream(source) as AsyncIterable<Buffer>) : source;
  const indexPath = opts.indexPath ?? multistreamIndexPath(outPath);

  const out = await open(outPath, "w");
  let offset = 0;
  let streams = 0;
  let pages = 0;
  const index: string[] = [];
  const writeStream = async (text: string): Promise<number> => {
    const start = offset;
    const compressed = await bzip2(bin, text);
    await out.write(compressed);
    offset += compressed.length;
    streams++;
    return start;
  };
  let batch: string[] = [];
  let batchEntries: Array<{ id: string; title: string }> = [];
  const flushBatch = async (): Promise<void> => {
    if (batch.length === 0) return;
    const start = await writeStream(batch.join(""));
    for (const e of batchEntries) index.push(`${start}:${e.id}:${e.title}\n`);
    batch = [];
    batchEntries = [];
  };

  try {
    let headerDone = false;
    for await (const piece of splitPages(decodeXmlText(input).chunks, label)) {
      if (!headerDone) {
        await writeStream(piece.text);
        headerDone = true;
        continue;
      }
      if (piece.page === null) {
        await flushBatch();
        await writeStream(piece.text);
        continue;
      }
      batch.push(piece.text);
      batchEntries.push(piece.page);
      pages++;
      if (batch.length === perStream) await flushBatch();
    }
    await flushBatch();
  } finally {
    await out.close();
  }
  if (pages === 0) throw new DumpError(label, null, "no <page> found: is this a MediaWiki XML export?");
  const idx = await open(indexPath, "w");
  try {
    await idx.write(await bzip2(bin, index.join("")));
  } finally {
    await idx.close();
  }
  return { indexPath, streams, pages };
}

interface Piece {
  text: string;
  /** page id and title of a page piece; null for the header and the tail */
  page: { id: string; title: string } | null;
}

/**
 * Cuts dump text at the line starts of each `<page>` and of what follows the last `</page>`:
 * header, pages, tail (each page keeps its indentation and newline). Tags are found by plain
 * search: "<" inside text content is always escaped, so "<page>" only ever occurs as a tag.
 * The first piece yielded is always the header (possibly empty).
 *
 * Linear in the input: chunks of the current piece are collected in a list and searched one at a
 * time (with the previous chunk's last characters, for a tag split between two), and joined once
 * when the piece is cut; a full-history page is one piece of hundreds of MB.
 */
async function* splitPages(chunks: AsyncIterable<{ text: string }>, label: string): AsyncGenerator<Piece> {
  let acc: string[] = []; // text of the current piece, not yet cut
  let accLen = 0;
  let tail = ""; // the last characters of acc, for a tag split between chunks
  let headerDone = false;
  let closeEnd = -1; // in the current piece: just after its "</page>" (waiting for the next "<")
  const reset = (rest: string): string => {
    acc = [];
    accLen = 0;
    tail = "";
    closeEnd = -1;
    return rest;
  };
  for await (const { text } of chunks) {
    let chunk = text;
    while (chunk.length > 0) {
      const chunkStart = accLen; // where `chunk` starts in the current piece
      acc.push(chunk);
      accLen += chunk.length;
      let cutBefore = -1; // a "<" in `chunk` at which the current piece ends (index in the piece)
      if (closeEnd < 0) {
        const needle = headerDone ? "</page>" : "<page>";
        const window = tail + chunk;
        const i = window.indexOf(needle);
        tail = window.slice(-needle.length);
        if (i < 0) {
          if (!headerDone && accLen > 64 << 20) throw new DumpError(label, null, "no <page> in the first 64 MB: is this a MediaWiki XML export?");
          break;
        }
        const at = chunkStart - (window.length - chunk.length) + i;
        if (!headerDone) cutBefore = at;
        else closeEnd = at + needle.length;
      }
      if (cutBefore < 0) {
        const next = chunk.indexOf("<", Math.max(0, closeEnd - chunkStart));
        if (next < 0) break; // the cut point is not here yet
        cutBefore = chunkStart + next;
      }
      const piece = acc.join("");
      const cut = lineStart(piece, cutBefore);
      yield headerDone ? { text: piece.slice(0, cut), page: pageEntry(piece.slice(0, cut), label) } : { text: piece.slice(0, cut), page: null };
      headerDone = true;
      chunk = reset(piece.slice(cut));
    }
  }
  if (!headerDone) throw new DumpError(label, null, "no <page> found: is this a MediaWiki XML export?");
  yield { text: acc.join(""), page: null };
}

/** Index of the first character of the line holding position `i` (indentation belongs to the tag). */
function lineStart(s: string, i: number): number {
  let j = i;
  while (j > 0 && (s[j - 1] === " " || s[j - 1] === "\t")) j--;
  return j;
}

function pageEntry(pageXml: string, label: string): { id: string; title: string } {
  const title = /<title>([^<]*)<\/title>/.exec(pageXml)?.[1];
  const id = /<id>\s*(\d+)\s*<\/id>/.exec(pageXml)?.[1];
  if (title === undefined || id === undefined) throw new DumpError(label, null, `a <page> without <title> or <id>: ${pageXml.slice(0, 120)}`);
  return { id, title: decodeXML(title) };
}

/** One bz2 stream of `text` (UTF-8), compressed by the system binary. */
async function bzip2(bin: string, text: string): Promise<Buffer> {
  const child = spawn(bin, ["-c", "-9"], { stdio: ["pipe", "pipe", "pipe"] });
  const out: Buffer[] = [];
  let err = "";
  child.stdout.on("data", (d: Buffer) => out.push(d));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const done = new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  });
  child.stdin.end(text, "utf8");
  const code = await done;
  if (code !== 0) throw new Error(`${bin} -c failed (exit ${code}): ${err.trim()}`);
  return Buffer.concat(out);
}
