/**
 * Where pixels come from: the outputs of img2dataset (the tool people download Conceptual Captions,
 * LAION or WIT images with), read as a stream of samples `{ key, url, caption, bytes }`.
 *
 * - `files` layout: `<dir>/<shard>/<key>.jpg` + `<key>.txt` (caption) + `<key>.json` (url, width,
 *   height, status, …), read folder by folder in name order;
 * - `webdataset` layout: `.tar` shards holding the same files, consecutive per key (tar-stream);
 * - `parquet`: the per-shard results table (one row per URL, failures included: `bytes` null) or the
 *   `parquet` output format, whose `jpg` column holds the image.
 *
 * Samples are yielded one at a time (memory: one image); entries over `maxImageBytes` are skipped,
 * and sidecars that do not parse are counted, never fatal. A key has one image: a second image file
 * of the same key (`x.jpg` beside `x.png`) is counted `same_key`.
 */
import { createReadStream } from "node:fs";
import { open, readFile, stat } from "node:fs/promises";
import { folderEntries, walkFrom } from "../io/folder-entries.ts";
import { parquetCompressors } from "../io/parquet-codecs.ts";
import { basename, extname, join } from "node:path";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import type { parquetMetadataAsync } from "hyparquet";
import { pixelSourceSkippedCounter } from "../core/counter-names.ts";
import type { Counters } from "../core/counters.ts";
import { readZipSamples, startsAsZip, UnreadableZip } from "./zip-samples.ts";
import { countImageless, countSample, DEFAULT_MAX_IMAGE_BYTES, entryKey, IMAGE_EXTENSIONS, parseSidecar, sampleOf, SidecarSchema, type PixelReadOptions, type PixelSample } from "./sample-parts.ts";

export { DEFAULT_MAX_IMAGE_BYTES, IMAGE_EXTENSIONS, SidecarSchema, type PixelReadOptions, type PixelSample } from "./sample-parts.ts";

/** Samples of every input: a directory (files layout, recursively), a `.tar` or `.zip` archive, a `.parquet` table or one image file. */
export async function* readPixelInputs(paths: readonly string[], opts: PixelReadOptions): AsyncGenerator<PixelSample> {
  for (const path of paths) {
    const info = await stat(path);
    if (info.isDirectory()) yield* readImg2datasetFolder(path, opts);
    else if (/\.zip$/i.test(path) || (await isZipFile(path))) yield* readZipFile(path, opts);
    else if (/\.tar$/i.test(path)) yield* readTarSamples(() => createReadStream(path), path, opts);
    else if (/\.(tar\.gz|tgz)$/i.test(path)) yield* readTarSamples(() => createReadStream(path).pipe(createGunzip()), path, opts);
    else if (/\.parquet$/i.test(path)) yield* readImg2datasetParquet(path, opts);
    else if (info.size > (opts.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES)) {
      // as in a folder: not read (a 3 GB file would not even fit a buffer)
      opts.counters.inc(pixelSourceSkippedCounter("too_large"));
      yield* countSample({ ...imageFileSample(path, new Uint8Array(0)), bytes: null }, opts.counters);
    } else yield* countSample(imageFileSample(path, await readFile(path)), opts.counters);
  }
}

/** A file whose first bytes are a zip's, whatever its name (a download saved without its extension). */
async function isZipFile(path: string): Promise<boolean> {
  const fh = await open(path, "r");
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await fh.read(head, 0, 4, 0);
    return startsAsZip(head.subarray(0, bytesRead));
  } finally {
    await fh.close();
  }
}

/** A zip's samples; one whose central directory cannot be read is counted `damaged_zip` (as a tar cut short is counted), its members lost. */
async function* readZipFile(path: string, opts: PixelReadOptions): AsyncGenerator<PixelSample> {
  try {
    yield* readZipSamples({ path }, path, opts);
  } catch (e) {
    if (!(e instanceof UnreadableZip)) throw e;
    opts.counters.inc(pixelSourceSkippedCounter("damaged_zip"));
  }
}

