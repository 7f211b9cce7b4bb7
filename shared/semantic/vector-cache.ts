/**
 * A binary copy of parsed word vectors, so a process reads 41 MB (~20 ms of CPU, no per-word work) instead of parsing
 * the package's JSON again (~0.35 s for the 100k most frequent words, ~1.5 s for all). Written on the first load next
 * to the installed packages (node_modules/.cache/paracap, the usual place for tool caches), atomically, and keyed
 * by the source file's size and modification time and the word cap, so a reinstalled package is parsed afresh.
 * Where the cache cannot be written (a read-only deployment) loading simply parses, as without it.
 */
import { closeSync, mkdirSync, openSync, readSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { endianness } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { toolCacheDir } from "../io/tool-cache-dir.ts";
import { packedIndexChecksum, packedIsSound, packedLayout, type PackedVectors } from "./packed-vectors.ts";
import { WordVectors } from "./word-vectors.ts";

/**
 * Version 2: after the header, the packed vectors (packed-vectors.ts: rows, hash table, words), read in one go and
 * used as they are. Version 1 (a JSON list of the words, then the rows) is not read: same file name, other magic,
 * so an old copy is parsed afresh and replaced.
 */
const MAGIC = "paracap-vectors-2\n";
const HEAD = MAGIC.length + 4;

/** The header: the key the copy was made for, and where the packed parts are (no list of words). */
const Header = z.object({
  source: z.string(),
  sourceBytes: z.number().int(),
  sourceMtimeMs: z.number(),
  maxWords: z.number().int().positive().nullable(),
  /** byte order of the numbers (the rows, table and words are written as this machine holds them) */
  endian: z.enum(["LE", "BE"]),
  dims: z.number().int().positive(),
  count: z.number().int().nonnegative(),
  slots: z.number().int().positive(),
  chars: z.number().int().nonnegative(),
  /** packedIndexChecksum of the table and words */
  indexChecksum: z.number().int().nonnegative(),
});
type Header = z.infer<typeof Header>;

/** Where the copy lives (shared/io/tool-cache-dir.ts): none on Cloud Run / Functions unless PARACAP_CACHE_DIR says. */
export function defaultVectorCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  return toolCacheDir(env);
}

type Key = Pick<Header, "source" | "sourceBytes" | "sourceMtimeMs" | "maxWords">;

function cacheFile(dir: string, source: string, maxWords: number | null): { path: string; key: Key } {
  const st = statSync(source);
  const key = { source, sourceBytes: st.size, sourceMtimeMs: Math.floor(st.mtimeMs), maxWords };
  const name = `word-vectors-${maxWords ?? "all"}-${st.size}-${key.sourceMtimeMs}.bin`;
  return { path: join(dir, name), key };
}

/** The cached vectors of `source` with this cap, or null when there is no valid copy. */
export function readCachedVectors(dir: string, source: string, maxWords: number | null, shared: boolean): WordVectors | null {
  let fd: number;
  const { path, key } = cacheFile(dir, source, maxWords);
  try {
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  try {
    const size = statSync(path).size;
    // the magic, the header's length and (almost always) the header itself in one read
    const first = Buffer.alloc(Math.min(size, 4096));
    if (readSync(fd, first, 0, first.length, 0) !== first.length || first.length < HEAD || first.toString("latin1", 0, MAGIC.length) !== MAGIC) return null;
    const headerBytes = first.readUInt32LE(MAGIC.length);
    const dataAt = align8(HEAD + headerBytes);
    if (dataAt > size) return null;
    let raw = first.subarray(HEAD, HEAD + headerBytes);
    if (raw.length < headerBytes) {
      raw = Buffer.alloc(headerBytes);
      if (readSync(fd, raw, 0, headerBytes, HEAD) !== headerBytes) return null;
    }
    const parsed = Header.safeParse(JSON.parse(raw.toString("utf8")));
    if (!parsed.success) return null;
    const h = parsed.data;
    if (h.source !== key.source || h.sourceBytes !== key.sourceBytes || h.sourceMtimeMs !== key.sourceMtimeMs || h.maxWords !== key.maxWords) return null;
    if (h.endian !== machineEndian()) return null;
    const bytes = packedLayout(h).bytes;
    if (size !== dataAt + bytes) return null;
    const buffer = shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes);
    const view = new Uint8Array(buffer);
    for (let done = 0; done < bytes; ) {
      const n = readSync(fd, view, done, Math.min(bytes - done, 1 << 26), dataAt + done);
      if (n === 0) return null;
      done += n;
    }
    const packed: PackedVectors = { buffer, dims: h.dims, count: h.count, slots: h.slots, chars: h.chars };
    if (!packedIsSound(packed) || packedIndexChecksum(packed) !== h.indexChecksum) return null;
    return WordVectors.fromPacked(packed);
  } catch {
    return null; // an unreadable or half-written copy is no copy: the caller parses
  } finally {
    closeSync(fd);
  }
}

/** Writes the copy (to a temporary name, then renamed); false when the folder is not writable. */
export function writeCachedVectors(dir: string, source: string, maxWords: number | null, vectors: WordVectors): boolean {
  const { path, key } = cacheFile(dir, source, maxWords);
  const tmp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    const p = vectors.packed ?? WordVectors.pack(vectors, false).packed!; // shared or not, the bytes are the same
    const fields: Header = { ...key, endian: machineEndian(), dims: p.dims, count: p.count, slots: p.slots, chars: p.chars, indexChecksum: packedIndexChecksum(p) };
    const header = Buffer.from(JSON.stringify(fields), "utf8");
    mkdirSync(dir, { recursive: true });
    const pre = Buffer.alloc(align8(HEAD + header.length));
    pre.write(MAGIC, 0, "latin1");
    pre.writeUInt32LE(header.length, MAGIC.length);
    header.copy(pre, HEAD);
    writeFileSync(tmp, pre);
    writeFileSync(tmp, new Uint8Array(p.buffer), { flag: "a" });
    renameSync(tmp, path);
    return true;
  } catch {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // the folder itself is unusable: nothing was written
    }
    return false;
  }
}

function machineEndian(): "LE" | "BE" {
  return endianness();
}

function align8(n: number): number {
  return (n + 7) & ~7;
}
