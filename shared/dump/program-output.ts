/**
 * A decompressing program's output as a byte stream: the input is piped to its stdin (or, for a
 * program that reads a file it is given, stdin is closed at once), its stdout read into our own
 * chunks (decoder-output.ts) with a bounded read-ahead, and a non-zero exit becomes a DumpError
 * after the good output. Used for lbzip2/bzip2 (bz2-decoders.ts) and xz, zstd and 7z
 * (external-decoders.ts).
 */
import { spawn } from "node:child_process";
import { Readable } from "node:stream";
import { sharedChunkPool } from "./chunk-pool.ts";
import { spawnChunked } from "./decoder-output.ts";
import { DumpError } from "./errors.ts";
import { readAhead } from "./read-ahead.ts";

/** Decoded bytes the decoder may run ahead of the reader (see read-ahead.ts). */
const DECODER_READ_AHEAD = 32 << 20;
/** what the decoder's output is handed on in (readAhead's minChunk) */
const DECODER_CHUNK = 1 << 20;

export interface ProgramOutputOptions {
  /** names the input in error messages */
  file: string;
  /** the compression, as error messages name it ("bz2", "7z") */
  format: string;
  /** told the size of every decoded chunk as the program delivers it (it runs ahead of the consumer) */
  onDecoded?: (bytes: number) => void;
}

export async function* programOutput(src: AsyncIterable<Buffer> | null, bin: string, args: readonly string[], opts: ProgramOutputOptions): AsyncGenerator<Buffer> {
  const { file, format, onDecoded } = opts;
  // the output read into our own chunks where it can be (decoder-output.ts), else from a plain pipe
  // (its chunks reused once read: the page reader gives them back, see chunk-pool.ts)
  const chunked = await spawnChunked(bin, args, { chunkBytes: DECODER_CHUNK, maxAhead: DECODER_READ_AHEAD, onData: onDecoded, pool: sharedChunkPool(DECODER_CHUNK) });
  const child = chunked?.child ?? spawn(bin, [...args], { stdio: ["pipe", "pipe", "pipe"] });
  const output = chunked?.output ?? readAhead(child.stdout!, DECODER_READ_AHEAD, onDecoded, DECODER_CHUNK);
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => {
    if (stderr.length < 2000) stderr += d;
  });
  const exited = new Promise<{ code: number | null; signal: string | null; error?: Error }>((resolve) => {
    child.once("error", (error) => resolve({ code: null, signal: null, error }));
    child.once("close", (code, signal) => resolve({ code, signal }));
  });
  // The child may exit early on bad data; the EPIPE that follows is reported through its exit code.
  const feeding = new Promise<Error | null>((resolve) => {
    child.stdin!.once("error", () => resolve(null));
    child.stdin!.once("finish", () => resolve(null));
    if (src === null) {
      child.stdin!.end();
      return;
    }
    const input = Readable.from(src, { objectMode: false });
    input.once("error", (err) => {
      child.stdin!.destroy();
      resolve(err);
    });
    // the bz2 binaries stop reading at bytes after a stream that start no other (open-dump.ts checks the layout)
    input.pipe(child.stdin!);
  });
  let decoded = 0;
  let finished = false;
  try {
    for await (const chunk of output) {
      decoded += chunk.length;
      yield chunk;
    }
    const readError = await feeding;
    if (readError) throw readError; // an I/O failure of the source, not damaged data
    const { code, signal, error } = await exited;
    finished = true;
    if (error) throw new DumpError(file, decoded, `cannot run the ${format} decoder ${bin}: ${error.message}`, { cause: error });
    if (code !== 0) {
      const why = stderr.trim().replace(/\s+/g, " ") || `exit ${code ?? signal}`;
      throw new DumpError(file, decoded, `${format} data is truncated or corrupt (${bin} ${code === null ? `killed by ${signal}` : `exit ${code}`}: ${why})`);
    }
  } finally {
    // The consumer stopped early (or failed): do not leave the decoder running.
    if (!finished && child.exitCode === null && child.signalCode === null) child.kill();
  }
}