function imageFileSample(path: string, bytes: Uint8Array): PixelSample {
  return { key: basename(path, extname(path)), url: null, caption: null, bytes, status: null, origin: path };
}

/**
 * The `files` layout: every folder under `dir` in name order; a key's image, caption and sidecar
 * together. img2dataset's other output formats may sit in the same folders: its webdataset `.tar`
 * shards are read as tars, a `.parquet` shard holding the images (the `parquet` format) as parquet,
 * while a results `.parquet` beside its shard (a `00000/` folder or `00000.tar`) is bookkeeping.
 * `rel`: the folder's path under the root, which keys a sample without a sidecar key (two folders'
 * `photo.jpg` are two pictures).
 */
export async function* readImg2datasetFolder(dir: string, opts: PixelReadOptions, seen?: Set<string>, rel = ""): AsyncGenerator<PixelSample> {
  const max = opts.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES;
  seen ??= await walkFrom(dir);
  const entries = await folderEntries(dir, seen);
  const byStem = new Map<string, Map<string, string>>();
  const dirs = new Set(entries.filter((e) => e.kind === "dir").map((e) => e.name));
  for (const e of entries) {
    if (e.kind === "dir") continue;
    const ext = extname(e.name);
    const stem = e.name.slice(0, e.name.length - ext.length);
    if (!byStem.has(stem)) byStem.set(stem, new Map());
    const files = byStem.get(stem)!;
    const kind = ext.slice(1).toLowerCase();
    // two names that are one here (names that are not UTF-8, read as the same replacement characters)
    if (files.has(kind)) opts.counters.inc(pixelSourceSkippedCounter("same_key"));
    else files.set(kind, join(dir, e.name));
  }
  for (const [stem, files] of byStem) {
    const tarShard = files.get("tar");
    if (tarShard !== undefined) {
      // a webdataset shard (its results .parquet and _stats.json beside it are bookkeeping)
      yield* readTarSamples(() => createReadStream(tarShard), tarShard, opts);
      continue;
    }
    const zip = files.get("zip");
    if (zip !== undefined) {
      // a zip of images beside the folder's other files is read as a tar shard there is
      yield* readZipFile(zip, opts);
      continue;
    }
    const parquet = files.get("parquet");
    if (parquet !== undefined && ![...files.keys()].some((k) => IMAGE_EXTENSIONS.has(k))) {
      if (!(await isResultsTable(parquet, dirs, stem))) yield* readImg2datasetParquet(parquet, opts);
      continue;
    }
    const images = [...files.entries()].filter(([ext]) => IMAGE_EXTENSIONS.has(ext));
    const imagePath = images[0]?.[1];
    if (!imagePath) {
      countImageless(stem, files.keys(), opts.counters);
      continue;
    }
    // `x.jpg` and `x.png` side by side: one sample per key, the others counted, never silently lost
    if (images.length > 1) opts.counters.inc(pixelSourceSkippedCounter("same_key"), images.length - 1);
    let bytes: Uint8Array | null = null;
    try {
      if ((await stat(imagePath)).size > max) opts.counters.inc(pixelSourceSkippedCounter("too_large"));
      else bytes = new Uint8Array(await readFile(imagePath));
    } catch {
      // a dangling symlink, a file without read permission: a sample without an image, counted
      opts.counters.inc(pixelSourceSkippedCounter("unreadable_file"));
    }
    const caption = await readSidecarFile(files.get("txt"), opts.counters);
    const sidecarText = await readSidecarFile(files.get("json"), opts.counters);
    const sidecar = sidecarText === null ? null : parseSidecar(sidecarText, opts.counters);
    // (img2dataset's keys, all digits with the shard's number first, are unique across its folders)
    const key = sidecar?.key ?? (rel === "" || /^\d+$/.test(stem) ? stem : `${rel}/${stem}`);
    yield* countSample(sampleOf(key, bytes, caption, sidecar, imagePath), opts.counters);
  }
  for (const e of entries) if (e.kind === "dir") yield* readImg2datasetFolder(join(dir, e.name), opts, seen, rel === "" ? e.name : `${rel}/${e.name}`);
}

