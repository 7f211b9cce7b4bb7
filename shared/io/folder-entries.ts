/**
 * A folder's entries as a reader of files means them: a symlink counts as what it points to (image
 * folders are often farms of links into a cache), a dangling one as a file (reading it then fails
 * and is counted), and a link back up the tree is not followed twice.
 */
import type { Dirent } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { join } from "node:path";

export interface FolderEntry {
  name: string;
  kind: "file" | "dir";
}

/** The entries of `dir` in name order, symlinks resolved; `seen`: real paths of the folders being walked. */
export async function folderEntries(dir: string, seen?: Set<string>): Promise<FolderEntry[]> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: FolderEntry[] = [];
  for (const e of entries) {
    const kind = await kindOf(dir, e);
    if (kind === "dir" && seen) {
      const real = await realpath(join(dir, e.name)).catch(() => null);
      if (real === null || seen.has(real)) continue;
      seen.add(real);
    }
    if (kind !== null) out.push({ name: e.name, kind });
  }
  return out;
}

async function kindOf(dir: string, e: Dirent): Promise<FolderEntry["kind"] | null> {
  if (e.isDirectory()) return "dir";
  if (e.isFile()) return "file";
  if (!e.isSymbolicLink()) return null;
  try {
    const s = await stat(join(dir, e.name));
    return s.isDirectory() ? "dir" : s.isFile() ? "file" : null;
  } catch {
    return "file";
  }
}

/** A set to pass as `seen`, holding the walk's root. */
export async function walkFrom(dir: string): Promise<Set<string>> {
  return new Set([await realpath(dir).catch(() => dir)]);
}
