/**
 * Shard plan for local files: a multistream dump with its index next to it is split into byte
 * ranges of whole streams; any other file is one shard.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { basename } from "node:path";
import { BUILTIN_SOURCES, type SourceRegistry } from "../sources/registry.ts";
import { planByteRangeShards, readMultistreamIndex } from "../dump/multistream.ts";
import type { InputKind } from "../core/records.ts";
import { shardId, type ShardSpec } from "../sources/shard-spec.ts";

export interface LocalInput {
  path: string;
  kind: InputKind;
}

/** `enwiki-…-multistream.xml.bz2` → `enwiki-…-multistream-index.txt(.bz2)` if present. */
export function findMultistreamIndex(path: string): string | null {
  const m = /^(.*-multistream)\.xml\.bz2$/.exec(path);
  if (!m) return null;
  for (const cand of [`${m[1]}-index.txt.bz2`, `${m[1]}-index.txt`]) if (existsSync(cand)) return cand;
  return null;
}

/** A file name that says "full history" (Wikimedia names them pages-meta-history). */
export function looksLikeHistory(path: string): boolean {
  return /history/i.test(path.split("/").pop() ?? "");
}

/** An input the user named cannot be used at all (missing, a directory, or holds no pages). */
export class InputError extends Error {
  override readonly name = "InputError";
}

export async function planLocalShards(inputs: LocalInput[], targetBytes = 32 * 1024 * 1024, sources: SourceRegistry = BUILTIN_SOURCES): Promise<ShardSpec[]> {
  const shards: ShardSpec[] = [];
  for (const input of inputs) {
    if (!existsSync(input.path)) throw new InputError(`input not found: ${input.path}`);
    const st = statSync(input.path);
    if (!st.isFile()) throw new InputError(`input is not a file: ${input.path}`);
    const size = st.size;
    // Unrecognised files go to the MediaWiki reader, whose error says what it expected.
    const source = (sources.detect(basename(input.path), readHead(input.path)) ?? sources.get("mediawiki")).name;
    const ranges = sources.get(source).planRanges?.(size, targetBytes);
    const index = source === "mediawiki" ? findMultistreamIndex(input.path) : null;
    if (ranges) {
      for (const r of ranges) shards.push({ id: shardId(shards.length, input.path, r.start > 0 || r.end !== null ? r.start : null), uri: input.path, source, kind: input.kind, start: r.start, end: r.end, fragment: r.fragment });
    } else if (index) {
      const { offsets, pagesAt } = await readMultistreamIndex(index);
      for (const r of planByteRangeShards(input.path, size, offsets, targetBytes, pagesAt)) {
        shards.push({ id: shardId(shards.length, input.path, r.start), uri: input.path, source, kind: input.kind, start: r.start, end: r.end, fragment: r.start > 0, pages: r.pages });
      }
    } else {
      shards.push({ id: shardId(shards.length, input.path, null), uri: input.path, source, kind: input.kind, start: null, end: null, fragment: false });
    }
  }
  return shards;
}

/** The first bytes of a file, to tell its source (a few KB: enough for a TSV line or an XML prolog). */
function readHead(path: string, bytes = 4096): Buffer {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(bytes);
    return buf.subarray(0, readSync(fd, buf, 0, bytes, 0));
  } finally {
    closeSync(fd);
  }
}
