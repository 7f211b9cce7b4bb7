/**
 * Shards read one at a time hand over to the next when their decoder process ends
 * (shared/runner/hand-over.ts): the scheduler's order and failure rules, the decoder's end told
 * before its output is consumed, and a local run whose next shard starts while the previous one's
 * task is still going, with the same outputs as one that never hands over.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findSystemBzip2 } from "../../shared/dump/bz2-decoders.ts";
import { decompressStream } from "../../shared/dump/open-dump.ts";
import { fileBytes } from "../../shared/io/file-bytes.ts";
import { forEachHandingOver } from "../../shared/runner/hand-over.ts";
import { sourceRegistry } from "../../shared/sources/registry.ts";
import type { DocumentRefs, Source } from "../../shared/sources/source.ts";
import { DATA, readOutputs, removeTempDirs, REPO, run, tempDir } from "./helpers.ts";

afterAll(removeTempDirs);

/** A promise with its resolve and reject. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** What a wait that never ends fails after (passing takes a second or two; the bound only keeps a hang from lasting the suite's 10 minutes). */
const HANG = 180_000;

/** Lets every queued promise reaction run (the scheduler's awaits included). */
const settle = () => new Promise<void>((r) => setImmediate(r));

describe("forEachHandingOver", () => {
  it("starts the next task when the running one hands over, never more than two at once", async () => {
    const log: string[] = [];
    const done = ["a", "b", "c"].map(() => deferred());
    const handOvers: (() => void)[] = [];
    const all = forEachHandingOver(["a", "b", "c"], async (item, handOver) => {
      const i = ["a", "b", "c"].indexOf(item);
      log.push(`start ${item}`);
      handOvers[i] = handOver;
      await done[i]!.promise;
      log.push(`end ${item}`);
    });
    await settle();
    expect(log).toEqual(["start a"]);
    handOvers[0]!();
    await settle();
    expect(log).toEqual(["start a", "start b"]);
    // b hands over too, but a still runs: c waits for a
    handOvers[1]!();
    await settle();
    expect(log).toEqual(["start a", "start b"]);
    done[0]!.resolve();
    await settle();
    expect(log).toEqual(["start a", "start b", "end a", "start c"]);
    done[2]!.resolve();
    done[1]!.resolve();
    await all;
    expect(log.slice(4).sort()).toEqual(["end b", "end c"]);
  });

  it("a task that never hands over runs alone; a second hand-over changes nothing", async () => {
    const log: string[] = [];
    await forEachHandingOver([1, 2, 3], async (n, handOver) => {
      log.push(`start ${n}`);
      await settle();
      if (n === 2) {
        handOver();
        handOver();
      }
      await settle();
      log.push(`end ${n}`);
    });
    expect(log.slice(0, 3)).toEqual(["start 1", "end 1", "start 2"]);
    expect(log.indexOf("start 3")).toBeLessThan(log.indexOf("end 2") + 1);
    expect(log.filter((l) => l.startsWith("start"))).toEqual(["start 1", "start 2", "start 3"]);
  });

  it("a failure stops further starts, waits for the task still running and is thrown", async () => {
    const log: string[] = [];
    const slow = deferred();
    const all = forEachHandingOver(["first", "failing", "never"], async (item, handOver) => {
      log.push(`start ${item}`);
      if (item === "first") {
        handOver();
        await slow.promise;
        log.push("end first");
        return;
      }
      if (item === "failing") throw new Error("shard failed");
    });
    let thrown: unknown = null;
    all.catch((e) => (thrown = e));
    await settle();
    // the failure is known, but the first task still runs: not thrown yet
    expect(thrown).toBeNull();
    slow.resolve();
    await expect(all).rejects.toThrow("shard failed");
    expect(log).toEqual(["start first", "start failing", "end first"]);
  });
});

const decoder = findSystemBzip2();

describe.skipIf(decoder === null)("a decoder process's end", () => {
  it("is told before its output has been read, once", async () => {
    // 7.8 MB of XML: more than the bytes held back unverified, less than the decoder's read-ahead
    const path = join(REPO, "shared/sample/enwiki-Anarchism-history-sample.xml.bz2");
    const bytes = fileBytes(path);
    let ends = 0;
    const ended = deferred();
    const stream = decompressStream(bytes.read(), {
      decoder: "system",
      file: path,
      reopen: () => bytes.read(),
      onDecodeEnd: () => {
        ends++;
        ended.resolve();
      },
    });
    const it = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const first = await it.next();
    expect(first.done).toBe(false);
    let total = (first.value as Buffer).length;
    // nothing more is read until the decoder has ended: it ran ahead into the read-ahead
    await ended.promise;
    expect(total).toBeLessThan(7_828_701);
    for (let r = await it.next(); !r.done; r = await it.next()) total += (r.value as Buffer).length;
    expect(total).toBe(7_828_701);
    expect(ends).toBe(1);
  }, HANG);
});

