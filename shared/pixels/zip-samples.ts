/**
 * Zip archives of images (COCO's val2017.zip, Flickr8k_Dataset.zip, every Kaggle download), read as a
 * tar of the same members is: a member's name gives its key and kind (sample-parts.ts entryKey), a
 * key's image, `.txt` caption and `.json` sidecar make one sample, a key without an image is counted
 * as in a tar. The central directory is read first (yauzl: random access, each member streamed), so
 * members need not be together by key; samples come in the order of their images' members, as a tar
 * keeping its keys together yields them.
 *
 * Damage: an archive without a readable central directory (cut short, not a zip) is UnreadableZip,
 * one line for the caller; a member that cannot be read (CRC or inflate error, a size that lies, a bad
 * local header) is counted `damaged_zip_entry`, an encrypted one `encrypted_zip_entry`, one in a
 * method other than stored or deflate (deflate64, bzip2, lzma, zstd) `unsupported_zip_entry`: its
 * sample has no image (or no caption), the other members are read. macOS's own entries (`__MACOSX/`,
 * `._*` resource forks, `.DS_Store`) hold no picture and are passed over, as directories are.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { Readable } from "node:stream";
import * as zlib from "node:zlib";
import type { Entry, ZipFile } from "yauzl";
import { pixelSourceSkippedCounter } from "../core/counter-names.ts";
import { countImageless, countSample, DEFAULT_MAX_IMAGE_BYTES, entryKey, IMAGE_EXTENSIONS, parseSidecar, sampleOf, type PixelReadOptions, type PixelSample } from "./sample-parts.ts";

/** Where a zip's bytes are: a local file, a ranged reader of known size (a bucket object), or the bytes themselves. */
export type ZipInput = { path: string } | { size: number; read(start: number, end: number): AsyncIterable<Buffer> } | { buffer: Buffer };

/** A zip whose central directory cannot be read: nothing in it can be found. */
export class UnreadableZip extends Error {
  /** the message without the archive's name */
  readonly reason: string;
  constructor(label: string, cause: unknown) {
    const reason = `not a readable zip archive (${String((cause as Error)?.message ?? cause).trim()}): a zip lists its members at its end, so one cut short must be fetched again`;
    super(`${label}: ${reason}`, { cause });
    this.name = "UnreadableZip";
    this.reason = reason;
  }
}

/** Why a member's bytes were not read (the counter's reason). */
export const ZIP_ENTRY_SKIPS = ["damaged_zip_entry", "encrypted_zip_entry", "unsupported_zip_entry"] as const;
type EntrySkip = (typeof ZIP_ENTRY_SKIPS)[number];

/** A file whose first bytes are a zip's (a local file header, or the end record of an empty one). */
export function startsAsZip(head: Uint8Array): boolean {
  return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6));
}

/** A regular file on this machine that starts as a zip archive does (its first four bytes); I/O errors are thrown. */
export function fileStartsAsZip(path: string): boolean {
  if (!statSync(path).isFile()) return false;
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(4);
    return startsAsZip(head.subarray(0, readSync(fd, head, 0, 4, 0)));
  } finally {
    closeSync(fd);
  }
}

/** The zip's central directory, opened (loaded at first use, as tar-stream is). */
async function openZip(input: ZipInput, label: string): Promise<ZipFile> {
  const { default: yauzl } = await import("yauzl");
  // names decoded here (decodeStrings: yauzl would end the whole listing at one absolute or `..` name);
  // sizes checked here (validateEntrySizes: one stored member whose sizes differ would end it too)
  const options = { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: false };
  try {
    if ("path" in input) return await yauzl.openPromise(input.path, options);
    if ("buffer" in input) return await yauzl.fromBufferPromise(input.buffer, options);
    const ranged = input;
    class RangeReader extends yauzl.RandomAccessReader {
      override _readStreamForRange(start: number, end: number): Readable {
        return Readable.from(ranged.read(start, end));
      }
    }
    return await yauzl.fromRandomAccessReaderPromise(new RangeReader(), input.size, options);
  } catch (e) {
    throw new UnreadableZip(label, e);
  }
}

/** Every member the central directory lists, with its name decoded (UTF-8 when flagged or given in a Unicode path field, CP437 otherwise). */
async function listMembers(zip: ZipFile, label: string): Promise<{ name: string; entry: Entry }[]> {
  const { getFileNameLowLevel } = (await import("yauzl")).default;
  const out: { name: string; entry: Entry }[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on("entry", (entry: Entry) => {
        out.push({ name: getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, false), entry });
        zip.readEntry();
      });
      zip.on("end", () => resolve());
      zip.on("error", reject);
      zip.readEntry();
    });
  } catch (e) {
    zip.close();
    throw new UnreadableZip(label, e);
  }
  return out;
}

/** Entries macOS adds to the archives it makes: no picture in them. */
function isMacMetadata(name: string): boolean {
  const base = name.slice(name.lastIndexOf("/") + 1);
  return name.startsWith("__MACOSX/") || base.startsWith("._") || base === ".DS_Store";
}

/** A symbolic link stored as a member (Info-ZIP's `zip -y`): its bytes are a path, not an image. */
function isSymlink(entry: Entry): boolean {
  return entry.versionMadeBy >> 8 === 3 && ((entry.externalFileAttributes >>> 16) & 0o170000) === 0o120000;
}

