/**
 * Builds shared/ to JavaScript in dist/node (tsc emit without type checking, plus the data files the
 * modules open at run time), so the CLI and its worker threads start without a TypeScript loader.
 *
 * Plain JS on purpose: it runs from `npm test` and bin/paracap.js before
 * anything can load TypeScript. A build happens only when a file under shared/ is newer than the last
 * build; concurrent callers serialise on a lock directory, so two test runs at once never see a
 * half-written dist.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SOURCE = join(ROOT, "shared");
export const DIST = join(ROOT, "dist/node");
const STAMP = join(DIST, "BUILD");
const LOCK = join(ROOT, "dist/.build-lock");
const STALE_LOCK_MS = 5 * 60_000;

/** Newest modification time of any file under dir. */
function newestMtime(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

export function isFresh() {
  return existsSync(STAMP) && statSync(STAMP).mtimeMs >= newestMtime(SOURCE);
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function withLock(fn) {
  mkdirSync(dirname(LOCK), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (e) {
      if (e.code !== "EEXIST") throw e;
      // a builder killed mid-build leaves its lock behind
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
      } catch { /* released meanwhile */ }
      sleep(100);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

function copyAssets(from, to) {
  for (const e of readdirSync(from, { withFileTypes: true })) {
    const src = join(from, e.name);
    // The embedded sample is read from the source tree (core/repo-root.ts), not copied.
    if (e.isDirectory() && from === SOURCE && e.name === "sample") continue;
    if (e.isDirectory()) copyAssets(src, join(to, e.name));
    else if (!e.name.endsWith(".ts")) {
      mkdirSync(to, { recursive: true });
      cpSync(src, join(to, e.name));
    }
  }
}

/** Builds dist/node unless it is up to date; returns true when it built. */
export function ensureBuilt() {
  if (isFresh()) return false;
  return withLock(() => {
    if (isFresh()) return false; // another process built it while we waited
    const tmp = `${DIST}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
    try {
      execFileSync(process.execPath, [tsc, "-p", join(ROOT, "tsconfig.build.json"), "--outDir", tmp], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      throw new Error(`build failed (tsc):\n${e.stdout?.toString() ?? ""}${e.stderr?.toString() ?? ""}`);
    }
    copyAssets(SOURCE, join(tmp, "shared"));
    writeFileSync(join(tmp, "BUILD"), `built from ${relative(ROOT, SOURCE)}/ by scripts/build.mjs\n`);
    const old = `${DIST}.old-${process.pid}`;
    if (existsSync(DIST)) renameSync(DIST, old);
    renameSync(tmp, DIST);
    rmSync(old, { recursive: true, force: true });
    return true;
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const built = ensureBuilt();
    process.stdout.write(built ? `built ${relative(process.cwd(), DIST) || DIST}\n` : `${relative(process.cwd(), DIST) || DIST} is up to date\n`);
  } catch (e) {
    process.stderr.write(`build: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
}
