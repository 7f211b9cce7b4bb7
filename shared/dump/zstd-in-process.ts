/**
 * zstd decoded in this process (fzstd, pure JavaScript) where no `zstd` program is on PATH: a Cloud
 * Functions instance, a laptop without it. The program is used where there is one (several times
 * faster); this keeps a `.zst` dump or a `.warc.zst` crawl readable everywhere. Frames with a
 * dictionary (the WARC zstd profile's) still need the program: fzstd reads none.
 */
import { Decompress } from "fzstd";
import { DumpError } from "./errors.ts";

/** The decoded bytes of a whole zstd stream; damage fails it with a DumpError after the good bytes. */
export async function* zstdInProcess(source: AsyncIterable<Buffer>, opts: { file: string; onDecoded?: (bytes: number) => void }): AsyncGenerator<Buffer> {
  let out: Buffer[] = [];
  let decoded = 0;
  const stream = new Decompress((data) => {
    const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    out.push(b);
    decoded += b.length;
    opts.onDecoded?.(b.length);
  });
  const flush = function* () {
    const ready = out;
    out = [];
    yield* ready;
  };
  const fail = (e: unknown) => new DumpError(opts.file, decoded, `zstd data is truncated or corrupt (decoded in-process, no zstd program on PATH: ${(e as Error).message})`, { cause: e });
  let error: unknown = null;
  for await (const chunk of source) {
    try {
      stream.push(chunk);
    } catch (e) {
      error = e;
      break;
    }
    yield* flush();
  }
  if (error === null) {
    try {
      stream.push(new Uint8Array(0), true);
    } catch (e) {
      error = e;
    }
  }
  yield* flush();
  if (error !== null) throw fail(error);
}
