/**
 * Zip archives of images (COCO's val2017.zip, Kaggle downloads) read as the tar or folder of the same
 * images: the same samples, hashes and counts (apart from the archive's name in each origin). Stored
 * and deflated members, zip64, folders, macOS's `__MACOSX/` and `._` entries, CP437 names; damage
 * (a zip cut short, a member whose CRC, data, size or encryption make it unreadable) is one line or a
 * counted skip. Zips are written with yazl and patched by hand; the images are the real jimagehash ones.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { extname, join } from "node:path";
import yazl from "yazl";
import { afterAll, describe, expect, it } from "vitest";
import { inProcessCli } from "../support/in-process-cli.ts";
import { readStats, removeTempDirs, run, runCli, tempDir } from "../runner/helpers.ts";
import type { ParacapConfigInput } from "../../shared/core/config.ts";
import { buildFilesLayout, buildTar, SAMPLES } from "./img2dataset-fixture.ts";

afterAll(removeTempDirs);

const J = new URL("../../../shared/data/images/jimagehash/", import.meta.url).pathname;
const lines = (stdout: string) => stdout.trimEnd().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>);
/** A hash line without its origin (which names the archive). */
const withoutOrigin = (l: Record<string, unknown>) => ({ ...l, origin: undefined });

type Member = [name: string, data: Buffer | string, opts?: { compress?: boolean; forceZip64Format?: boolean }];

async function zipOf(path: string, members: Member[], end: { forceZip64Format?: boolean } = {}): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, data, opts] of members) {
    if (name.endsWith("/")) zip.addEmptyDirectory(name);
    else zip.addBuffer(typeof data === "string" ? Buffer.from(data) : data, name, { mtime: new Date(0), ...opts });
  }
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    zip.outputStream.on("data", (c: Buffer) => chunks.push(c));
    zip.outputStream.on("end", () => resolve());
    zip.outputStream.on("error", reject);
  });
  zip.end({ comment: "", forceZip64Format: end.forceZip64Format === true });
  await done;
  const bytes = Buffer.concat(chunks);
  writeFileSync(path, bytes);
  return bytes;
}

const sidecar = (s: (typeof SAMPLES)[number]) => JSON.stringify({ url: s.url, key: s.key, status: s.image ? "success" : "failed_to_download", caption: s.caption, width: 500, height: 333, error_message: s.image ? null : "HTTP 404" });

/** The fixture's samples as img2dataset's webdataset tar holds them (buildTar), in a zip: `<key>.<ext>`, `.txt`, `.json`. */
function sampleMembers(opts?: Member[2]): Member[] {
  return SAMPLES.filter((s) => s.image).flatMap((s): Member[] => [
    [`${s.key}.${extname(s.image!).slice(1)}`, readFileSync(s.image!), opts],
    [`${s.key}.txt`, s.caption, opts],
    [`${s.key}.json`, sidecar(s), opts],
  ]);
}

/** Where a member's headers are: its local header and central directory record (by its name's bytes). */
function headersOf(bytes: Buffer, name: string): { local: number; central: number } {
  const at: number[] = [];
  for (let i = bytes.indexOf(name); i >= 0; i = bytes.indexOf(name, i + 1)) at.push(i);
  const local = at.find((i) => bytes.readUInt32LE(i - 30) === 0x04034b50)! - 30;
  const central = at.find((i) => i >= 46 && bytes.readUInt32LE(i - 46) === 0x02014b50)! - 46;
  return { local, central };
}

async function hash(...paths: string[]) {
  const r = await inProcessCli(["hash", ...paths]);
  return { ...r, got: lines(r.stdout) };
}

