/**
 * Shard plan for local files: a multistream dump with its index next to it is split into byte
 * ranges of whole streams; any other file is one shard.
 */
import { sniffFormat } from "../dump/magic.ts";
import { closeSync, createReadStream, existsSync, openSync, readSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { basename } from "node:path";
import { BUILTIN_SOURCES, type SourceRegistry } from "../sources/registry.ts";
import type { AnySource, ByteRange, PlanningView } from "../sources/source.ts";
import type { InputKind } from "../core/records.ts";
import type { ParacapConfig } from "../core/config.ts";
import { shardId, type ShardSpec } from "../sources/shard-spec.ts";

export interface LocalInput {
  path: string;
  kind: InputKind;
}

/** A file name that says "full history" (Wikimedia names them pages-meta-history). */
export function looksLikeHistory(path: string): boolean {
  return /history/i.test(path.split("/").pop() ?? "");
}

/** An input the user named cannot be used at all (missing, a directory, or holds no pages). */
export class InputError extends Error {
  override readonly name = "InputError";
}

/** What the files beside a local input are: the folder itself. */
export const LOCAL_VIEW: PlanningView = {
  exists: async (name) => existsSync(name),
  withLocalCopy: (name, use) => use(name),
  async readRange(name, start, end) {
    const fh = await open(name, "r");
    try {
      const buf = Buffer.alloc(Math.max(0, end - start));
      const { bytesRead } = await fh.read(buf, 0, buf.length, start);
      return buf.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
  },
};

/** LOCAL_VIEW and whole reads: what `run` plans local inputs with (a caption list whose head cannot tell its encoding is read through once). */
export const LOCAL_PLANNING_VIEW: PlanningView = {
  ...LOCAL_VIEW,
  readWhole: (name) => createReadStream(name, { highWaterMark: 1 << 20 }),
};

/** What to do with an input given as a URL (the local runner reads files on this machine); null: not a URL. */
function remoteInput(path: string): string | null {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(path)?.[1]?.toLowerCase();
  if (scheme === "http" || scheme === "https")
    return `${path}: run reads files on this machine: download it first (curl -LO '${path}'); a crawl's WARCs on a server are read over HTTP(S) through a paths list (--input warc.paths.gz, its lines under --warc-base-url)`;
  if (scheme === "gs") return `${path}: a Cloud Storage object: run reads files on this machine (copy it here: gcloud storage cp '${path}' .), and \`paracap cloud\` runs over the deployment's input bucket`;
  if (scheme === "s3" || scheme === "hdfs" || scheme === "ftp") return `${path}: run reads files on this machine: copy it here first`;
  return null;
}

export async function planLocalShards(inputs: LocalInput[], targetBytes = 32 * 1024 * 1024, sources: SourceRegistry = BUILTIN_SOURCES, config?: ParacapConfig): Promise<ShardSpec[]> {
  const shards: ShardSpec[] = [];
  const view: PlanningView = config ? { ...LOCAL_PLANNING_VIEW, config } : LOCAL_PLANNING_VIEW;
  for (const input of inputs) {
    if (!existsSync(input.path)) throw new InputError(remoteInput(input.path) ?? `input not found: ${input.path}`);
    // a companion file (a multistream dump's index) given as the input itself: name what it belongs to
    const role = sources.uploadRole(basename(input.path));
    if (role?.role === "companion") throw new InputError(`${input.path} is not an input but a companion of ${role.of} (${role.source.name}): give that file as the input; this one is found beside it by its name`);
    const st = statSync(input.path);
    const source = sourceOfInput(input.path, sources);
    if (st.isDirectory()) {
      shards.push(...shardsOf(input.path, source.name, input.kind, null, shards.length));
      continue;
    }
    const planned = (await source.planRanges?.({ name: input.path, size: st.size }, targetBytes, view)) ?? null;
    // a source waiting for a companion (an index still to be uploaded) reads the file whole here
    const ranges = planned === null || "wait" in planned ? null : planned;
    shards.push(...shardsOf(input.path, source.name, input.kind, ranges, shards.length));
  }
  return shards;
}

/**
 * The source that reads a local input: a folder some source reads whole (an img2dataset output), or
 * the source a file's name and first bytes say; an unrecognised file goes to the last (most general)
 * source, whose error says what it expected.
 */
export function sourceOfInput(path: string, sources: SourceRegistry): AnySource {
  const st = statSync(path);
  if (st.isDirectory()) {
    const reader = sources.all().find((s) => s.claimsDirectory?.(path));
    if (!reader) throw new InputError(`input is a folder no source reads whole: ${path} (name the files in it, e.g. --input ${path}/*; a folder of images goes to --images)`);
    return reader;
  }
  if (!st.isFile()) throw new InputError(`input is not a file: ${path}`);
  const head = readHead(path);
  const source = sources.detect(basename(path), head);
  if (source) return source;
  // plain text no source reads (compressed bytes go to the most general source, whose reading says what they hold)
  if (sniffFormat(head) === "plain" && head.length > 0) throw new InputError(unreadableText(path, head));
  return sources.all().at(-1)!;
}

/** Why a plain-text input is none of the formats paracap reads: its first line, and what it reads. */
function unreadableText(path: string, head: Buffer): string {
  const first = head.toString("utf8").split(/\r?\n/, 1)[0]!.slice(0, 100);
  const known = "MediaWiki XML dumps, caption lists (.tsv, .csv, .jsonl, .parquet: an image URL or file name and a caption per line, or a list of captions; COCO-style captions and Karpathy split JSON), web crawls (.warc, .arc) and img2dataset outputs";
  return `${path}: not a format paracap reads (first line: ${JSON.stringify(first)}); it reads ${known}`;
}

/**
 * Shard specs of one file from its ranges (null: the whole file), numbered from `first`: the same ids
 * whichever runner plans the same files in the same order.
 */
export function shardsOf(uri: string, source: string, kind: InputKind, ranges: readonly ByteRange[] | null, first: number): ShardSpec[] {
  if (ranges === null) return [{ id: shardId(first, uri, null), uri, source, kind, start: null, end: null, fragment: false }];
  return ranges.map((r, i) => ({
    id: shardId(first + i, uri, r.start > 0 || r.end !== null ? r.start : null),
    uri,
    source,
    kind,
    start: r.start,
    end: r.end,
    fragment: r.fragment,
    ...(r.pages !== undefined ? { pages: r.pages } : {}),
    ...(r.encoding !== undefined ? { encoding: r.encoding } : {}),
  }));
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