const crc32 = (data: Buffer): number => (zlib as { crc32?: (d: Buffer) => number }).crc32?.(data) ?? crc32Js(data);

let crcTable: Uint32Array | null = null;
/** CRC-32 for Node 20 before 20.15 (no zlib.crc32). */
function crc32Js(data: Buffer): number {
  crcTable ??= Uint32Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  let crc = 0xffffffff;
  for (const byte of data) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** A member's bytes, checked against its declared size and CRC (yauzl checks neither here); or why they are not read. */
async function memberBytes(zip: ZipFile, entry: Entry): Promise<Buffer | EntrySkip> {
  if (entry.isEncrypted()) return "encrypted_zip_entry";
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) return "unsupported_zip_entry";
  if (entry.compressionMethod === 0 && entry.compressedSize !== entry.uncompressedSize) return "damaged_zip_entry";
  try {
    const stream = await zip.openReadStreamPromise(entry);
    const chunks: Buffer[] = [];
    let n = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      n += chunk.length;
      // more than declared: a lie (or a bomb); stopped here rather than inflated to its end
      if (n > entry.uncompressedSize) return "damaged_zip_entry";
      chunks.push(chunk);
    }
    const data = Buffer.concat(chunks);
    return n === entry.uncompressedSize && crc32(data) === entry.crc32 ? data : "damaged_zip_entry";
  } catch {
    return "damaged_zip_entry"; // a bad local header, data that does not inflate, a read cut short
  }
}

interface KeyMembers {
  key: string;
  /** each kind's first member (a second image of the key is counted same_key) */
  files: Map<string, { name: string; entry: Entry }>;
  /** the position of its first image member: the sample's place in the archive */
  at: number;
}

/** The members of a zip, grouped by key as the tar reader groups them. */
function groupByKey(members: readonly { name: string; entry: Entry }[], opts: PixelReadOptions): KeyMembers[] {
  const byKey = new Map<string, KeyMembers>();
  members.forEach((m, i) => {
    if (m.name.endsWith("/") || isMacMetadata(m.name)) return;
    if (isSymlink(m.entry)) return opts.counters.inc(pixelSourceSkippedCounter("zip_link"));
    const { key, ext } = entryKey(m.name);
    let group = byKey.get(key);
    if (!group) byKey.set(key, (group = { key, files: new Map(), at: Infinity }));
    const image = IMAGE_EXTENSIONS.has(ext);
    if (group.files.has(ext)) {
      // the same name twice (an archive appended to): its first is read; for an image, counted as a second image
      if (image) opts.counters.inc(pixelSourceSkippedCounter("same_key"));
      return;
    }
    group.files.set(ext, m);
    if (image && group.at === Infinity) group.at = i;
  });
  return [...byKey.values()];
}

/**
 * A zip's samples. Throws UnreadableZip before any sample when its central directory cannot be read.
 * `label` names the archive in each sample's origin (`<label>:<member>`).
 */
export async function* readZipSamples(input: ZipInput, label: string, opts: PixelReadOptions): AsyncGenerator<PixelSample> {
  const max = opts.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES;
  const zip = await openZip(input, label);
  try {
    const groups = groupByKey(await listMembers(zip, label), opts);
    const read = async (m: { entry: Entry } | undefined): Promise<Buffer | null> => {
      if (m === undefined || m.entry.uncompressedSize > max) return null;
      const got = await memberBytes(zip, m.entry);
      if (typeof got !== "string") return got;
      opts.counters.inc(pixelSourceSkippedCounter(got));
      return null;
    };
    for (const g of groups.filter((g) => g.at !== Infinity).sort((a, b) => a.at - b.at)) {
      const images = [...g.files.entries()].filter(([ext]) => IMAGE_EXTENSIONS.has(ext));
      if (images.length > 1) opts.counters.inc(pixelSourceSkippedCounter("same_key"), images.length - 1);
      const [, image] = images[0]!;
      let bytes: Uint8Array | null = null;
      if (image.entry.uncompressedSize > max) opts.counters.inc(pixelSourceSkippedCounter("too_large"));
      else {
        const got = await read(image);
        if (got !== null) bytes = new Uint8Array(got.buffer, got.byteOffset, got.byteLength);
      }
      const caption = (await read(g.files.get("txt")))?.toString("utf8") ?? null;
      const sidecarText = (await read(g.files.get("json")))?.toString("utf8") ?? null;
      const sidecar = sidecarText === null ? null : parseSidecar(sidecarText, opts.counters);
      yield* countSample(sampleOf(g.key, bytes, caption, sidecar, `${label}:${image.name}`), opts.counters);
    }
    // captions and sidecars whose key has no image (failed downloads), other files
    for (const g of groups) if (g.at === Infinity) countImageless(g.key, g.files.keys(), opts.counters);
  } finally {
    zip.close();
  }
}

/** Opens the central directory and closes it: UnreadableZip when it cannot be read (a command's check before it writes anything). */
export async function checkZip(input: ZipInput, label: string): Promise<void> {
  const zip = await openZip(input, label);
  await listMembers(zip, label);
  zip.close();
}

/** The names a zip holds, in its central directory's order (UnreadableZip when there is none). */
export async function zipMemberNames(input: ZipInput, label: string): Promise<string[]> {
  const zip = await openZip(input, label);
  const members = await listMembers(zip, label);
  zip.close();
  return members.map((m) => m.name);
}
