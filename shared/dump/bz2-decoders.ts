/**
 * bz2 decompression: the system `lbzip2`/`bzip2` binary in a child process (fast, parallel), or
 * pure JS (bz2-blocks.ts) where no binary exists, e.g. on Cloud Functions. Both decode
 * multi-stream files (concatenated bz2 streams) to the end. The binaries stop at damage (a
 * DumpError carrying the number of bytes decoded before it); the JS decoder skips a damaged block
 * and goes on (see open-dump.ts for how damaged input is finished).
 */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { bz2Blocks, type DamageLog } from "./bz2-blocks.ts";
import { DumpError } from "./errors.ts";
import { programOutput } from "./program-output.ts";

export type Bz2Decoder = "auto" | "system" | "js";

/** Preferred binaries, best first: lbzip2 decodes blocks on all cores. */
const SYSTEM_BINARIES = ["lbzip2", "bzip2"] as const;

/** Absolute path of the first lbzip2/bzip2 executable on PATH (or of the given names), or null. */
export function findSystemBzip2(path = process.env.PATH ?? "", names: readonly string[] = SYSTEM_BINARIES): string | null {
  for (const name of names) {
    for (const dir of path.split(delimiter)) {
      if (!dir) continue;
      const candidate = join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return null;
}

/** Picks the binary for a decoder choice; null means "use the JS decoder". */
export function resolveBz2Decoder(decoder: Bz2Decoder): string | null {
  if (decoder === "js") return null;
  const bin = findSystemBzip2();
  if (bin === null && decoder === "system") throw new Error("decoder \"system\" requested but neither lbzip2 nor bzip2 is on PATH");
  return bin;
}

/**
 * lbzip2 decodes blocks in parallel and, on damaged input, exits after writing a varying prefix of
 * what it had decoded (seen: 0 to 2.7 MB of the same truncated file). The binaries also drop their
 * last unflushed output buffer, so damaged input is finished by the JS decoder, which delivers the
 * same, longest prefix every time.
 */
export function isParallelDecoder(bin: string): boolean {
  return /(^|[\\/])lbzip2$/.test(bin);
}

/**
 * The decoder binary's arguments: decode to stdout, and for lbzip2 on `threads` cores when given
 * (lbzip2 starts one thread per core by default). Why: decoders that together run more threads than
 * there are cores do not share them well: two `lbzip2 -dc` side by side on 2 cores took 2.3–4.5× the
 * wall time of two `lbzip2 -n 1 -dc` (11–22 CPU-s against 4.6–5.0), and one beside a busy thread
 * used 15–75 % more CPU for no gain over `-n 1` (docs/benchmark-history.md, issue 21).
 */
export function decoderArgs(bin: string, threads?: number): string[] {
  if (threads === undefined || !isParallelDecoder(bin)) return ["-dc"];
  if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`decoder threads must be a positive integer, got ${threads}`);
  return ["-n", String(threads), "-dc"];
}

/**
 * Decodes bz2 bytes with a child process; a non-zero exit becomes a DumpError after the good output.
 * @param onDecoded told the size of every decoded chunk as the decoder delivers it (it runs ahead of the consumer)
 * @param threads cores the decoder may use (decoderArgs); default all
 */
export function systemBunzip2(src: AsyncIterable<Buffer>, bin: string, file: string, onDecoded?: (bytes: number) => void, threads?: number): AsyncGenerator<Buffer> {
  return programOutput(src, bin, decoderArgs(bin, threads), { file, format: "bz2", onDecoded });
}

/**
 * Decodes bz2 bytes in pure JS (slower than the binaries, but needs none), block by block: each
 * block is verified by its CRC before its bytes are delivered. With a damage log, a damaged block
 * is skipped and recorded (decoding resumes at the next block); without one, the first damage
 * ends the stream with a DumpError after the good bytes before it.
 */
export async function* jsBunzip2(src: AsyncIterable<Buffer>, file: string, damage?: DamageLog): AsyncGenerator<Buffer> {
  let decoded = 0;
  for await (const piece of bz2Blocks(src)) {
    if (Buffer.isBuffer(piece)) {
      decoded += piece.length;
      yield piece;
    } else if (damage) {
      damage.gaps.push({ ...piece, at: decoded });
    } else if (piece.kind !== "trailing") {
      // (garbage after the last stream loses nothing: ignored, as bzip2 does)
      throw new DumpError(file, decoded, `bz2 data is truncated or corrupt (${piece.reason}, at compressed byte ${piece.compressedAt})`);
    }
  }
}
