/**
 * Crawls compressed as a whole or in another compression than gzip: `.warc.zst` (the WARC zstd
 * profile, as ArchiveTeam writes: a zstd frame per record, often with a dictionary in a skippable frame
 * at the file's start), `.warc.bz2`, `.warc.xz`, and the same for ARC, WET and WAT. Each is read whole
 * (one shard): decoded by the dump's decoders (bz2 in-process or by lbzip2/bzip2, xz and zstd by their
 * programs), then read as a plain WARC. A zstd file that starts with a dictionary frame is decoded with
 * that dictionary (`zstd -D`), itself zstd-compressed or not, as the profile allows.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { DumpError } from "../../dump/errors.ts";
import { bytesFrom } from "../../io/byte-source.ts";
import { requireDecoder } from "../../dump/external-decoders.ts";
import { decompressStream } from "../../dump/open-dump.ts";
import { programOutput } from "../../dump/program-output.ts";

const WHOLE = /\.(?:warc|arc|wet|wat)\.(?:bz2|xz|zst|zstd)$/i;

/** A crawl file read whole through a decoder, by its name. */
export const isWholeCompressedCrawl = (fileName: string): boolean => WHOLE.test(fileName);

/** The WARC zstd profile's dictionary frame: a skippable frame with this magic (little-endian). */
const DICTIONARY_FRAME = 0x184d2a5d;
const ZSTD_FRAME = 0xfd2fb528;
/** A dictionary larger than this is no crawl's (ArchiveTeam's are ~100 KB–1 MB): the file is refused. */
const MAX_DICTIONARY_BYTES = 64 << 20;

/** The decoded bytes of a whole compressed crawl file (`raw`, from its first byte). */
export async function* decompressCrawl(raw: AsyncIterable<Buffer>, file: string): AsyncGenerator<Buffer> {
  const it = raw[Symbol.asyncIterator]();
  const held: Buffer[] = [];
  let heldBytes = 0;
  const more = async (): Promise<boolean> => {
    const r = await it.next();
    if (r.done) return false;
    held.push(r.value);
    heldBytes += r.value.length;
    return true;
  };
  while (heldBytes < 8 && (await more()));
  const head = Buffer.concat(held);
  const rest = (async function* () {
    yield* held;
    for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
  })();
  if (head.length < 8 || head.readUInt32LE(0) !== DICTIONARY_FRAME) {
    return yield* decompressStream(rest, { file });
  }
  const size = head.readUInt32LE(4);
  if (size > MAX_DICTIONARY_BYTES) throw new DumpError(file, 0, `a zstd dictionary frame of ${size} bytes (over ${MAX_DICTIONARY_BYTES >> 20} MiB): not a crawl's dictionary`);
  while (heldBytes < 8 + size && (await more()));
  const all = Buffer.concat(held);
  if (all.length < 8 + size) throw new DumpError(file, 0, `the file ends inside its zstd dictionary frame (${all.length - 8} of ${size} bytes)`);
  const payload = all.subarray(8, 8 + size);
  const dictionary = payload.length >= 4 && payload.readUInt32LE(0) === ZSTD_FRAME ? await zstdBytes(payload, file) : payload;
  const bin = requireDecoder("zstd", file);
  const dir = await mkdtemp(join(tmpdir(), "paracap-zstd-dict-"));
  try {
    const dictPath = join(dir, "dictionary");
    await writeFile(dictPath, dictionary);
    // the program skips the skippable frame itself: the whole file goes in
    yield* programOutput(
      (async function* () {
        yield all;
        for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
      })(),
      bin,
      ["-dc", "-D", dictPath],
      { file, format: "zstd" },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A zstd-compressed dictionary, decoded. */
async function zstdBytes(frame: Buffer, file: string): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const c of programOutput(Readable.from([frame]), requireDecoder("zstd", file), ["-dc"], { file, format: "zstd" })) out.push(Buffer.from(c));
  return Buffer.concat(out);
}

/** The decoded bytes from decoded offset `start` on (a reader that resyncs opens the file again there: decoded from its start, the bytes before skipped). */
export async function* decodedFrom(open: () => AsyncIterable<Buffer>, start: number, file: string): AsyncGenerator<Buffer> {
  yield* bytesFrom(decompressCrawl(open(), file), start);
}
