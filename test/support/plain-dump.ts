/**
 * A compressed dump, decompressed once per test run and shared (test/support/once.ts), for the tests
 * that check what happens after decoding: each reading the 9 MB history excerpt through lbzip2 cost
 * ~4.5 CPU-s, the 1.3 MB one ~3.7. A bz2 file's copy is the bzip2 decoding that test/dump/real-data.ts
 * shares with a dozen other files. Decoding itself is tested on the compressed files (test/dump/).
 */
import { createWriteStream, statSync } from "node:fs";
import { basename } from "node:path";
import { pipeline } from "node:stream/promises";
import { openDumpStream } from "../../shared/dump/open-dump.ts";
import { bunzipFile } from "../dump/real-data.ts";
import { once } from "./once.ts";

/** Gzip files smaller than this are read as they are. */
const SHARE_FROM_BYTES = 4 << 20;

/** The decompressed copy of `path`, or `path` itself when it is plain (or a small gzip file). */
export async function plainDump(path: string): Promise<string> {
  if (/\.bz2$/.test(path)) return bunzipFile(path);
  if (!/\.gz$/.test(path) || statSync(path).size < SHARE_FROM_BYTES) return path;
  return once(`plain-${basename(path).replace(/\.gz$/, "")}`, (to) => pipeline(openDumpStream(path), createWriteStream(to)));
}
