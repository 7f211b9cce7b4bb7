/**
 * 7z, xz and zstd dumps, read through their programs: a real history excerpt recompressed by each
 * decodes to exactly the bz2's bytes (a local 7z in place, any other byte source through a copy), a
 * cut archive is a DumpError after its good bytes, a missing program one line saying what to install,
 * and a run over the 7z publishes what the run over the bz2 does.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, createReadStream, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DumpError } from "../../shared/dump/errors.ts";
import { externalDecode, findDecoder, MissingDecoderError } from "../../shared/dump/external-decoders.ts";
import { sniffFormat } from "../../shared/dump/magic.ts";
import { decompressStream, openDumpStream } from "../../shared/dump/open-dump.ts";
import { DATASETS, readOutputs, removeTempDirs, run, runCli, tempDir } from "../runner/helpers.ts";
import { bunzip, HISTORY_0000, sha } from "./real-data.ts";

afterAll(removeTempDirs);

async function readAll(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c);
  return Buffer.concat(parts);
}

const xml = bunzip(HISTORY_0000);
const have = { "7z": findDecoder("7z"), xz: findDecoder("xz"), zstd: findDecoder("zstd") };
let dir: string;
const archive = (ext: string) => join(dir, `enwiki-Anarchism-history-rev00000-00299.xml.${ext}`);

beforeAll(() => {
  dir = tempDir();
  const plain = join(dir, "enwiki-Anarchism-history-rev00000-00299.xml");
  writeFileSync(plain, xml);
  if (have["7z"]) execFileSync(have["7z"], ["a", "-bd", "-mx=1", archive("7z"), plain], { stdio: "ignore" });
  if (have.xz) execFileSync(have.xz, ["-k", "-1", plain]);
  if (have.zstd) execFileSync(have.zstd, ["-q", "-1", plain, "-o", archive("zst")]);
});

describe("external decoders", () => {
  it("are recognised by magic bytes", () => {
    expect(sniffFormat(Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]))).toEqual({ unsupported: "7z" });
    expect(sniffFormat(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0]))).toEqual({ unsupported: "zstd" });
  });

  for (const [format, ext] of [["7z", "7z"], ["xz", "xz"], ["zstd", "zst"]] as const) {
    it.runIf(have[format] !== null)(`decode a real ${format} history dump to the bz2's bytes, from the file and from a stream`, async () => {
      expect(sha(await readAll(openDumpStream(archive(ext))))).toBe(sha(xml));
      // a byte source that is no local file (a Cloud Storage object): 7z goes through a temporary copy
      const streamed = decompressStream(createReadStream(archive(ext), { highWaterMark: 4096 }), { file: "gs://b/o" });
      expect(sha(await readAll(streamed))).toBe(sha(xml));
    });
  }

  it.runIf(have["7z"] !== null)("a cut 7z is a DumpError naming 7z (its index is at its end: nothing decodes)", async () => {
    const cut = join(tempDir(), "cut.xml.7z");
    writeFileSync(cut, readFileSync(archive("7z")).subarray(0, 20_000));
    const err = await readAll(openDumpStream(cut)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DumpError);
    expect((err as Error).message).toMatch(/7z data is truncated or corrupt/);
  });

  it.runIf(have.xz !== null)("a cut xz delivers its good bytes, then a DumpError", async () => {
    const cut = join(tempDir(), "cut.xml.xz");
    const whole = readFileSync(archive("xz"));
    writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
    const got: Buffer[] = [];
    const err = await (async () => {
      for await (const c of openDumpStream(cut)) got.push(c as Buffer);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DumpError);
    expect((err as Error).message).toMatch(/xz data is truncated or corrupt/);
    const good = Buffer.concat(got);
    expect(good.length).toBeGreaterThan(0);
    expect(good.equals(xml.subarray(0, good.length))).toBe(true);
  });

  it.runIf(have.zstd !== null)("without a zstd program, a zstd dump (one frame or several) decodes in-process to the same bytes; a cut one gives its good bytes, then a DumpError", async () => {
    const chunks = (b: Buffer) => (async function* () {
      for (let i = 0; i < b.length; i += 65536) yield b.subarray(i, i + 65536);
    })();
    const whole = readFileSync(archive("zst"));
    expect(sha(await readAll(externalDecode("zstd", chunks(whole), { file: "x.zst", searchPath: "" })))).toBe(sha(xml));
    // frames written one after another (pzstd, a WARC zstd file's frame per record)
    const half = Math.floor(xml.length / 2);
    const frames = Buffer.concat([execFileSync(have.zstd!, ["-q", "-c", "-3"], { input: xml.subarray(0, half), maxBuffer: 1 << 28 }), execFileSync(have.zstd!, ["-q", "-c", "-3"], { input: xml.subarray(half), maxBuffer: 1 << 28 })]);
    let told = 0;
    expect(sha(await readAll(externalDecode("zstd", chunks(frames), { file: "x.zst", searchPath: "", onDecoded: (n) => (told += n) })))).toBe(sha(xml));
    expect(told).toBe(xml.length);
    const got: Buffer[] = [];
    const err = await (async () => {
      for await (const c of externalDecode("zstd", chunks(whole.subarray(0, Math.floor(whole.length / 2))), { file: "cut.xml.zst", searchPath: "" })) got.push(c);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DumpError);
    expect((err as Error).message).toMatch(/^cut\.xml\.zst at decompressed byte \d+: zstd data is truncated or corrupt \(decoded in-process/);
    const good = Buffer.concat(got);
    expect(good.length).toBeGreaterThan(0);
    expect(good.equals(xml.subarray(0, good.length))).toBe(true);
  });

  it("without the program: none found on an empty PATH, and the error says what to install", async () => {
    expect(findDecoder("7z", "")).toBeNull();
    const bytes = readFileSync(HISTORY_0000);
    const err = await readAll(externalDecode("7z", (async function* () { yield bytes; })(), { file: "x.7z", searchPath: "" })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MissingDecoderError);
    expect((err as Error).message).toMatch(/^x\.7z: 7z-compressed input needs 7zz, 7z, 7za, 7zr on PATH \(install 7zip/);
  });

  it.runIf(have["7z"] !== null)("paracap run says so in one line, exit 2, before any work, where no 7z program is on PATH", async () => {
    // a PATH holding node alone
    const bin = join(tempDir(), "bin");
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, "node"));
    const out = join(tempDir(), "out");
    // with progress on: no phase started, so no progress line before the message, and no run in --out
    const r = await runCli(["run", "--history", archive("7z"), "--out", out], { env: { PATH: bin } });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^paracap run: .*\.7z: 7z-compressed input needs .* on PATH/)]);
    expect(existsSync(join(out, ".work", "manifest.json"))).toBe(false);
  });

  it.runIf(have["7z"] !== null)("a run over the 7z history publishes the datasets the run over the bz2 does", async () => {
    const bz2 = join(tempDir(), "enwiki-Anarchism-history-rev00000-00299.xml.bz2");
    copyFileSync(HISTORY_0000, bz2);
    const a = tempDir();
    const b = tempDir();
    await run(a, [{ path: bz2, kind: "history" }]);
    await run(b, [{ path: archive("7z"), kind: "history" }]);
    const [x, y] = [readOutputs(a), readOutputs(b)];
    for (const d of DATASETS) expect(y[d], d).toBe(x[d]);
    expect(x["bronze.jsonl"]).toBeDefined();
    const funnel = (o: Record<string, string>) => (JSON.parse(o["stats.json"]!) as { counters: Record<string, number> }).counters;
    expect(funnel(y)["dump.pages"]).toBe(funnel(x)["dump.pages"]);
    expect(funnel(y)["dump.revisions"]).toBe(funnel(x)["dump.revisions"]);
  });
});
