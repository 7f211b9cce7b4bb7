import { mkdtempSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { functionsSource, hashDirectory } from "../../infra/source-archive.ts";
import { fakeFunctionsDir } from "./pulumi-mocks.ts";

describe("functionsSource", () => {
  it("resolves the directory against cwd and names the object by content", () => {
    const dir = fakeFunctionsDir();
    const s = functionsSource(".", dir);
    expect(s.dir).toBe(dir);
    expect(s.objectName).toBe(`functions-${hashDirectory(dir).slice(0, 16)}.zip`);
  });

  it("changes the name when a file's content or name changes, not otherwise", () => {
    const dir = fakeFunctionsDir();
    const first = functionsSource(dir).objectName;
    expect(functionsSource(dir).objectName).toBe(first);
    writeFileSync(join(dir, "functions", "index.js"), "export const x = 1;\n");
    const edited = functionsSource(dir).objectName;
    expect(edited).not.toBe(first);
    renameSync(join(dir, "functions", "index.js"), join(dir, "functions", "main.js"));
    expect(functionsSource(dir).objectName).not.toBe(edited);
  });

  it("fails with the build command when the directory is missing", () => {
    expect(() => functionsSource("/nonexistent/paracap/dist/functions")).toThrow(/npm run build:functions/);
  });

  it("fails when the directory has no package.json", () => {
    const dir = mkdtempSync(join(tmpdir(), "paracap-nopkg-"));
    expect(() => functionsSource(dir)).toThrow(/no package\.json/);
  });
});
