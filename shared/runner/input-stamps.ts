/**
 * What each local input was when a run planned it: a file's size, modification time and a hash of
 * samples of its bytes; a folder's files (by relative path, size and modification time, folded into
 * one hash) and their count. The run manifest keeps them, so a rerun over an input changed in place (a
 * dump downloaded again under its name, an image replaced or removed in a crawl folder) is told apart
 * from a resume of the same input instead of finishing with the old results. Paths that are not local
 * files (URLs) have no stamp.
 */
import { createHash, type Hash } from "node:crypto";
import { closeSync, openSync, readdirSync, readSync, statSync, type Stats } from "node:fs";
import { join } from "node:path";

/** Input path → its stamp, for the paths that exist locally. */
export function inputStamps(paths: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const path of paths) {
    const st = statOrNull(path);
    if (st === null) continue;
    if (st.isFile()) out[path] = `${fileStamp(st)}:${contentSample(path, st.size)}`;
    else if (st.isDirectory()) out[path] = folderStamp(path);
  }
  return out;
}

/**
 * The inputs whose stamps differ between two runs (only those both runs stamped: an earlier run may
 * predate stamps; a file stamped before content samples were taken is compared by size and time).
 */
export function changedInputs(before: Readonly<Record<string, string>> | undefined, now: Readonly<Record<string, string>>): string[] {
  if (before === undefined) return [];
  return Object.keys(now).filter((path) => {
    const was = before[path];
    if (was === undefined) return false;
    const is = now[path]!;
    return LEGACY_FILE_STAMP.test(was) && FILE_STAMP.test(is) ? was !== is.slice(0, is.lastIndexOf(":")) : was !== is;
  });
}

/**
 * The stamps as the run fingerprints had them before files' bytes were sampled (size and time only):
 * a run killed under an earlier version resumes; the samples are compared by changedInputs.
 */
export function plannedStamps(stamps: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(stamps).map(([path, s]) => [path, FILE_STAMP.test(s) ? s.slice(0, s.lastIndexOf(":")) : s]));
}

const LEGACY_FILE_STAMP = /^\d+:\d+$/;
const FILE_STAMP = /^\d+:\d+:[^:]+$/;

/** Bytes read at each sample: the head, the tail and SAMPLES evenly between them. */
const SAMPLE_BYTES = 16 * 1024;
const SAMPLES = 16;

/**
 * A hash of samples of a file's bytes: a rewrite that keeps size and modification time (`cp -p` of
 * another version, `touch -r`, a same-size rewrite within a second-precision mtime) changes it unless
 * every sampled span is equal. Hashing the whole file at every plan would read a 20 GB dump twice.
 */
function contentSample(path: string, size: number): string {
  const hash = createHash("sha256");
  const buf = Buffer.alloc(SAMPLE_BYTES);
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return "unreadable";
  }
  try {
    const last = Math.max(0, size - SAMPLE_BYTES);
    for (let i = 0; i <= SAMPLES + 1; i++) {
      const at = Math.floor((last * i) / (SAMPLES + 1));
      const n = readSync(fd, buf, 0, SAMPLE_BYTES, at);
      hash.update(buf.subarray(0, n));
      if (last === 0) break;
    }
  } catch {
    return "unreadable";
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex").slice(0, 16);
}

function fileStamp(st: Stats): string {
  return `${st.size}:${Math.trunc(st.mtimeMs)}`;
}

function folderStamp(root: string): string {
  const hash = createHash("sha256");
  const files = walk(root, "", hash, new Set());
  return `${files} files:${hash.digest("hex").slice(0, 16)}`;
}

/**
 * Files under `root/rel` (links followed, as the sources read them; a folder reached twice, as by a
 * link to an ancestor, is walked once), in name order, fed to `hash`; their count.
 */
function walk(root: string, rel: string, hash: Hash, seen: Set<string>): number {
  const here = statOrNull(join(root, rel));
  if (here === null || seen.has(`${here.dev}:${here.ino}`)) return 0;
  seen.add(`${here.dev}:${here.ino}`);
  let names: string[];
  try {
    names = readdirSync(join(root, rel)).sort();
  } catch {
    return 0;
  }
  let files = 0;
  for (const name of names) {
    const path = rel === "" ? name : `${rel}/${name}`;
    const st = statOrNull(join(root, path));
    if (st === null) continue;
    if (st.isDirectory()) files += walk(root, path, hash, seen);
    else if (st.isFile()) {
      hash.update(`${path}\0${fileStamp(st)}\n`);
      files++;
    }
  }
  return files;
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}