describe("a zip of images is read as the tar of the same images", () => {
  it("img2dataset's samples zipped (deflated, and stored): the same hash lines and summary as the webdataset tar", async () => {
    const dir = tempDir("paracap-zip-");
    const tar = await buildTar(join(dir, "00000.tar"));
    const fromTar = await hash(tar);
    expect(fromTar.code, fromTar.stderr).toBe(0);
    for (const compress of [true, false]) {
      const zip = join(dir, `00000-${compress}.zip`);
      await zipOf(zip, sampleMembers({ compress }));
      const fromZip = await hash(zip);
      expect(fromZip.code, fromZip.stderr).toBe(0);
      expect(fromZip.got.map(withoutOrigin)).toEqual(fromTar.got.map(withoutOrigin));
      expect(fromZip.got.map((l) => l.origin)).toEqual(fromTar.got.map((l) => String(l.origin).replace(tar, zip)));
      expect(fromZip.stderr).toBe(fromTar.stderr);
    }
    expect(fromTar.got.map((l) => l.caption)).toEqual(SAMPLES.filter((s) => s.image).map((s) => s.caption));
  });

  it("a zip in folder order (captions, then images, then sidecars; a failed download's sidecar alone) equals the tar in that order", async () => {
    const dir = tempDir("paracap-zip-");
    const tar = await buildTar(join(dir, "scattered.tar"), true);
    const got = SAMPLES.filter((s) => s.image);
    const failed = SAMPLES.find((s) => !s.image)!;
    const zip = join(dir, "scattered.zip");
    await zipOf(zip, [
      // named as tar(1) names a folder's files (`./x`), as buildTar's scattered tar is
      ...got.map((s): Member => [`./${s.key}.txt`, s.caption]),
      ...[...got].reverse().map((s): Member => [`./${s.key}.${extname(s.image!).slice(1)}`, readFileSync(s.image!)]),
      ...got.map((s): Member => [`./${s.key}.json`, sidecar(s)]),
      [`./${failed.key}.json`, sidecar(failed)],
    ]);
    const [t, z] = [await hash(tar), await hash(zip)];
    expect(z.got.map(withoutOrigin)).toEqual(t.got.map(withoutOrigin));
    expect(z.stderr).toBe(t.stderr);
    expect(z.stderr).toContain("no_image_file");
  });

  it("photos as people zip them: folders, macOS's __MACOSX/ and ._ entries, zip64 and a UTF-8 name, as the folder of the same photos", async () => {
    const dir = tempDir("paracap-zip-");
    const photos = ["ballon.jpg", "highQuality.jpg", "catCustom.png"];
    const zip = join(dir, "holiday.zip");
    await zipOf(
      zip,
      [
        ["holiday/", ""],
        ["holiday/2019.06.01 beach.jpg", readFileSync(join(J, photos[0]!)), { forceZip64Format: true }],
        ["holiday/Überfahrt.jpg", readFileSync(join(J, photos[1]!))],
        ["holiday/cat.v2.png", readFileSync(join(J, photos[2]!)), { compress: false }],
        ["__MACOSX/", ""],
        ["__MACOSX/holiday/._cat.v2.png", Buffer.from("\0\x05\x16\x07\0\x02\0\0Mac OS X        ")],
        ["holiday/._Überfahrt.jpg", Buffer.from("\0\x05\x16\x07\0\x02\0\0Mac OS X        ")],
      ],
      { forceZip64Format: true },
    );
    const r = await hash(zip);
    expect(r.code, r.stderr).toBe(0);
    expect(r.got.map((l) => l.key)).toEqual(["holiday/2019.06.01 beach", "holiday/Überfahrt", "holiday/cat.v2"]);
    expect(r.got.map((l) => l.origin)).toEqual([`${zip}:holiday/2019.06.01 beach.jpg`, `${zip}:holiday/Überfahrt.jpg`, `${zip}:holiday/cat.v2.png`]);
    expect(r.stderr).toBe("paracap hash: 3 samples, 0 without a decodable image\n");
    const direct = await hash(...photos.map((p) => join(J, p)));
    expect(r.got.map((l) => [l.sha256, l.md5, l.phash])).toEqual(direct.got.map((l) => [l.sha256, l.md5, l.phash]));
  });

  it("a zip in a folder is read there, as a tar shard in it is", async () => {
    const dir = tempDir("paracap-zip-");
    const zip = join(dir, "00000.zip");
    await zipOf(zip, sampleMembers());
    const [inFolder, alone] = [await hash(dir), await hash(zip)];
    expect(inFolder.got).toEqual(alone.got);
    expect(inFolder.stderr).toBe(alone.stderr);
    expect(alone.got).toHaveLength(6);
  });

  it("a name in CP437 (no UTF-8 flag, as older Windows zips write them) is decoded as CP437", async () => {
    const dir = tempDir("paracap-zip-");
    const zip = join(dir, "cp437.zip");
    const bytes = await zipOf(zip, [["cafX.jpg", readFileSync(join(J, "ballon.jpg"))]]);
    const { local, central } = headersOf(bytes, "cafX.jpg");
    for (const [header, flags] of [[local, 6], [central, 8]] as const) {
      bytes[header + (header === local ? 30 : 46) + 3] = 0x82; // é in CP437
      bytes.writeUInt16LE(bytes.readUInt16LE(header + flags) & ~0x800, header + flags);
    }
    writeFileSync(zip, bytes);
    const r = await hash(zip);
    expect(r.got.map((l) => l.key)).toEqual(["café"]);
    expect(r.got[0]!.error).toBeUndefined();
  });
});

