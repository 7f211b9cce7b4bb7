/**
 * The cores a bz2 decoder is given (ByteSource.decoderThreads): lbzip2 is started with that many
 * threads, the other decoders ignore it, and the decoded bytes do not depend on it.
 */
import { createReadStream } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { decoderArgs, findSystemBzip2 } from "../../shared/dump/bz2-decoders.ts";
import { decodeLanes } from "../../shared/dump/bz2-parallel.ts";
import { decompressStream } from "../../shared/dump/open-dump.ts";
import { sha } from "./real-data.ts";
import { childArgs } from "../support/child-processes.ts";
import { historyPrefix, historyPrefixXml } from "../support/history-prefix.ts";

const lbzip2 = findSystemBzip2(undefined, ["lbzip2"]);

describe("decoderArgs", () => {
  it("gives lbzip2 the threads asked for and every decoder -dc", () => {
    expect(decoderArgs("/usr/bin/lbzip2", 3)).toEqual(["-n", "3", "-dc"]);
    expect(decoderArgs("lbzip2", 1)).toEqual(["-n", "1", "-dc"]);
    expect(decoderArgs("/usr/bin/lbzip2")).toEqual(["-dc"]);
    // bzip2 has one thread whatever is asked; a name merely ending in lbzip2 is another program
    expect(decoderArgs("/usr/bin/bzip2", 2)).toEqual(["-dc"]);
    expect(decoderArgs("/opt/notlbzip2", 2)).toEqual(["-dc"]);
    expect(() => decoderArgs("/usr/bin/lbzip2", 0)).toThrow(RangeError);
    expect(() => decoderArgs("/usr/bin/lbzip2", 1.5)).toThrow(RangeError);
  });

  it("caps the block decoder's lanes by the threads given", () => {
    expect(decodeLanes(1)).toBe(1);
    expect(decodeLanes(1000)).toBe(decodeLanes());
    expect(decodeLanes()).toBeGreaterThanOrEqual(1);
  });
});

describe.runIf(lbzip2 !== null && process.platform === "linux")("a decoder given its threads", () => {
  // a real history excerpt's first 10 MB (test/support/history-prefix.ts): over the 4 MiB held back
  // before the first chunk, so the decoder is still there when looked at; 40 % of the whole excerpt's
  // decoding, paid three times here
  let HISTORY: string;
  beforeAll(async () => {
    HISTORY = await historyPrefix();
  });

  it("starts lbzip2 with them and decodes the same bytes as with all cores", async () => {
    const expected = sha(historyPrefixXml());
    for (const threads of [1, 2, undefined]) {
      const parts: Buffer[] = [];
      let seen: string[][] | null = null;
      // the input ends only once the decoder has been looked at, so it cannot have exited before
      let looked!: () => void;
      const lookedAt = new Promise<void>((resolve) => (looked = resolve));
      const open = async function* () {
        yield* createReadStream(HISTORY, { highWaterMark: 1 << 20 });
        await lookedAt;
      };
      for await (const chunk of decompressStream(open(), { decoder: "system", file: HISTORY, reopen: open, threads })) {
        parts.push(chunk as Buffer);
        if (seen === null) {
          seen = childArgs("lbzip2");
          looked();
        }
      }
      expect(sha(Buffer.concat(parts))).toBe(expected);
      expect(seen).toHaveLength(1);
      expect(seen![0]!).toEqual(threads === undefined ? ["-dc"] : ["-n", String(threads), "-dc"]);
    }
  });
});
