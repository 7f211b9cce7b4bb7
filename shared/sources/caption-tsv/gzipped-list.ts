/**
 * Caption lists compressed with gzip (`.tsv.gz`, `.csv.gz`, `.jsonl.gz`, as img2dataset also reads
 * them): a gzip stream cannot be entered mid-way, so such a file is one shard, read through a
 * ByteSource of its decompressed bytes. Concatenated members (bgzip, `cat a.gz b.gz`) are one stream.
 */
import { constants, createGunzip, gunzipSync } from "node:zlib";
import { DumpError } from "../../dump/errors.ts";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ByteSource } from "../../io/byte-source.ts";

export const isGzipName = (name: string): boolean => /\.gz$/i.test(name);

/** The decompressed start of a file's first compressed bytes (as much as they hold), at most `max` bytes. */
export function gunzipHead(compressed: Buffer, max: number): Buffer {
  try {
    return gunzipSync(compressed, { finishFlush: constants.Z_SYNC_FLUSH }).subarray(0, max);
  } catch {
    return Buffer.alloc(0); // not gzip data: the layout check then says the columns cannot be told
  }
}

/**
 * The decompressed bytes of `bytes` as a ByteSource: a read decompresses from the file's start and
 * yields [from, to). Data that is cut or damaged ends the read with a DumpError at its decompressed
 * offset, after the bytes before it (the shard is reported damaged; its records read so far count).
 */
export function gunzipped(bytes: ByteSource): ByteSource {
  return {
    label: bytes.label,
    async *read(from = 0, to) {
      const source = Readable.from(bytes.read(0));
      const gunzip = createGunzip();
      // a read's error (the file, the bucket) reaches the reader through the gunzip stream
      const piped = pipeline(source, gunzip).catch(() => undefined);
      let pos = 0;
      try {
        for await (const chunk of gunzip as AsyncIterable<Buffer>) {
          const end = pos + chunk.length;
          if (end > from) yield chunk.subarray(Math.max(0, from - pos), to === undefined ? chunk.length : Math.max(0, Math.min(chunk.length, to - pos)));
          pos = end;
          if (to !== undefined && pos >= to) break;
        }
      } catch (e) {
        // zlib's own errors (Z_BUF_ERROR: cut short, Z_DATA_ERROR: damaged); a read's error stays what it is
        if (!String((e as NodeJS.ErrnoException).code ?? "").startsWith("Z_")) throw e;
        throw new DumpError(bytes.label, pos, `gzip data cut or damaged (${(e as Error).message})`, { cause: e });
      } finally {
        // a read that stops early (a file's head) stops the decompression and the file's read with it
        gunzip.destroy();
        source.destroy();
        await piped;
      }
    },
  };
}
