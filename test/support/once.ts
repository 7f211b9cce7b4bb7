/**
 * Builds a named thing once per test run, whichever file (in whichever worker process) asks first;
 * the others wait for it and get the same path. Everything built here must depend only on the code
 * and data of this run (never on the asking file), since it is shared as is.
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";

/** The run's share folder (share-dir.global.ts), or a folder of this process where none is given. */
export function shareDir(): string {
  let dir: string | undefined;
  try {
    dir = inject("shareDir");
  } catch {
    // not under the suite's config
  }
  return dir ?? (fallback ??= mkdtempSync(join(tmpdir(), "paracap-test-share-")));
}
let fallback: string | undefined;

/**
 * The path of `name` in the share folder, built by `build(path)` when no file built it yet. A build
 * goes to a temporary path renamed into place when it succeeds, under a lock folder: a failed build
 * releases the lock and the next asker tries again.
 */
export async function once(name: string, build: (path: string) => Promise<void>): Promise<string> {
  const root = shareDir();
  const final = join(root, name);
  const lock = `${final}.lock`;
  for (;;) {
    if (existsSync(final)) return final;
    try {
      mkdirSync(lock);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    try {
      if (existsSync(final)) return final;
      const tmp = `${final}.tmp-${process.pid}`;
      rmSync(tmp, { recursive: true, force: true });
      await build(tmp);
      renameSync(tmp, final);
      return final;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}
