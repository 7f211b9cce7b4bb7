/** The compressions of parquet columns paracap reads, for every reader of parquet (caption lists, img2dataset). */
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { Compressors } from "hyparquet";

/** Codecs hyparquet decodes itself (uncompressed, snappy) and with the decoders of `parquetCompressors()`. */
export const READABLE_CODECS: ReadonlySet<string> = new Set(["UNCOMPRESSED", "SNAPPY", "GZIP", "BROTLI", "ZSTD", "LZ4", "LZ4_RAW"]);

let loaded: Promise<Compressors> | null = null;

/** gzip and brotli by node:zlib (native); zstd and lz4 by hyparquet-compressors, loaded when a parquet file is read. */
export function parquetCompressors(): Promise<Compressors> {
  return (loaded ??= import("hyparquet-compressors").then(({ decompressZstd, decompressLz4, decompressLz4Raw }) => ({
    GZIP: (input) => new Uint8Array(gunzipSync(input)),
    BROTLI: (input) => new Uint8Array(brotliDecompressSync(input)),
    ZSTD: (input) => decompressZstd(input),
    // LZ4: Hadoop's framing (parquet-mr), or a bare block as older Arrow wrote it
    LZ4: decompressLz4,
    LZ4_RAW: decompressLz4Raw,
  })));
}