interface LineDoc { shard: string; n: number; image: string; caption: string }

/**
 * Tab-separated `image<TAB>caption` lines. With `handOver`, a shard tells its decoding done after its
 * first line and then reads on only once the next shard has started (a runner that never hands over
 * leaves the run waiting: the test fails); the last shard has no next to wait for.
 */
function lineSource(handOver: boolean, started: Map<string, () => void>, next: (file: string) => Promise<void> | null): Source<LineDoc> {
  return {
    name: "caption-lines",
    description: "image and caption per line",
    counterPrefix: "lines",
    documentsCounter: "lines.read",
    documentsNoun: "lines",
    claims: (name) => name.endsWith(".captions.txt"),
    uploadRole: () => null,
    async *documents(shard, bytes, _config, counters) {
      started.get(shard.uri)?.();
      const chunks: Buffer[] = [];
      for await (const c of bytes.read()) chunks.push(c);
      const lines = Buffer.concat(chunks).toString("utf8").split("\n").filter((l) => l.includes("\t"));
      for (let n = 0; n < lines.length; n++) {
        counters.inc("lines.read");
        const [image, caption] = lines[n]!.split("\t") as [string, string];
        yield { shard: shard.uri, n, image, caption };
        if (n === 0 && handOver) {
          bytes.onDecodeEnd?.();
          await next(shard.uri);
        }
      }
    },
    createExtractor: () => (doc: LineDoc): DocumentRefs => ({
      page: `${doc.shard}#${doc.n}`,
      pageId: `${doc.shard}#${doc.n}`,
      revisionId: `r${doc.n}`,
      refs: [{ image: doc.image, source: "row", caption: doc.caption, alt: null }],
    }),
    pack: (docs) => docs,
    unpack: (packed) => packed as LineDoc[],
    size: (d) => d.caption.length,
    reportLines: () => [],
  };
}

describe("the local runner reading shards one at a time", () => {
  it("starts the next shard when the previous one hands over, with the outputs of a run that does not", async () => {
    const dir = tempDir();
    // real captions (Conceptual Captions), four images with several captions each, over three files
    const captions = readFileSync(join(DATA, "conceptual-captions/gcc-validation-lines00001-00500.tsv"), "utf8").split("\n").slice(0, 36).map((l) => l.split("\t")[0]!);
    const files = [0, 1, 2].map((f) => {
      const file = join(dir, `part-${f}.captions.txt`);
      writeFileSync(file, captions.slice(f * 12, f * 12 + 12).map((c, i) => `img-${(f * 12 + i) % 4}\t${c}`).join("\n") + "\n");
      return file;
    });
    const inputs = files.map((path) => ({ path, kind: "current" as const }));
    const config = { tiers: ["silver" as const], captions: { minWords: 3 } };

    const plain = join(dir, "plain");
    await run(plain, inputs, config, { sources: sourceRegistry([lineSource(false, new Map(), () => null)]), workers: 1 });

    const order: string[] = [];
    const started = new Map<string, () => void>();
    const startedPromises = new Map<string, Promise<void>>();
    for (const f of files) {
      const d = deferred();
      startedPromises.set(f, d.promise);
      started.set(f, () => {
        order.push(`start ${f}`);
        d.resolve();
      });
    }
    const next = (file: string) => {
      const i = files.indexOf(file);
      return i + 1 < files.length ? startedPromises.get(files[i + 1]!)! : null;
    };
    const handing = join(dir, "handing");
    await run(handing, inputs, config, { sources: sourceRegistry([lineSource(true, started, next)]), workers: 1 });
    expect(order).toEqual(files.map((f) => `start ${f}`));

    const a = readOutputs(plain);
    const b = readOutputs(handing);
    expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
    for (const name of Object.keys(a)) expect(b[name], name).toBe(a[name]);
    expect(JSON.parse(b["stats.json"]!).counters["lines.read"]).toBe(36);
  }, HANG);
});
