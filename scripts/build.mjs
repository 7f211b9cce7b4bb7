/**
 * Builds shared/ to JavaScript in dist/node (esbuild, one output file per source file, `.ts` import
 * specifiers rewritten to `.js`; plus the data files the modules open at run time), so the CLI and its
 * worker threads start without a TypeScript loader. Types are checked by `npm run typecheck`; the
 * code is transpilable file by file (it type-checks under `isolatedModules`), so esbuild and tsc emit
 * the same modules, at a fraction of tsc's 15 s.
 *
 * Plain JS on purpose: it runs from `npm test` and bin/paracap.js before
 * anything can load TypeScript. A build happens only when a file under shared/ is newer than the last
 * build; concurrent callers serialise on a lock directory, so two test runs at once never see a
 * half-written dist.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SOURCE = join(ROOT, "shared");
export const DIST = join(ROOT, "dist/node");
const STAMP = join(DIST, "BUILD");
const LOCK = join(ROOT, "dist/.build-lock");
const STALE_LOCK_MS = 5 * 60_000;

/**
 * Newest modification time of any file under dir. Every file is looked at: an edit in place changes
 * the file's time, not its folder's. Paths are joined by hand: path.join's normalising, cold at
 * start-up, was half of this walk's CPU (~15 of ~30 ms over the ~300 files of shared/), which every
 * CLI start pays before anything runs.
 */
