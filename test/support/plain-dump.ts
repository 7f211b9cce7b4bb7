/**
 * A large compressed dump, decompressed once per test run and shared (test/support/once.ts), for the
 * tests that check what happens after decoding: each reading the 9 MB history excerpt through lbzip2
 * cost ~4.5 CPU-s. Decoding itself is tested on the compressed files (test/dump/).
 */
import { statSync, createWriteStream } from "node:fs";
import { basename } from "node:path";
import { pipeline } from "node:stream/promises";
import { openDumpStream } from "../../shared/dump/open-dump.ts";
import { once } from "./once.ts";

/** Compressed files smaller than this are read as they are. */
const SHARE_FROM_BYTES = 4 << 20;

/** The decompressed copy of `path` (same name without .bz2/.gz), or `path` itself when it is small or plain. */
export async function plainDump(path: string): Promise<string> {
  if (!/\.(bz2|gz)$/.test(path) || statSync(path).size < SHARE_FROM_BYTES) return path;
  return once(`plain-${basename(path).replace(/\.(bz2|gz)$/, "")}`, (to) => pipeline(openDumpStream(path), createWriteStream(to)));
}