/** A caption or sidecar file's text; one that cannot be read (a dangling or looping link, no permission) is counted and absent. */
async function readSidecarFile(path: string | undefined, counters: Counters): Promise<string | null> {
  if (path === undefined) return null;
  try {
    return await readFile(path, "utf8");
  } catch {
    counters.inc(pixelSourceSkippedCounter("unreadable_file"));
    return null;
  }
}

/** Whether a `.parquet` in a folder is img2dataset's results table (no image column) rather than a `parquet`-format shard. */
async function isResultsTable(path: string, dirs: ReadonlySet<string>, stem: string): Promise<boolean> {
  if (dirs.has(stem)) return true;
  try {
    const { asyncBufferFromFile, parquetMetadataAsync } = await import("hyparquet");
    const metadata = await parquetMetadataAsync(await asyncBufferFromFile(path));
    return !metadata.schema.some((c) => IMAGE_EXTENSIONS.has(c.name));
  } catch {
    return false; // read as parquet, which counts its damage
  }
}


type TarInput = AsyncIterable<Uint8Array> | NodeJS.ReadableStream;

/**
 * A tar's entries as tar-stream reads them (loaded at first use: every run command imports this
 * module, few read a tar, ~35 ms of CPU); `stop` ends the reading of the input early.
 */
async function tarEntries(input: TarInput) {
  const { default: tar } = await import("tar-stream");
  const extract = tar.extract();
  const source = Readable.from(input as AsyncIterable<Uint8Array>);
  source.on("error", (err) => extract.destroy(err));
  source.pipe(extract);
  return { entries: extract, stop: () => source.destroy() };
}

/** An entry's bytes. */
async function entryBytes(entry: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of entry) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Entries looked at to tell whether a tar keeps each key's files together (img2dataset's, webdataset's writers do). */
const ORDER_PREFIX = 64;
/** Most bytes of captions and sidecars held when a tar's keys are not together. */
const MAX_HELD_SIDECAR_BYTES = 256 << 20;

/**
 * A webdataset tar's samples, whatever the order of its entries: `open` reads the tar from its
 * start (called more than once). A tar whose first entries keep each key's files together is read
 * in one pass (readWebdatasetTar); one packed in directory order (`tar cf x.tar -C dir .`) is read
 * twice: its captions and sidecars first, then its images, each joined with its key's.
 */
export async function* readTarSamples(open: () => TarInput, label: string, opts: PixelReadOptions): AsyncGenerator<PixelSample> {
  if (await keysTogether(open())) return yield* readWebdatasetTar(open(), label, opts);
  const held = await heldSidecars(open());
  if (held === null) return yield* readWebdatasetTar(open(), label, opts); // cut, or too much to hold: read as it comes
  const max = opts.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES;
  const { entries } = await tarEntries(open());
  const done = new Set<string>();
  try {
    for await (const entry of entries) {
      const { key, ext } = entryKey(entry.header.name);
      if (entry.header.type !== "file" || !IMAGE_EXTENSIONS.has(ext)) {
        entry.resume();
        continue;
      }
      if (done.has(key)) {
        opts.counters.inc(pixelSourceSkippedCounter("same_key"));
        entry.resume();
        continue;
      }
      done.add(key);
      const side = held.get(key);
      held.delete(key);
      const text = (e: string) => (side?.has(e) ? side.get(e)!.toString("utf8") : null);
      const sidecarText = text("json");
      const sidecar = sidecarText === null ? null : parseSidecar(sidecarText, opts.counters);
      let bytes: Uint8Array | null = null;
      if ((entry.header.size ?? 0) > max) {
        opts.counters.inc(pixelSourceSkippedCounter("too_large"));
        entry.resume();
      } else {
        bytes = new Uint8Array(await entryBytes(entry));
      }
      yield* countSample(sampleOf(key, bytes, text("txt"), sidecar, `${label}:${entry.header.name}`), opts.counters);
    }
  } catch {
    opts.counters.inc(pixelSourceSkippedCounter("truncated_tar"));
  }
  // captions and sidecars whose key has no image (failed downloads)
  for (const [key, side] of held) countImageless(key, side.keys(), opts.counters);
}