function newestMtime(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = `${dir}${sep}${e.name}`;
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

/** Every TypeScript source under dir. */
function sources(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (e.name.endsWith(".ts") && !e.name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

/** A relative `.ts` module specifier in an import, export or import() of emitted code. */
const RELATIVE_TS = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}\/[^"'\n]*?)\.ts\2/g;

/**
 * Each source file to one ES module under `to` (paths kept relative to the repo root), with relative
 * `.ts` specifiers rewritten to `.js` (same length, so the source maps stay exact).
 */
function transpile(to) {
  // esbuild's API loads only when a build is due (~50 ms of CPU that every CLI start paid)
  const { buildSync } = createRequire(import.meta.url)("esbuild");
  const result = buildSync({
    entryPoints: sources(SOURCE),
    outdir: to,
    outbase: ROOT,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap: true,
    write: false,
    logLevel: "silent",
  });
  for (const file of result.outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.path.endsWith(".js") ? file.text.replace(RELATIVE_TS, "$1$2$3.js$2") : file.contents);
  }
}

/** Where the CLI's bundle goes, under a build's output dir (bin/paracap.js runs it when it is there). */
export const BUNDLE_DIR = "bundle";

/**
 * The CLI as one bundle (esbuild, split at its dynamic imports so commands and phases still load
 * when first used; npm packages stay imports): node resolves and compiles a few dozen files at
 * start-up instead of some 300, about half the modules' load time. Code that finds files next to its
 * module (`new URL("./data/…", import.meta.url)`, createRequire) gets the URL of its own compiled
 * file in dist/node instead of the bundle's, so every asset resolves as in the per-file build; the
 * worker threads' entries are built into the bundle too (shared/core/worker-entry.ts names them).
 * A failed bundle is left out, and the CLI runs the per-file build.
 */
function bundleCli(to) {
  // esbuild runs plugins only in its async API, and a build here is synchronous: a child node runs it
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--bundle", to], { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (r.status !== 0) rmSync(join(to, BUNDLE_DIR), { recursive: true, force: true });
}

/** Packages bundled with the CLI rather than imported from node_modules (see writeBundle; the CommonJS
 * wink packages gain little, their cost is the model's data, not its files). */
const BUNDLED_PACKAGES = new Set(["vega", "vega-lite", "zod", "entities", "htmlparser2", "hyparquet", "hyparquet-writer"]);

/** Worker thread entries built into the bundle, by the name shared/core/worker-entry.ts knows them by. */
const WORKER_ENTRIES = { worker: "runner/worker.ts", "bz2-block-worker": "dump/bz2-block-worker.ts", "chart-worker": "output/chart-worker.ts" };
/** The module that tells where worker entries are: replaced in the bundle by one naming the bundle's. */
const WORKER_ENTRY_MODULE = join(SOURCE, "core/worker-entry.ts");

/**
 * zod's `locales` namespace (its error messages in some 50 languages, ~370 KB of the bundle's largest
 * chunk, parsed at every start-up) as only the English messages zod itself uses: nothing in shared/
 * sets another locale (z.config(z.locales.xx())).
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({ contents: `export { default as en } from "./en.js";\n`, loader: "js" }));
  },
};

/** The bundle of bundleCli, into `to`/bundle (`to` holds the per-file build). */
async function writeBundle(to) {
  const { build } = createRequire(import.meta.url)("esbuild");
  const outdir = join(to, BUNDLE_DIR);
  const ownUrl = {
    name: "own-file-url",
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        if (!args.path.startsWith(SOURCE + sep)) return undefined;
        // the worker entries are the bundle's own (all outputs lie in one folder)
        if (args.path === WORKER_ENTRY_MODULE) {
          const entries = Object.keys(WORKER_ENTRIES).map((name) => `${JSON.stringify(name)}: new URL(${JSON.stringify(`./${name}.js`)}, import.meta.url).href`);
          return { contents: `${readFileSync(args.path, "utf8").replace(/export const BUNDLED_ENTRIES[^;]*;/, `export const BUNDLED_ENTRIES = { ${entries.join(", ")} };`)}`, loader: "ts" };
        }
        const text = readFileSync(args.path, "utf8");
        if (!text.includes("import.meta.url")) return undefined;
        const compiled = join(to, relative(ROOT, args.path)).replace(/\.ts$/, ".js");
        const url = `new URL(${JSON.stringify(relative(outdir, compiled).split(sep).join("/"))}, import.meta.url).href`;
        return { contents: text.replaceAll("import.meta.url", url), loader: "ts" };
      });
    },
  };
  await build({
    entryPoints: [join(SOURCE, "cli/main.ts"), join(SOURCE, "cli/node-flags.ts"), ...Object.values(WORKER_ENTRIES).map((p) => join(SOURCE, p))],
    entryNames: "[name]",
    outdir,
    bundle: true,
    splitting: true,
    // npm packages stay imports, except the pure-JS ES module packages of many small files (vega and
    // vega-lite: a few hundred, loaded only to draw the report's charts; zod, entities, htmlparser2,
    // hyparquet): their code goes into the chunks that import them. None of them reads files beside
    // its own modules, which a bundle would move.
    external: Object.keys(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).dependencies ?? {}).filter((name) => !BUNDLED_PACKAGES.has(name)),
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap: true,
    logLevel: "silent",
    plugins: [ownUrl, zodEnglishOnly],
  });
}

/** Builds dist/node unless it is up to date; returns true when it built. */
export function ensureBuilt() {
  if (isFresh()) return false;
  return withLock(() => {
    if (isFresh()) return false; // another process built it while we waited
    const tmp = `${DIST}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    try {
      transpile(tmp);
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      throw new Error(`build failed (esbuild):\n${e instanceof Error ? e.message : String(e)}`);
    }
    copyAssets(SOURCE, join(tmp, "shared"));
    bundleCli(tmp);
    writeFileSync(join(tmp, "BUILD"), `built from ${relative(ROOT, SOURCE)}/ by scripts/build.mjs\n`);
    const old = `${DIST}.old-${process.pid}`;
    if (existsSync(DIST)) renameSync(DIST, old);
    renameSync(tmp, DIST);
    rmSync(old, { recursive: true, force: true });
    return true;
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === "--bundle") {
  await writeBundle(process.argv[3]);
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const built = ensureBuilt();
    process.stdout.write(built ? `built ${relative(process.cwd(), DIST) || DIST}\n` : `${relative(process.cwd(), DIST) || DIST} is up to date\n`);
  } catch (e) {
    process.stderr.write(`build: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
}
