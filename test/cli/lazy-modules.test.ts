/**
 * What a `paracap run` of Wikipedia dumps loads at start-up: the run command and the runner (as
 * compiled in dist/node) without the packages only other inputs need — sharp (pixels) and warcio (web
 * crawls) load at their first use, as does wink-nlp's model (the first caption tagged) — and the CLI's launcher without esbuild (only a due build needs it).
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, removeTempDirs, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

/**
 * The packages (folders under node_modules) whose modules a fresh node resolves running `args`: a
 * resolve hook names each on stderr. A CommonJS package's own require()s are not seen, but its entry
 * point, imported from ESM, is.
 */
function packagesLoaded(args: string[]): Set<string> {
  const dir = tempDir("paracap-lazy-");
  writeFileSync(join(dir, "hooks.mjs"), `export async function resolve(s, c, next) { const r = await next(s, c); process.stderr.write("RESOLVED " + r.url + "\\n"); return r; }\n`);
  writeFileSync(join(dir, "register.mjs"), `import { register } from "node:module"; register(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)});\n`);
  const r = spawnSync(process.execPath, ["--import", pathToFileURL(join(dir, "register.mjs")).href, ...args], { cwd: REPO, encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  const names = new Set<string>();
  for (const m of r.stderr.matchAll(/^RESOLVED .*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)) names.add(m[1]!);
  return names;
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
  });

  it("`paracap --help` (the launcher, its build check and the command table) loads no package at all", () => {
    expect([...packagesLoaded([join(REPO, "bin/paracap.js"), "--help"])]).toEqual([]);
  });
});
