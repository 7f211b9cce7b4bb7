/**
 * Parallel bz2 decoding (bz2-parallel.ts): the same bytes as `bzip2 -dc` on the real dumps, through
 * worker threads (JS blocks) and through `bzip2` children fed repacked streams; a boundary that
 * does not verify stops it; damaged input ends up counted exactly as by the sequential JS decoder.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DamageLog, findMagic, magicKind } from "../../shared/dump/bz2-blocks.ts";
import { findSystemBzip2, jsBunzip2 } from "../../shared/dump/bz2-decoders.ts";
import { binaryJobDecoder, bz2Jobs, jsJobDecoder, parallelBunzip2, repackJob, type Bz2Job } from "../../shared/dump/bz2-parallel.ts";
import { decodeJob } from "../../shared/dump/bz2-block-worker.ts";
import { DumpError } from "../../shared/dump/errors.ts";
import { openDumpStream } from "../../shared/dump/open-dump.ts";
import { removeTempDirs, SAMPLE_CURRENT, tempDir } from "../runner/helpers.ts";
import { bunzip, collectUntilError } from "./real-data.ts";
import { sampleIn200kBlocks, withOnlyOnPath } from "./decoder-setup.ts";

afterAll(removeTempDirs);

const DATA = new URL("../../../shared/data/", import.meta.url).pathname;
const realDumps = ["wikipedia", "wikipedia-history"].flatMap((d) =>
  readdirSync(join(DATA, d))
    .filter((f) => f.endsWith(".bz2"))
    .map((f) => join(DATA, d, f)),
);
const BZIP2 = findSystemBzip2(undefined, ["bzip2"]);

function sha(b: Buffer | Buffer[]): string {
  const h = createHash("sha256");
  for (const x of Array.isArray(b) ? b : [b]) h.update(x);
  return h.digest("hex");
}

async function collect(it: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const c of it) out.push(c);
  return out;
}

async function jobsOf(data: Buffer): Promise<Array<Bz2Job | { stop: string }>> {
  const out: Array<Bz2Job | { stop: string }> = [];
  for await (const j of bz2Jobs(Readable.from([data]))) out.push(j);
  return out;
}

describe("parallelBunzip2", () => {
  it("decodes every real dump and history in ../shared/data as bzip2 -dc does, on bzip2 children and on worker threads", async () => {
    expect(realDumps.length).toBeGreaterThanOrEqual(8);
    // (the 151 MB history excerpt is left to scripts/check-identical.sh: seconds of decoding on its own)
    for (const file of realDumps.filter((f) => readFileSync(f).length < 5_000_000)) {
      // bzip2 -dc, decoded once per test run (real-data.ts)
      const expected = sha(bunzip(file));
      if (BZIP2) expect(sha(await collect(parallelBunzip2(createReadStream(file), file, binaryJobDecoder(BZIP2, 2))))).toBe(expected);
      // the JS blocks are slow: up to enwik8's 4 MB of XML in five 900 kB blocks (not the 26 MB history)
      if (readFileSync(file).length < 1_250_000) expect(sha(await collect(parallelBunzip2(createReadStream(file, { highWaterMark: 65536 }), file, jsJobDecoder(2))))).toBe(expected);
    }
  });

  it("cuts multi-stream input into jobs that span streams, each verified against the layout", async () => {
    const dumps = realDumps.filter((f) => readFileSync(f).length < 200_000);
    const two = Buffer.concat(dumps.map((f) => readFileSync(f)));
    const jobs = await jobsOf(two);
    expect(jobs.every((j) => !("stop" in j))).toBe(true);
    expect(jobs.some((j) => "segments" in j && j.segments.length > 1)).toBe(true);
    for (const j of jobs as Bz2Job[]) for (const s of j.segments) for (const b of s.blocks) expect(magicKind(j.bytes, b.start)).toBe("block");
    const expected = sha(execFileSync("bzip2", ["-dc"], { input: two, maxBuffer: 1 << 28 }));
    expect(sha(await collect(parallelBunzip2(Readable.from([two]), "two", jsJobDecoder(2))))).toBe(expected);
    if (BZIP2) {
      // each job repacked is a valid bz2 file of its own
      for (const j of jobs as Bz2Job[]) execFileSync(BZIP2, ["-t"], { input: repackJob(j) });
      expect(sha(await collect(parallelBunzip2(Readable.from([two]), "two", binaryJobDecoder(BZIP2, 2))))).toBe(expected);
    }
  });

  it("never trusts a found boundary: a block that does not end exactly at the next header fails its job", async () => {
    const data = readFileSync(SAMPLE_CURRENT);
    const [job] = (await jobsOf(data)) as Bz2Job[];
    const bounds = job!.segments.flatMap((s) => s.blocks.flatMap((b) => [b.start, b.end]));
    expect("data" in decodeJob({ id: 1, bytes: job!.bytes, bounds })).toBe(true);
    // a boundary a bit early (a magic found by chance inside a block) or late
    for (const delta of [-1, 1]) {
      const moved = [...bounds];
      moved[1] = moved[1]! + delta;
      expect(decodeJob({ id: 2, bytes: job!.bytes, bounds: moved })).toMatchObject({ damage: expect.any(String) });
    }
    if (BZIP2) {
      const cut: Bz2Job = { ...job!, segments: [{ level: 9, blocks: [{ ...job!.segments[0]!.blocks[0]!, end: job!.segments[0]!.blocks[0]!.end - 8 }] }] };
      expect(await binaryJobDecoder(BZIP2, 1).decode(cut)).toMatchObject({ damage: expect.stringMatching(/bzip2/) });
    }
  });

  it("stops at the first damaged block with a DumpError after the verified bytes before it", async () => {
    const data = Buffer.from(readFileSync(SAMPLE_CURRENT));
    const second = findMagic(data, findMagic(data, 0) + 1);
    const third = findMagic(data, second + 1);
    const bit = Math.floor((second + third) / 2);
    data[bit >>> 3]! ^= 0x80 >>> (bit & 7);
    const { items, error } = await collectUntilError(parallelBunzip2(Readable.from([data]), "bad", jsJobDecoder(2)));
    expect(error).toBeInstanceOf(DumpError);
    // the first job holds the damaged block: nothing of it came out
    expect(Buffer.concat(items).length).toBe(0);
    expect((error as DumpError).offset).toBe(0);
  });
});

describe("openDumpStream with a single-threaded decoder on damaged input", () => {
  /** the sample cut to 1.3 MB in 200 kB blocks: the sequential JS decoder reads it 4 times */
  let sample: Buffer;
  beforeAll(() => {
    sample = sampleIn200kBlocks().bz2;
  });

  /** a copy of that sample with one bit flipped in its k-th block */
  function damaged(k: number): string {
    const data = Buffer.from(sample);
    let start = findMagic(data, 0);
    for (let i = 0; i < k; i++) start = findMagic(data, start + 1);
    const bit = Math.floor((start + findMagic(data, start + 1)) / 2);
    data[bit >>> 3]! ^= 0x80 >>> (bit & 7);
    const file = join(tempDir("paracap-bz2par-"), `damaged-${k}.xml.bz2`);
    writeFileSync(file, data);
    return file;
  }

  it("skips and counts a damaged block exactly as the sequential JS decoder does (JS workers and bzip2 children)", async () => {
    {
      const file = damaged(3); // a verified prefix comes out of the parallel decoder first
      const todayLog = new DamageLog();
      const today = Buffer.concat(await collect(jsBunzip2(createReadStream(file), file, todayLog)));
      expect(todayLog.gaps).toHaveLength(1);
      const runs: Array<() => Promise<Buffer[]>> = [() => collect(openDumpStream(file, { decoder: "js", damage: log }))];
      if (BZIP2) runs.push(() => withOnlyOnPath(BZIP2, "bzip2", () => collect(openDumpStream(file, { decoder: "system", damage: log }))));
      let log = new DamageLog();
      for (const run of runs) {
        log = new DamageLog();
        const got = Buffer.concat(await run());
        expect(got.equals(today)).toBe(true);
        expect(log.gaps).toEqual(todayLog.gaps);
      }
      // without a damage log: a DumpError at the same offset as today
      const { error: todayError } = await collectUntilError(jsBunzip2(createReadStream(file), file));
      const { error } = await collectUntilError(openDumpStream(file, { decoder: "js" }) as AsyncIterable<Buffer>);
      expect((error as DumpError).offset).toBe((todayError as DumpError).offset);
      expect((error as DumpError).message).toBe((todayError as DumpError).message);
    }
  });
});
