/**
 * The pieces every img2dataset reader shares (folders, tars, zips, parquet): what a sample is, how an
 * archive member's name gives its key and kind, how a key's files become one sample, and how a key
 * without an image is counted.
 */
import { extname } from "node:path";
import { z } from "zod";
import { pixelSourceCounter, pixelSourceSkippedCounter } from "../core/counter-names.ts";
import type { Counters } from "../core/counters.ts";

export interface PixelSample {
  /** img2dataset's key (shard + index, e.g. 000010042), or the file name without extension */
  readonly key: string;
  readonly url: string | null;
  readonly caption: string | null;
  /** null: no image for this key (a failed download listed in the results) */
  readonly bytes: Uint8Array | null;
  /** img2dataset's status (success, failed_to_download, …), null when not given */
  readonly status: string | null;
  /** the file or shard it came from */
  readonly origin: string;
}

export interface PixelReadOptions {
  counters: Counters;
  /** images larger than this are skipped (counted `too_large`) */
  maxImageBytes?: number;
}

export const DEFAULT_MAX_IMAGE_BYTES = 32 * 1024 * 1024;

/** File extensions img2dataset writes images with (and that a folder of plain images may hold). */
// jfif and jpe: JPEGs as Windows and older browsers save them (the decoder reads the bytes, not the name)
export const IMAGE_EXTENSIONS: ReadonlySet<string> = new Set(["jpg", "jpeg", "jfif", "jpe", "png", "webp", "gif", "tif", "tiff", "avif"]);

/** img2dataset's `<key>.json` sidecar and results row: the fields paracap uses (width, height, error_message, … pass). */
export const SidecarSchema = z.looseObject({
  url: z.string().nullish(),
  caption: z.string().nullish(),
  key: z.string().nullish(),
  status: z.string().nullish(),
});
type Sidecar = z.infer<typeof SidecarSchema>;

/**
 * Files under a key with no image: a caption or sidecar alone (a download that failed) is counted
 * `no_image_file`, a file of another kind `other_file`; img2dataset's own bookkeeping
 * (`<shard>_stats.json`, the results `.parquet`) is neither.
 */
export function countImageless(stem: string, exts: Iterable<string>, counters: Counters): void {
  const kinds = [...exts];
  if (kinds.includes("parquet") || (/_stats$/.test(stem) && kinds.every((e) => e === "json"))) return;
  if (kinds.some((e) => e === "txt" || e === "json")) counters.inc(pixelSourceSkippedCounter("no_image_file"));
  const other = kinds.filter((e) => e !== "txt" && e !== "json").length;
  if (other > 0) counters.inc(pixelSourceSkippedCounter("other_file"), other);
}

export function* countSample(sample: PixelSample, counters: Counters): Generator<PixelSample> {
  counters.inc(pixelSourceCounter("samples"));
  if (sample.bytes !== null) counters.inc(pixelSourceCounter("samples.with_image"));
  yield sample;
}

/**
 * A tar entry's sample key: its path without the extension (webdataset: everything after the first dot of the
 * name). A name whose part after the first dot is no kind read but which ends in an image's extension is a photo
 * named with dots ("2019.06.01 beach.jpg", "cat.v2.png"): its key is the name without that last extension.
 */
export function entryKey(name: string): { key: string; ext: string } {
  const slash = name.lastIndexOf("/");
  const file = name.slice(slash + 1);
  let { stem, ext } = splitName(file);
  if (!IMAGE_EXTENSIONS.has(ext) && ext !== "txt" && ext !== "json") {
    const last = extname(file).slice(1).toLowerCase();
    if (IMAGE_EXTENSIONS.has(last)) [stem, ext] = [file.slice(0, file.length - last.length - 1), last];
  }
  return { key: name.slice(0, slash + 1) + stem, ext };
}

export function sampleOf(key: string, bytes: Uint8Array | null, captionFile: string | null, sidecar: Sidecar | null, origin: string): PixelSample {
  const caption = captionFile !== null ? captionFile.replace(/\r?\n$/, "") : (sidecar?.caption ?? null);
  return { key, url: sidecar?.url ?? null, caption, bytes, status: sidecar?.status ?? null, origin };
}

export function parseSidecar(text: string, counters: Counters): Sidecar | null {
  try {
    const parsed = SidecarSchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
  } catch {
    // counted below
  }
  counters.inc(pixelSourceSkippedCounter("bad_sidecar"));
  return null;
}

/** `000000042.jpg` → stem `000000042`, ext `jpg` (webdataset: the extension is everything after the first dot). */
function splitName(name: string): { stem: string; ext: string } {
  const dot = name.indexOf(".");
  return dot < 0 ? { stem: name, ext: "" } : { stem: name.slice(0, dot), ext: name.slice(dot + 1).toLowerCase() };
}
