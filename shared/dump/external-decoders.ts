/**
 * Compressions read through a program on this machine: Wikimedia's full-history dumps as .7z (the
 * form most users download: a fifth of the .bz2's size), and xz and zstd recompressions (zstd decoded
 * in-process where its program is missing: zstd-in-process.ts). Each is one
 * stream: its file is one shard. 7z cannot be read from a pipe (its index is at the end of the
 * archive): a local file is read in place, any other byte source is first copied to a temporary file.
 */
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { findSystemBzip2 } from "./bz2-decoders.ts";
import { programOutput } from "./program-output.ts";
import { zstdInProcess } from "./zstd-in-process.ts";

export type ExternalFormat = "xz" | "zstd" | "7z";

interface Program {
  /** executables that read it, best first */
  names: readonly string[];
  /** arguments that decode to stdout: from stdin, or (7z) from the archive path appended */
  args: readonly string[];
  /** where to get one */
  install: string;
  /** reads a file, not stdin */
  needsFile?: true;
}

const PROGRAMS: Record<ExternalFormat, Program> = {
  xz: { names: ["xz"], args: ["-dc"], install: "xz-utils (apt) or xz (brew)" },
  zstd: { names: ["zstd"], args: ["-dc"], install: "zstd (apt, brew)" },
  // 7-Zip 21+ is 7zz (Debian's 7zip package); p7zip's are 7z, 7za and 7zr. `e -so` writes every file of
  // the archive to stdout (a dump archive holds one), -bd: no progress meter
  "7z": { names: ["7zz", "7z", "7za", "7zr"], args: ["e", "-so", "-bd", "-y"], install: "7zip (apt), sevenzip (brew) or p7zip-full", needsFile: true },
};

export function isExternalFormat(name: string): name is ExternalFormat {
  return Object.hasOwn(PROGRAMS, name);
}

/** A compression paracap could read but for the missing program: said before any input is read. */
export class MissingDecoderError extends Error {
  override readonly name = "MissingDecoderError";
}

/** The program that decodes `format` here, or null. */
export function findDecoder(format: ExternalFormat, path = process.env.PATH ?? ""): string | null {
  return findSystemBzip2(path, PROGRAMS[format].names);
}

/** `format` can be read here: its program is on PATH, or (zstd) it decodes in-process. */
export function decodableHere(format: ExternalFormat, path?: string): boolean {
  return format === "zstd" || findDecoder(format, path) !== null;
}

/** The program that decodes `format` here; throws the MissingDecoderError naming what to install for `file`. */
export function requireDecoder(format: ExternalFormat, file: string, path?: string): string {
  const bin = findDecoder(format, path);
  if (bin !== null) return bin;
  const program = PROGRAMS[format];
  throw new MissingDecoderError(`${file}: ${format}-compressed input needs ${program.names.join(", ")} on PATH (install ${program.install}), or recompress it with bzip2`);
}

export interface ExternalDecodeOptions {
  /** names the input in messages */
  file: string;
  /** the input as a file on this machine, when it is one whole file (7z reads it in place) */
  localPath?: string;
  onDecoded?: (bytes: number) => void;
  /** where the program is looked for (default: PATH) */
  searchPath?: string;
}

/** The decoded bytes of `source` (a whole file in `format`); damage fails the stream with a DumpError after the good bytes. */
export async function* externalDecode(format: ExternalFormat, source: AsyncIterable<Buffer>, opts: ExternalDecodeOptions): AsyncGenerator<Buffer> {
  const program = PROGRAMS[format];
  // no zstd program: decoded here, slower but anywhere (a cloud function has none)
  if (format === "zstd" && findDecoder(format, opts.searchPath) === null) return yield* zstdInProcess(source, { file: opts.file, ...(opts.onDecoded ? { onDecoded: opts.onDecoded } : {}) });
  const bin = requireDecoder(format, opts.file, opts.searchPath);
  if (!program.needsFile) return yield* programOutput(source, bin, program.args, { file: opts.file, format, onDecoded: opts.onDecoded });
  if (opts.localPath !== undefined) {
    await drain(source);
    return yield* programOutput(null, bin, [...program.args, opts.localPath], { file: opts.file, format, onDecoded: opts.onDecoded });
  }
  const dir = await mkdtemp(join(tmpdir(), "paracap-7z-"));
  try {
    const copy = join(dir, "input.7z");
    await pipeline(Readable.from(source, { objectMode: false }), createWriteStream(copy));
    yield* programOutput(null, bin, [...program.args, copy], { file: opts.file, format, onDecoded: opts.onDecoded });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The source is not read (the program reads the file): end it without reading past what was sniffed. */
async function drain(source: AsyncIterable<Buffer>): Promise<void> {
  await source[Symbol.asyncIterator]().return?.();
}
