/**
 * img2dataset outputs (how Conceptual Captions, LAION or WIT images are downloaded) as an input of
 * `paracap run`: a webdataset `.tar` shard or a `.zip` of the same files (locally or uploaded), or a local `files` folder. One
 * sample (`{key}.jpg` + `{key}.txt` caption + `{key}.json` with url) is one document with one
 * reference, whose caption is the sample's; the reference names the image by its normalised URL (the
 * sample's own key when the sidecar has none), and the document carries the image bytes for the
 * pixel pipeline (image-bytes.ts). Readers: shared/pixels/img2dataset.ts.
 */
import { readdirSync, statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import { PIXELS_SKIPPED_PREFIX, pixelSourceCounter, pixelSourceSkippedCounter } from "../../core/counter-names.ts";
import { DumpError } from "../../dump/errors.ts";
import { IMAGE_EXTENSIONS, readImg2datasetFolder, readTarSamples, type PixelSample } from "../../pixels/img2dataset.ts";
import { readZipSamples, startsAsZip, UnreadableZip, ZIP_ENTRY_SKIPS, type ZipInput } from "../../pixels/zip-samples.ts";
import type { ByteSource } from "../../io/byte-source.ts";
import { imageUrlKey } from "../caption-tsv/image-url.ts";
import type { ImageBytes, ImageBytesSource } from "../image-bytes.ts";
import type { DocumentRefs, Source } from "../source.ts";

/** One sample as a document: where it came from, its caption, its image key and bytes. */
export interface Img2datasetSample {
  /** the input file or folder (base name): the page's prefix */
  file: string;
  key: string;
  caption: string | null;
  /** the reference's image key: the normalised URL, or `<file>#<key>` without one */
  image: string;
  bytes: Uint8Array | null;
}

const SIDE_EXTENSIONS = new Set(["txt", "json"]);

/** A tar name ending `.tar`, whose first member (when the head shows one) is a sample file (`<key>.<jpg|txt|json>`). */
function claimsTar(fileName: string, head: Buffer): boolean {
  if (!/\.tar$/i.test(fileName)) return false;
  if (head.length < 512) return true;
  // the first file entry decides: directory entries (`./`, `00000/`, as `tar -c .` writes) are passed over
  for (let at = 0; at + 512 <= head.length; at += 512) {
    const name = head.toString("latin1", at, at + 100).replace(/\0.*$/s, "");
    const type = String.fromCharCode(head[at + 156]!);
    if (name === "") return false;
    if (type === "5" || name.endsWith("/")) continue;
    const base = name.slice(name.lastIndexOf("/") + 1);
    const ext = base.slice(base.indexOf(".") + 1).toLowerCase();
    return IMAGE_EXTENSIONS.has(ext) || SIDE_EXTENSIONS.has(ext);
  }
  // only directories in the bytes looked at: a tar of folders, as webdataset shards are packed
  return true;
}

/**
 * A zip named `.zip` whose first member (when the head shows one) is a sample file or a folder: a zip of
 * images (COCO's val2017.zip). One holding a caption list (`cc.tsv`) is not claimed (the run says to unzip it).
 */
function claimsZip(fileName: string, head: Buffer): boolean {
  if (!/\.zip$/i.test(fileName)) return false;
  if (head.length < 30) return true;
  if (!startsAsZip(head)) return false;
  if (head[2] === 5) return true; // an empty zip: read as one without samples
  const name = head.toString("latin1", 30, 30 + head.readUInt16LE(26));
  if (name.endsWith("/") || name.startsWith("__MACOSX/")) return true;
  const { ext } = zipMemberKind(name);
  return IMAGE_EXTENSIONS.has(ext) || SIDE_EXTENSIONS.has(ext);
}

/** A member name's kind as the tar check tells it (after the first dot), or its last extension when that is an image's. */
function zipMemberKind(name: string): { ext: string } {
  const base = name.slice(name.lastIndexOf("/") + 1);
  const ext = base.slice(base.indexOf(".") + 1).toLowerCase();
  const last = extname(base).slice(1).toLowerCase();
  return { ext: IMAGE_EXTENSIONS.has(last) ? last : ext };
}

/** Where a zip shard's bytes are: ranged reads of the file or object when its size is known, else the whole (an object of unknown size). */
async function zipInputOf(bytes: ByteSource): Promise<ZipInput> {
  const size = bytes.size ?? (bytes.localPath !== undefined ? statSync(bytes.localPath).size : undefined);
  if (size !== undefined) return { size, read: (start, end) => bytes.read(start, end) };
  const chunks: Buffer[] = [];
  for await (const chunk of bytes.read()) chunks.push(chunk);
  return { buffer: Buffer.concat(chunks) };
}

/** A zip shard's samples: an unreadable archive is counted `damaged_zip` and reported, as a tar with no whole entry is. */
async function* zipShardSamples(bytes: ByteSource, counters: Parameters<typeof readZipSamples>[2]["counters"]): AsyncGenerator<PixelSample> {
  try {
    yield* readZipSamples(await zipInputOf(bytes), bytes.label, { counters });
  } catch (e) {
    if (!(e instanceof UnreadableZip)) throw e;
    counters.inc(pixelSourceSkippedCounter("damaged_zip"));
    throw new DumpError(bytes.label, null, e.reason);
  }
}

/** A folder with an image beside a `.txt` or `.json` of the same name, in it or one level down. */
export function claimsFolder(path: string): boolean {
  const looks = (dir: string) => {
    const names = new Set(readdirSync(dir));
    // the files layout (an image beside its caption or sidecar), or the webdataset and parquet formats'
    // shards with img2dataset's `<shard>_stats.json`
    if ([...names].some((n) => /\.(tar|parquet)$/i.test(n) && names.has(`${basename(n, extname(n))}_stats.json`))) return true;
    return [...names].some((n) => IMAGE_EXTENSIONS.has(extname(n).slice(1).toLowerCase()) && [...SIDE_EXTENSIONS].some((e) => names.has(`${basename(n, extname(n))}.${e}`)));
  };
  try {
    if (looks(path)) return true;
    return readdirSync(path, { withFileTypes: true }).some((e) => e.isDirectory() && looks(join(path, e.name)));
  } catch {
    return false;
  }
}

async function isDirectory(uri: string): Promise<boolean> {
  try {
    return (await stat(uri)).isDirectory();
  } catch {
    return false; // an object name in the cloud
  }
}

function sampleDoc(file: string, s: PixelSample): Img2datasetSample {
  const url = s.url === null ? null : imageUrlKey(s.url);
  const image = url !== null && "key" in url ? url.key : `${file}#${s.key}`;
  return { file, key: s.key, caption: s.caption, image, bytes: s.bytes };
}

export const img2datasetSource: Source<Img2datasetSample> & ImageBytesSource = {
  name: "img2dataset",
  carriesImages: true,
  description: "img2dataset output: a webdataset .tar (or a .zip of images) or a files folder ({key}.jpg + {key}.txt caption + {key}.json with url)",
  counterPrefix: "pixels",
  documentsCounter: pixelSourceCounter("samples"),
  documentsNoun: "samples",
  document: { one: "sample", other: "samples" },
  claims: (fileName, head) => claimsTar(fileName, head) || claimsZip(fileName, head),
  claimsDirectory: claimsFolder,
  uploadRole: (name) => (/\.(tar|zip)$/i.test(name) ? { role: "input" } : null),
  async *documents(shard, bytes, _config, counters) {
    const file = basename(shard.uri);
    const cut = pixelSourceSkippedCounter("truncated_tar");
    const cutBefore = counters.get(cut);
    const damagedParquet = pixelSourceSkippedCounter("damaged_parquet");
    const damagedBefore = counters.get(damagedParquet);
    const zipSkips = ZIP_ENTRY_SKIPS.map((r) => pixelSourceSkippedCounter(r));
    const damagedZipBefore = counters.get(pixelSourceSkippedCounter("damaged_zip"));
    const zipSkipsBefore = zipSkips.reduce((n, c) => n + counters.get(c), 0);
    const samples = (await isDirectory(shard.uri))
      ? readImg2datasetFolder(shard.uri, { counters })
      : /\.zip$/i.test(shard.uri)
        ? zipShardSamples(bytes, counters)
        : readTarSamples(() => bytes.read(), bytes.label, { counters });
    let read = 0;
    for await (const s of samples) {
      read++;
      yield sampleDoc(file, s);
    }
    // as a truncated dump: the samples read are used, and the shard is reported damaged (complete: false)
    if (counters.get(cut) > cutBefore) {
      throw new DumpError(bytes.label, null, read > 0 ? "the tar is cut short: the samples after its last whole entry are lost, the rest was read" : "no whole tar entry could be read: not a tar, or damaged from its start");
    }
    // as a tar cut short: the members that could be read were, the shard is reported damaged
    if (counters.get(pixelSourceSkippedCounter("damaged_zip")) > damagedZipBefore) throw new DumpError(bytes.label, null, "a zip in the folder is not a readable zip archive (no central directory: cut short?): its members are lost, the rest was read");
    const badMembers = zipSkips.reduce((n, c) => n + counters.get(c), 0) - zipSkipsBefore;
    if (badMembers > 0) throw new DumpError(bytes.label, null, `${badMembers} zip member(s) damaged, encrypted or compressed in a method paracap cannot read (see the skipped counts): the others were read, these are lost`);
    const damaged = counters.get(damagedParquet) - damagedBefore;
    if (damaged > 0) throw new DumpError(bytes.label, null, `${damaged} parquet file(s) cut or damaged: the rows that could be read were read, the others are lost`);
  },
  createExtractor() {
    return (doc: Img2datasetSample): DocumentRefs => {
      const base = { page: `${doc.file}:${doc.key}`, pageId: doc.key, revisionId: doc.key };
      return { ...base, refs: [{ image: doc.image, source: "sample", caption: doc.caption, alt: null }] };
    };
  },
  imagesOf: (doc): ImageBytes[] => {
    const d = doc as Img2datasetSample;
    return [{ image: d.image, bytes: d.bytes }];
  },
  pack: (docs) => docs,
  unpack: (packed) => packed as Img2datasetSample[],
  size: (doc) => (doc.bytes?.length ?? 0) + (doc.caption?.length ?? 0),
  reportLines(x) {
    const samples = x[pixelSourceCounter("samples")];
    if (samples === undefined) return [];
    const skipped = Object.entries(x).filter(([k]) => k.startsWith(PIXELS_SKIPPED_PREFIX)).map(([k, v]) => `${v.toLocaleString("en-US")} skipped (${k.slice(PIXELS_SKIPPED_PREFIX.length)})`);
    return [`- ${samples.toLocaleString("en-US")} img2dataset samples read, ${(x[pixelSourceCounter("samples.with_image")] ?? 0).toLocaleString("en-US")} with an image${skipped.length ? `; ${skipped.join(", ")}` : ""}.`];
  },
};
