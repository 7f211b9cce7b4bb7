/**
 * A valid bz2 of the first 10 MB of whole revisions of the rev02900 history excerpt (156 of its 400
 * revisions, 12 bz2 blocks), made once per test run and shared (test/support/once.ts), for the tests
 * that watch an lbzip2 decoder while it runs: lbzip2 writes out only part of its input's blocks until
 * the input ends (here 9.0 of the 10 MB; of the 7.8 MB embedded history sample only 4.5 MB, too few
 * past the 4 MiB the decoder's output is held back), so the input must decode to well over 4 MiB, and
 * each decoding of the whole 26 MB excerpt costs ~4 CPU-s where this costs ~1.6.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { bunzip, HISTORY_2900 } from "../dump/real-data.ts";
import { once } from "./once.ts";

/** The prefix's XML (the excerpt's bzip2 decoding is shared, test/dump/real-data.ts). */
export function historyPrefixXml(): Buffer {
  const xml = bunzip(HISTORY_2900);
  const cut = xml.indexOf("</revision>", 10_000_000) + "</revision>".length;
  return Buffer.concat([xml.subarray(0, cut), Buffer.from("\n  </page>\n</mediawiki>\n")]);
}

/** The path of the prefix compressed by the bzip2 binary. */
export function historyPrefix(): Promise<string> {
  return once("history-2900-prefix-10mb.xml.bz2", async (to) => {
    writeFileSync(to, execFileSync("bzip2", ["-9", "-c"], { input: historyPrefixXml(), maxBuffer: 1 << 26 }));
  });
}
