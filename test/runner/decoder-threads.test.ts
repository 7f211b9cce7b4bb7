/**
 * The local runner gives each shard's decoder its share of the cores (ByteSource.decoderThreads,
 * decoder-shares.ts): shards decoded side by side start lbzip2 on no more threads than cores
 * together, a shard decoded alone on all of them. Checked on the lbzip2 processes the built-in dump
 * source really starts.
 */
import { availableParallelism } from "node:os";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findSystemBzip2 } from "../../shared/dump/bz2-decoders.ts";
import { mediawikiSource } from "../../shared/sources/mediawiki/mediawiki-source.ts";
import { sourceRegistry } from "../../shared/sources/registry.ts";
import type { ByteSource } from "../../shared/io/byte-source.ts";
import { removeTempDirs, run, tempDir } from "./helpers.ts";
import { childArgs } from "../support/child-processes.ts";
import { historyPrefix } from "../support/history-prefix.ts";

afterAll(removeTempDirs);

/**
 * The built-in dump source, under a name of its own, that looks at the lbzip2 processes when a
 * shard's first document arrives; the shard's input ends only after that, so its decoder is still there.
 * With `together` > 1, the first `together` shards to arrive wait for each other before looking, so
 * the look sees all their decoders however the machine schedules them.
 */
function watchedDumps(seen: string[][][], together = 1) {
  let arrived = 0;
  let allArrived!: () => void;
  const barrier = new Promise<void>((resolve) => (allArrived = resolve));
  return {
    ...mediawikiSource,
    name: "watched-mediawiki",
    async *documents(...args: Parameters<typeof mediawikiSource.documents>) {
      const [shard, bytes, config, counters] = args;
      let looked!: () => void;
      const lookedAt = new Promise<void>((resolve) => (looked = resolve));
      const gated: ByteSource = {
        ...bytes,
        read: async function* (start?: number, end?: number) {
          yield* bytes.read(start, end);
          await lookedAt;
        },
      };
      let first = true;
      for await (const doc of mediawikiSource.documents(shard, gated, config, counters)) {
        if (first) {
          first = false;
          if (++arrived === together) allArrived();
          if (arrived <= together) await barrier;
          seen.push(childArgs("lbzip2"));
          looked();
        }
        yield doc;
      }
      looked();
    },
  };
}

describe.runIf(findSystemBzip2(undefined, ["lbzip2"]) !== null && process.platform === "linux")("the decoders of a local run", () => {
  // copies of a real history dump: lbzip2 keeps a stream's last blocks until its input ends, and the
  // reader holds back 4 MiB before the first document, so a shard's input must decode to well over
  // that: the first 10 MB of the rev02900 excerpt (test/support/history-prefix.ts), at 40 % of the
  // whole excerpt's decoding, which each of the five shards here paid
  let prefix: string;
  beforeAll(async () => {
    prefix = await historyPrefix();
  });
  const copies = (n: number) => {
    const dir = tempDir();
    return Array.from({ length: n }, (_, i) => {
      const path = join(dir, `history-${i}.xml.bz2`);
      copyFileSync(prefix, path);
      return { path, kind: "history" as const };
    });
  };

  it("start lbzip2 on their share of the cores when shards are decoded side by side", async () => {
    const seen: string[][][] = [];
    await run(tempDir(), copies(3), {}, { sources: sourceRegistry([watchedDumps(seen, 2)]), workers: 2, threads: "always" });
    const cores = availableParallelism();
    expect(seen).toHaveLength(3);
    for (const decoders of seen) {
      expect(decoders.length).toBeGreaterThanOrEqual(1);
      for (const args of decoders) expect(args).toEqual(["-n", expect.stringMatching(/^[1-9]\d*$/), "-dc"]);
      // together no more threads than cores (one each at least)
      expect(decoders.reduce((n, args) => n + Number(args[1]), 0)).toBeLessThanOrEqual(Math.max(cores, decoders.length));
    }
    // the first two start together on equal halves of the cores (one each on 2)
    expect(Number(seen[0]![0]![1])).toBe(Math.max(1, Math.floor(cores / 2)));
    // two shards at once: the first two looked while both decoders ran
    expect(seen[0]).toHaveLength(2);
    expect(seen[1]).toHaveLength(2);
  });

  it("leave lbzip2 all the cores when shards are decoded one at a time", async () => {
    const seen: string[][][] = [];
    await run(tempDir(), copies(2), {}, { sources: sourceRegistry([watchedDumps(seen)]), workers: 1 });
    expect(seen).toEqual([[["-dc"]], [["-dc"]]]);
  });
});