describe("damage in a zip", () => {
  const photos = ["ballon.jpg", "thumbnail.jpg", "lowQuality.jpg"];
  const build = async (path: string, compress: boolean) => zipOf(path, photos.map((p): Member => [p, readFileSync(join(J, p)), { compress }]));

  it("a zip cut short (no central directory) is one line, for hash and dedup-images, before any output", async () => {
    const dir = tempDir("paracap-zip-");
    const zip = join(dir, "photos.zip");
    const bytes = await build(zip, true);
    writeFileSync(zip, bytes.subarray(0, bytes.length - 200));
    for (const command of ["hash", "dedup-images"]) {
      const r = await inProcessCli([command, zip]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/photos\.zip: not a readable zip archive \(.*\): a zip lists its members at its end, so one cut short must be fetched again\n$/);
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    }
    // a download that saved the server's error page under the zip's name
    const page = join(dir, "val2017.zip");
    writeFileSync(page, "<!DOCTYPE html><html><body>403 Forbidden</body></html>\n");
    const r = await inProcessCli(["hash", page]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^paracap hash: .*val2017\.zip: not a readable zip archive \(/);
  });

  it("a member whose data is damaged (CRC, inflate), encrypted, or whose size lies: its sample counted without an image, the others read", async () => {
    const dir = tempDir("paracap-zip-");
    const cases: [string, boolean, (b: Buffer, h: { local: number; central: number }) => void, string][] = [
      // a stored member's bytes changed: only the CRC tells
      ["crc", false, (b, h) => void (b[h.local + 30 + "thumbnail.jpg".length + 2000]! ^= 0xff), "damaged_zip_entry"],
      // deflated data overwritten: inflate fails or the CRC differs
      ["inflate", true, (b, h) => b.fill(0x55, h.local + 30 + "thumbnail.jpg".length + 100, h.local + 30 + "thumbnail.jpg".length + 400), "damaged_zip_entry"],
      ["encrypted", true, (b, h) => {
        b.writeUInt16LE(b.readUInt16LE(h.local + 6) | 1, h.local + 6);
        b.writeUInt16LE(b.readUInt16LE(h.central + 8) | 1, h.central + 8);
      }, "encrypted_zip_entry"],
      // the central directory says fewer bytes than it inflates to
      ["size", true, (b, h) => b.writeUInt32LE(1000, h.central + 24), "damaged_zip_entry"],
      // a stored member whose sizes differ
      ["stored-size", false, (b, h) => b.writeUInt32LE(1000, h.central + 24), "damaged_zip_entry"],
      ["method", true, (b, h) => {
        b.writeUInt16LE(14, h.local + 8); // LZMA
        b.writeUInt16LE(14, h.central + 10);
      }, "unsupported_zip_entry"],
    ];
    for (const [what, compress, damage, reason] of cases) {
      const zip = join(dir, `${what}.zip`);
      const bytes = await build(zip, compress);
      damage(bytes, headersOf(bytes, "thumbnail.jpg"));
      writeFileSync(zip, bytes);
      const r = await hash(zip);
      expect(r.code, `${what}: ${r.stderr}`).toBe(0);
      expect(r.got.map((l) => [l.key, l.error ?? null]), what).toEqual([["ballon", null], ["thumbnail", "no_image"], ["lowQuality", null]]);
      expect(r.stderr, what).toBe(`paracap hash: 3 samples, 1 without a decodable image; skipped: 1 ${reason}\n`);
    }
  });
});

const FAST: ParacapConfigInput = { tiers: ["gold", "silver"], scoring: { scorers: ["syntactic"] } };

/** A run's stats without what names its inputs or times it. */
function comparable(stats: ReturnType<typeof readStats>): unknown {
  return JSON.parse(JSON.stringify(stats, (k, v) => (/time|seconds|ms$|Ms$|^started|^finished|^inputs$|^shards$|^out/i.test(k) ? undefined : v)));
}

describe("a zip of images in a run", () => {
  it("--input x.zip: the same stats and datasets as --input x.tar; a damaged member marks the shard damaged", async () => {
    const dir = tempDir("paracap-zip-");
    const tar = await buildTar(join(dir, "00000.tar"));
    const zip = join(dir, "00000.zip");
    await zipOf(zip, sampleMembers());
    const outs = { tar: join(dir, "out-tar"), zip: join(dir, "out-zip") };
    await run(outs.tar, [{ path: tar, kind: "current" }], FAST, { workers: 1 });
    await run(outs.zip, [{ path: zip, kind: "current" }], FAST, { workers: 1 });
    const [t, z] = [readStats(outs.tar), readStats(outs.zip)];
    expect(z.extraction["pixels.samples"]).toBe(6);
    expect(comparable(z)).toEqual(comparable(t));
    expect(z.complete).toBe(true);
    for (const f of ["gold.jsonl", "silver.jsonl"]) expect(readFileSync(join(outs.zip, f), "utf8")).toBe(readFileSync(join(outs.tar, f), "utf8"));

    const bad = join(dir, "bad.zip");
    const bytes = await zipOf(bad, sampleMembers({ compress: false }));
    bytes[headersOf(bytes, "000000001.jpg").local + 30 + 13 + 3000]! ^= 0xff;
    writeFileSync(bad, bytes);
    const badOut = join(dir, "out-bad");
    await run(badOut, [{ path: bad, kind: "current" }], FAST, { workers: 1 });
    const b = readStats(badOut);
    expect(b.extraction["pixels.samples"]).toBe(6);
    expect(b.extraction["pixels.samples.with_image"]).toBe(5);
    expect(b.extraction["pixels.skipped.damaged_zip_entry"]).toBe(1);
    expect(b.shards.corrupt).toEqual([{ shard: expect.any(String), file: bad, offset: null, error: expect.stringMatching(/^.*bad\.zip: 1 zip member\(s\) damaged, encrypted or compressed in a method paracap cannot read/) }]);
    expect(b.complete).toBe(false);
  });

  it("--images x.zip is read as --images of the files folder; a zip holding a caption list is one line saying how to unzip it", async () => {
    const dir = tempDir("paracap-zip-");
    const tsv = join(dir, "cc.tsv");
    writeFileSync(tsv, SAMPLES.map((s) => `${s.caption}\t${s.url}\n`).join(""));
    const zip = join(dir, "images.zip");
    await zipOf(zip, sampleMembers());
    const folder = buildFilesLayout(join(dir, "images"));
    const outs = { zip: join(dir, "out-zip"), folder: join(dir, "out-folder") };
    for (const [out, images] of [[outs.zip, zip], [outs.folder, folder]] as const) {
      const r = await runCli(["run", "--input", tsv, "--images", images, "--out", out, "--quiet", "--tiers", "gold,silver"]);
      expect(r.code, r.stderr).toBe(0);
    }
    const [z, f] = [readStats(outs.zip), readStats(outs.folder)];
    expect(z.extraction["pixels.samples.with_image"]).toBe(6);
    expect(comparable(z)).toEqual(comparable(f));

    const listZip = join(dir, "captions.zip");
    await zipOf(listZip, [["cc.tsv", readFileSync(tsv)]]);
    const r = await runCli(["run", "--input", listZip, "--out", join(dir, "out-list"), "--quiet"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`paracap run: ${listZip} is a zip archive holding cc.tsv: paracap reads zips of images, not a zipped caption list or dump; unzip it (unzip ${listZip} -d ${join(dir, "captions")}) and pass --input ${join(dir, "captions")}/cc.tsv\n`);
  });
});
