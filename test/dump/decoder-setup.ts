/** Test set-ups for the bz2 decoders: one binary alone on PATH, and the sample in small blocks. */
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { SAMPLE_CURRENT, tempDir } from "../runner/helpers.ts";

/** Runs fn with only `bin` on PATH, under `name` (so the "system" decoder picks exactly it). */
export async function withOnlyOnPath<T>(bin: string, name: string, fn: () => Promise<T>): Promise<T> {
  const dir = tempDir("paracap-path-");
  mkdirSync(join(dir, "bin"));
  symlinkSync(bin, join(dir, "bin", name));
  const saved = process.env.PATH;
  process.env.PATH = join(dir, "bin");
  try {
    return await fn();
  } finally {
    process.env.PATH = saved;
  }
}

/**
 * The embedded sample's pages up to 1.3 MB of XML (a whole export: the pages after are left out),
 * and that XML recompressed in 200 kB blocks (7 of them): every path of the block decoders at a
 * fifth of the pure-JS decoding the whole sample in 900 kB blocks takes.
 */
export function sampleIn200kBlocks(): { xml: Buffer; bz2: Buffer } {
  const whole = execFileSync("bzip2", ["-dc", SAMPLE_CURRENT], { maxBuffer: 1 << 26 });
  const cut = whole.indexOf("</page>", 1_300_000) + "</page>".length;
  const xml = Buffer.concat([whole.subarray(0, cut), Buffer.from("\n</mediawiki>\n")]);
  return { xml, bz2: execFileSync("bzip2", ["-2", "-c"], { input: xml, maxBuffer: 1 << 26 }) };
}
