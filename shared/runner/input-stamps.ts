/**
 * What each local input was when a run planned it: a file's size and modification time; a folder's
 * files (by relative path, size and modification time, folded into one hash) and their count. The run
 * manifest keeps them, so a rerun over an input changed in place (a dump downloaded again under its
 * name, an image replaced or removed in a crawl folder) is told apart from a resume of the same input
 * instead of finishing with the old results. Paths that are not local files (URLs) have no stamp.
 */
import { createHash, type Hash } from "node:crypto";
import { readdirSync, statSync, type Stats } from "node:fs";
import { join } from "node:path";

/** Input path → its stamp, for the paths that exist locally. */
export function inputStamps(paths: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const path of paths) {
    const st = statOrNull(path);
    if (st === null) continue;
    if (st.isFile()) out[path] = fileStamp(st);
    else if (st.isDirectory()) out[path] = folderStamp(path);
  }
  return out;
}

/** The inputs whose stamps differ between two runs (only those both runs stamped: an earlier run may predate stamps). */
export function changedInputs(before: Readonly<Record<string, string>> | undefined, now: Readonly<Record<string, string>>): string[] {
  if (before === undefined) return [];
  return Object.keys(now).filter((path) => before[path] !== undefined && before[path] !== now[path]);
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
