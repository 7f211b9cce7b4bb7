/**
 * What a `paracap run` of Wikipedia dumps loads at start-up: the run command and the runner (as
 * compiled in dist/node) without the packages only other inputs need — sharp (pixels) and warcio (web
 * crawls) load at their first use, as does wink-nlp's model (the first caption tagged) — and the CLI's launcher without esbuild (only a due build needs it).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, removeTempDirs, tempDir } from "../runner/helpers.ts";
// @ts-expect-error: a plain ES module without types
import { BUNDLE_DIR } from "../../scripts/build.mjs";

afterAll(removeTempDirs);

/**
 * The packages (folders under node_modules) whose modules a fresh node resolves running `args`: a
 * resolve hook names each on stderr. A CommonJS package's own require()s are not seen, but its entry
 * point, imported from ESM, is.
 */
function packagesLoaded(args: string[]): Set<string> {
  const r = spawnSync(process.execPath, ["--import", registerHook(), ...args], { cwd: REPO, encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  const names = new Set<string>();
  for (const m of r.stderr.matchAll(/^RESOLVED .*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)) names.add(m[1]!);
  return names;
}

/** A module to --import that has node name every module it resolves on stderr ("RESOLVED <url>"). */
function registerHook(): string {
  const dir = tempDir("paracap-lazy-");
  // Hooks run on a thread of their own: a synchronous write to fd 2 is never lost at the process's
  // exit, as process.stderr's forwarded writes could be on a busy machine.
  writeFileSync(join(dir, "hooks.mjs"), `import { writeSync } from "node:fs";\nexport async function resolve(s, c, next) { const r = await next(s, c); writeSync(2, "RESOLVED " + r.url + "\\n"); return r; }\n`);
  writeFileSync(join(dir, "register.mjs"), `import { register } from "node:module"; register(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)});\n`);
  return pathToFileURL(join(dir, "register.mjs")).href;
}

const dist = (path: string) => pathToFileURL(join(REPO, "dist/node/shared", path)).href;

describe("start-up modules", () => {
  beforeAll(() => {
    // dist/node up to date (npm test builds first; a lone vitest run may not have)
    const built = spawnSync(process.execPath, [join(REPO, "scripts/build.mjs")], { cwd: REPO, encoding: "utf8" });
    expect(built.status, built.stderr).toBe(0);
  });

  it("the run command and the runner load neither sharp, warcio nor wink-nlp, but what a Wikipedia run needs", () => {
    const loaded = packagesLoaded(["--input-type=module", "-e", `await import(${JSON.stringify(dist("cli/run-command.js"))}); await import(${JSON.stringify(dist("runner/local-runner.js"))});`]);
    expect(loaded).toContain("zod");
    // wink-nlp and its model are required when the first caption is tagged (shared/caption/wink-tagger.ts)
    expect(loaded).not.toContain("wink-nlp");
    expect(loaded).not.toContain("wink-eng-lite-web-model");
    expect(loaded).not.toContain("sharp");
    expect(loaded).not.toContain("warcio");
    // the tar reader (image inputs), pako (large WARC members)
    for (const name of ["tar-stream", "pako"]) expect(loaded).not.toContain(name);
  });

  it("the launcher runs the CLI's bundle, whose file URLs all point at compiled modules that exist", () => {
    const bundle = join(REPO, "dist/node", BUNDLE_DIR);
    const files = readdirSync(bundle).filter((f) => f.endsWith(".js"));
    expect(files).toContain("main.js");
    const urls = files.flatMap((f) => [...readFileSync(join(bundle, f), "utf8").matchAll(/new URL\("([^"]+)", import\.meta\.url\)/g)].map((m) => m[1]!));
    // every module that finds files beside itself (data, workers, createRequire) is given its own compiled file
    expect(urls).toContain("../shared/runner/worker-pool.js");
    expect(urls).toContain("../shared/dump/bz2-parallel.js");
    for (const u of urls) expect(existsSync(join(bundle, u)), u).toBe(true);
    const text = files.map((f) => readFileSync(join(bundle, f), "utf8")).join("\n");
    expect(text.match(/import\.meta\.url/g)!.length).toBe(urls.length);
    // and bin/paracap.js imports from it
    const r = spawnSync(process.execPath, ["--import", registerHook(), join(REPO, "bin/paracap.js"), "--help"], { cwd: REPO, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`RESOLVED ${pathToFileURL(join(bundle, "main.js")).href}`);
    expect(r.stderr).not.toContain("/dist/node/shared/cli/main.js");
  });

  it("`paracap --help` (the launcher, its build check and the command table) loads no package at all", () => {
    expect([...packagesLoaded([join(REPO, "bin/paracap.js"), "--help"])]).toEqual([]);
  });
});
