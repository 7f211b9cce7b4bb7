/**
 * The CLI runs compiled JavaScript, not TypeScript through a loader: in a copy of the project whose
 * node_modules lacks tsx, bin/paracap.js builds dist/node once (also when two calls race) and runs
 * from it, and rebuilds after a source file changes.
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "../..");
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "paracap-compiled-"));
  for (const entry of ["bin", "scripts/build.mjs", "shared", "tsconfig.json", "tsconfig.build.json", "package.json"]) {
    cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
  }
  // every installed package except the TypeScript loader
  mkdirSync(join(dir, "node_modules"));
  for (const name of readdirSync(join(ROOT, "node_modules"))) {
    if (name === "tsx" || name === ".bin") continue;
    symlinkSync(join(ROOT, "node_modules", name), join(dir, "node_modules", name));
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const paracap = (...args: string[]) => run(process.execPath, [join(dir, "bin/paracap.js"), ...args], { cwd: dir, timeout: 540_000 });

describe("compiled CLI", () => {
  it("builds once when two calls race, then runs without tsx", async () => {
    const [a, b] = await Promise.all([paracap("--help"), paracap("--help")]);
    expect(a.stdout).toContain("paracap run");
    expect(b.stdout).toBe(a.stdout);
    expect(existsSync(join(dir, "dist/node/shared/cli/main.js"))).toBe(true);
    expect(existsSync(join(dir, "dist/node/shared/caption/data/ldnoobw-en.txt"))).toBe(true);
    expect(readdirSync(join(dir, "dist")).filter((n) => n !== "node")).toEqual([]); // no temp dirs or lock left behind
  });

  it("rebuilds after a source file changes, and the rebuilt code runs", async () => {
    const stamp = join(dir, "dist/node/BUILD");
    const before = statSync(stamp).mtimeMs;
    const source = join(dir, "shared/cli/main.ts");
    const later = new Date(Math.max(Date.now(), before + 1_000));
    utimesSync(source, later, later);
    const wikitext = join(dir, "page.wikitext");
    cpSync(join(ROOT, "test/fixtures/wikitext/Bodmin.txt"), wikitext);
    const { stdout } = await paracap("extract", wikitext);
    expect(statSync(stamp).mtimeMs).toBeGreaterThan(before);
    expect(stdout.split("\n").filter(Boolean).length).toBeGreaterThan(3);
    expect(stdout).toContain('"image":"File:');
  });
});