/** Whether the tar's first entries keep each key's files together; a tar that cannot be read says yes (the one-pass reader counts it). */
async function keysTogether(input: TarInput): Promise<boolean> {
  const { entries, stop } = await tarEntries(input);
  const seen = new Set<string>();
  let last: string | null = null;
  let n = 0;
  try {
    for await (const entry of entries) {
      entry.resume();
      if (entry.header.type !== "file") continue;
      const { key } = entryKey(entry.header.name);
      if (key !== last) {
        if (seen.has(key)) return false;
        seen.add(key);
        last = key;
      }
      if (++n >= ORDER_PREFIX) break;
    }
  } catch {
    // read by the one-pass reader, which counts the damage
  } finally {
    stop();
  }
  return true;
}

/** Every key's files other than images (captions, sidecars), or null when the tar is cut or holds too many bytes of them. */
async function heldSidecars(input: TarInput): Promise<Map<string, Map<string, Buffer>> | null> {
  const { entries, stop } = await tarEntries(input);
  const held = new Map<string, Map<string, Buffer>>();
  let bytes = 0;
  try {
    for await (const entry of entries) {
      const { key, ext } = entryKey(entry.header.name);
      if (entry.header.type !== "file" || IMAGE_EXTENSIONS.has(ext)) {
        entry.resume();
        continue;
      }
      const size = entry.header.size ?? 0;
      if ((bytes += size) > MAX_HELD_SIDECAR_BYTES) return null;
      const text = await entryBytes(entry);
      if (!held.has(key)) held.set(key, new Map());
      held.get(key)!.set(ext, text);
    }
  } catch {
    return null;
  } finally {
    stop();
  }
  return held;
}

/**
 * The `webdataset` layout: a tar whose consecutive entries `<key>.<ext>` form one sample. A tar cut
 * short (inside an entry, or at an entry's end: no end-of-archive blocks) ends the shard with the
 * samples read before its last key (counted `truncated_tar`).
 */
export async function* readWebdatasetTar(stream: TarInput, label: string, opts: PixelReadOptions): AsyncGenerator<PixelSample> {
  const max = opts.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES;
  // the last 1 KiB read: a whole tar ends with two zero blocks, one cut at an entry's end does not
  let tail: Buffer = Buffer.alloc(0);
  const tracked = (async function* () {
    for await (const chunk of stream as AsyncIterable<Uint8Array>) {
      const b = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      tail = b.length >= 1024 ? b.subarray(b.length - 1024) : Buffer.concat([tail, b]).subarray(-1024);
      yield b;
    }
  })();
  const { entries } = await tarEntries(tracked);
  // names: each kind's member name as written in the tar (the origin names it, whatever its case)
  let current: { key: string; files: Map<string, Uint8Array | "too_large">; names: Map<string, string> } | null = null;
  const flush = function* (this: void, c: NonNullable<typeof current>): Generator<PixelSample> {
    const images = [...c.files.entries()].filter(([ext]) => IMAGE_EXTENSIONS.has(ext));
    const image = images[0];
    if (!image) {
      countImageless(c.key, c.files.keys(), opts.counters);
      return;
    }
    if (images.length > 1) opts.counters.inc(pixelSourceSkippedCounter("same_key"), images.length - 1);
    const text = (ext: string) => (c.files.get(ext) instanceof Uint8Array ? Buffer.from(c.files.get(ext) as Uint8Array).toString("utf8") : null);
    if (image[1] === "too_large") opts.counters.inc(pixelSourceSkippedCounter("too_large"));
    const sidecarText = text("json");
    const sidecar = sidecarText === null ? null : parseSidecar(sidecarText, opts.counters);
    yield* countSample(sampleOf(c.key, image[1] === "too_large" ? null : image[1], text("txt"), sidecar, `${label}:${c.names.get(image[0]) ?? `${c.key}.${image[0]}`}`), opts.counters);
  };
  try {
    for await (const entry of entries) {
      if (entry.header.type !== "file") {
        // a link (tar(1) writes a file linked twice as a hard link) holds no bytes of its own: counted, not read
        if (entry.header.type === "link" || entry.header.type === "symlink") opts.counters.inc(pixelSourceSkippedCounter("tar_link"));
        entry.resume();
        continue;
      }
      const { key, ext } = entryKey(entry.header.name);
      if (current && current.key !== key) {
        yield* flush(current);
        current = null;
      }
      current ??= { key, files: new Map(), names: new Map() };
      current.names.set(ext, entry.header.name);
      if ((entry.header.size ?? 0) > max) {
        entry.resume();
        current.files.set(ext, "too_large");
        continue;
      }
      current.files.set(ext, new Uint8Array(await entryBytes(entry)));
    }
    // ended at an entry's end without the end-of-archive blocks: cut there, its last sample maybe without its last files
    if (tail.length < 1024 || tail.some((byte) => byte !== 0)) throw new Error("no end-of-archive blocks");
  } catch {
    opts.counters.inc(pixelSourceSkippedCounter("truncated_tar"));
    current = null; // its last entry may be cut
  }
  if (current) yield* flush(current);
}

