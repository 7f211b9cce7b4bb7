/**
 * What shared/, functions/ and bin/ import at run time must be a runtime dependency: an install
 * without devDependencies (`npm ci --omit=dev`, a Cloud Functions deploy) has nothing else.
 * Test- and benchmark-only packages (saxes, wink-pos-tagger, …) stay devDependencies.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;
/** Loaded only when running from TypeScript sources (no build): a dev checkout, where devDependencies exist. */
const SOURCE_ONLY = new Set(["tsx"]);
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.(ts|mjs|js)$/.test(name) ? [path] : [];
  });
}

/** Bare package names a file imports (static or dynamic), type-only imports excepted. */
function packagesOf(source: string): string[] {
  const names: string[] = [];
  for (const m of source.matchAll(/^\s*import\s+(?!type\s)(?:[^'"]*?from\s+)?["']([^"'.][^"']*)["']|import\(\s*["']([^"'.][^"']*)["']\s*\)/gm)) {
    const spec = (m[1] ?? m[2])!;
    if (spec.startsWith("node:")) continue;
    names.push(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!);
  }
  return names;
}

describe("runtime dependencies", () => {
  it("every package shared/, functions/ and bin/ import is in dependencies", () => {
    const missing: string[] = [];
    for (const dir of ["shared", "functions", "bin"]) {
      for (const file of files(join(ROOT, dir))) {
        for (const name of packagesOf(readFileSync(file, "utf8"))) if (!(name in pkg.dependencies) && !SOURCE_ONLY.has(name)) missing.push(`${relative(ROOT, file)}: ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("test- and benchmark-only packages are devDependencies", () => {
    for (const name of ["saxes", "wink-pos-tagger", "vitest", "wtf_wikipedia"]) {
      expect(pkg.devDependencies[name], name).toBeDefined();
      expect(pkg.dependencies[name], name).toBeUndefined();
    }
  });
});
