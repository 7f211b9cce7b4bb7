/**
 * Builds img2dataset outputs from the real test images, as img2dataset would lay them out: the
 * `files` layout (shard folder 00000 with <key>.jpg/.txt/.json), a `webdataset` tar shard and the
 * shard's results parquet. Captions are invented here; URLs are made up (example.org).
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { extname, join } from "node:path";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { parquetWriteBuffer } from "hyparquet-writer";
import tar from "tar-stream";
import { OTHERS, PHOTO } from "./images.ts";

export interface FixtureSample {
  key: string;
  /** null: a failed download (img2dataset lists it in the results, writes no image) */
  image: string | null;
  caption: string;
  url: string;
}

export const SAMPLES: FixtureSample[] = [
  { key: "000000000", image: PHOTO.original, caption: "A quiet road runs through a forest in autumn.", url: "https://example.org/a/road.jpg" },
  { key: "000000001", image: PHOTO.lowQualityJpeg, caption: "The forest road is covered with fallen leaves.", url: "https://cdn.example.org/img/92731.jpg" },
  { key: "000000002", image: PHOTO.watermark, caption: "An empty road leads into the autumn woods.", url: "https://stock.example.org/photo-road-watermarked.jpg" },
  { key: "000000003", image: PHOTO.darkened, caption: "Trees line both sides of a country road.", url: "https://example.org/b/road-dark.png" },
  { key: "000000004", image: OTHERS.differentPhoto, caption: "A hot air balloon floats over the hills.", url: "https://example.org/balloon.jpg" },
  { key: "000000005", image: null, caption: "This download failed.", url: "https://gone.example.org/missing.jpg" },
  { key: "000000006", image: OTHERS.nearBlankWhite, caption: "A blank white page.", url: "https://example.org/white.jpg" },
];

const sidecar = (s: FixtureSample) => JSON.stringify({ url: s.url, key: s.key, status: s.image ? "success" : "failed_to_download", caption: s.caption, width: 500, height: 333, error_message: s.image ? null : "HTTP 404" });
const ext = (s: FixtureSample) => extname(s.image!).slice(1);

/** `<dir>/00000/<key>.<ext|txt|json>` as img2dataset's files layout (failures: no files, as img2dataset does). */
export function buildFilesLayout(dir: string): string {
  const shard = join(dir, "00000");
  mkdirSync(shard, { recursive: true });
  for (const s of SAMPLES) {
    if (!s.image) continue;
    copyFileSync(s.image, join(shard, `${s.key}.${ext(s)}`));
    writeFileSync(join(shard, `${s.key}.txt`), s.caption);
    writeFileSync(join(shard, `${s.key}.json`), sidecar(s));
  }
  writeFileSync(join(dir, "00000_stats.json"), JSON.stringify({ count: SAMPLES.length, successes: SAMPLES.filter((s) => s.image).length }));
  return dir;
}

/**
 * One webdataset shard: `<key>.<ext>`, `<key>.txt`, `<key>.json` consecutive per key; `scattered`: in
 * the order tar(1) may write a folder (every caption, then every image, then every sidecar).
 */
export async function buildTar(path: string, scattered = false): Promise<string> {
  if (scattered) {
    const pack = tar.pack();
    const chunks: Buffer[] = [];
    pack.on("data", (c: unknown) => chunks.push(c as Buffer));
    const done = new Promise<void>((resolve) => pack.on("end", () => resolve()));
    const got = SAMPLES.filter((s) => s.image);
    pack.entry({ name: "./", type: "directory" });
    for (const s of got) pack.entry({ name: `./${s.key}.txt` }, s.caption);
    for (const s of [...got].reverse()) pack.entry({ name: `./${s.key}.${ext(s)}` }, readFileSync(s.image!));
    for (const s of got) pack.entry({ name: `./${s.key}.json` }, sidecar(s));
    // a failed download's caption and sidecar, no image
    const failed = SAMPLES.find((s) => !s.image)!;
    pack.entry({ name: `./${failed.key}.json` }, sidecar(failed));
    pack.finalize();
    await done;
    writeFileSync(path, Buffer.concat(chunks));
    return path;
  }
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on("data", (c: unknown) => chunks.push(c as Buffer));
  const done = new Promise<void>((resolve) => pack.on("end", () => resolve()));
  for (const s of SAMPLES) {
    if (!s.image) continue;
    pack.entry({ name: `${s.key}.${ext(s)}` }, readFileSync(s.image));
    pack.entry({ name: `${s.key}.txt` }, s.caption);
    pack.entry({ name: `${s.key}.json` }, sidecar(s));
  }
  pack.finalize();
  await done;
  writeFileSync(path, Buffer.concat(chunks));
  return path;
}

/** Compressors for the codecs hyparquet-writer lacks: node:zlib's, and zstd through the `zstd` program (a frame, as parquet's ZSTD is). */
const WRITE_CODECS = {
  GZIP: (b: Uint8Array) => new Uint8Array(gzipSync(b)),
  BROTLI: (b: Uint8Array) => new Uint8Array(brotliCompressSync(b)),
  ZSTD: (b: Uint8Array) => new Uint8Array(execFileSync("zstd", ["-q", "-c"], { input: b })),
};

/**
 * The shard's results parquet (every URL, failures included), optionally with the images in a `jpg`
 * column, in row groups of `rowGroupSize` rows and its columns compressed with `codec` (default snappy).
 */
export function buildResultsParquet(path: string, withImages = false, rowGroupSize?: number, codec?: "UNCOMPRESSED" | "SNAPPY" | keyof typeof WRITE_CODECS): string {
  const columnData = [
    { name: "key", data: SAMPLES.map((s) => s.key), type: "STRING" as const },
    { name: "url", data: SAMPLES.map((s) => s.url), type: "STRING" as const },
    { name: "caption", data: SAMPLES.map((s) => s.caption), type: "STRING" as const },
    { name: "status", data: SAMPLES.map((s) => (s.image ? "success" : "failed_to_download")), type: "STRING" as const },
    { name: "error_message", data: SAMPLES.map((s) => (s.image ? null : "HTTP 404")), type: "STRING" as const },
    ...(withImages ? [{ name: "jpg", data: SAMPLES.map((s) => (s.image ? new Uint8Array(readFileSync(s.image)) : null)), type: "BYTE_ARRAY" as const }] : []),
  ];
  writeFileSync(path, Buffer.from(parquetWriteBuffer({ columnData, ...(rowGroupSize ? { rowGroupSize } : {}), ...(codec ? { codec, compressors: WRITE_CODECS } : {}) })));
  return path;
}