/**
 * img2dataset's parquet: the results table (no image: bytes null) or the `parquet` output format (image
 * in `jpg`). A file that is cut (its footer, the only map of its rows, is gone) or not parquet is one
 * `damaged_parquet`; with its footer whole, a row group that does not decode (or not to its count of
 * rows) is passed over and the others read, the file counted once.
 */
export async function* readImg2datasetParquet(path: string, opts: PixelReadOptions): AsyncGenerator<PixelSample> {
  const max = opts.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES;
  const damaged = () => opts.counters.inc(pixelSourceSkippedCounter("damaged_parquet"));
  // loaded at first use, as tar-stream (~50 ms of CPU)
  const { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } = await import("hyparquet");
  const file = await asyncBufferFromFile(path);
  const compressors = await parquetCompressors();
  let metadata: Awaited<ReturnType<typeof parquetMetadataAsync>>;
  try {
    metadata = await parquetMetadataAsync(file);
  } catch {
    return damaged();
  }
  let lost = false;
  let read = 0;
  for (const group of metadata.row_groups) {
    const groupRows = Number(group.num_rows);
    let rows: Record<string, unknown>[];
    try {
      // each group alone: a damaged count in one does not shift where the others' rows are looked for;
      // utf8: false: an image column (BYTE_ARRAY without a string annotation) stays bytes
      rows = await parquetReadObjects({ file, metadata: { ...metadata, row_groups: [group] }, rowStart: 0, rowEnd: groupRows, utf8: false, compressors });
    } catch {
      rows = [];
    }
    if (!(Number.isSafeInteger(groupRows) && groupRows >= 0 && rows.length === groupRows)) lost = true;
    read += rows.length;
    for (const row of rows) {
      const sidecar = SidecarSchema.safeParse(row);
      if (!sidecar.success || typeof sidecar.data.key !== "string") {
        opts.counters.inc(pixelSourceSkippedCounter("bad_row"));
        continue;
      }
      let bytes = imageColumn(row);
      if (bytes !== null && bytes.length > max) {
        opts.counters.inc(pixelSourceSkippedCounter("too_large"));
        bytes = null;
      }
      yield* countSample(sampleOf(sidecar.data.key, bytes, null, sidecar.data, path), opts.counters);
    }
  }
  // the footer's own total: rows a damaged group count hid
  if (read !== Number(metadata.num_rows)) lost = true;
  if (lost) damaged();
}

function imageColumn(row: Record<string, unknown>): Uint8Array | null {
  for (const ext of IMAGE_EXTENSIONS) if (row[ext] instanceof Uint8Array) return row[ext];
  return null;
}
