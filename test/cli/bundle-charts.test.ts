/**
 * The CLI's bundle (scripts/build.mjs) carries its own copy of vega and vega-lite: report.html written
 * through it (`paracap report`, as a user runs it) is byte for byte the one written in-process from
 * the sources with the packages in node_modules, charts included.
 */
import { cpSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../../shared/cli/main.ts";
import { removeTempDirs, run, runCli, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

/** report.html without its "Generated <time> in <seconds>" line */
const page = (dir: string) => readFileSync(join(dir, "report.html"), "utf8").replace(/<p class="meta">Generated [^<]*/, "");

describe("the bundled CLI's charts", () => {
  let inProcess: string;
  let bundled: string;
  beforeAll(async () => {
    inProcess = tempDir("paracap-bundle-charts-");
    await run(inProcess);
    bundled = tempDir("paracap-bundle-charts-");
    cpSync(inProcess, bundled, { recursive: true });
    for (const dir of [inProcess, bundled]) rmSync(join(dir, "report.html"));
  });

  it("are the charts vega draws from node_modules", async () => {
    const spy = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(await main(["report", inProcess])).toBe(0);
    } finally {
      spy.mockRestore();
    }
    const r = await runCli(["report", bundled]);
    expect(r.code, r.stderr).toBe(0);
    const html = page(bundled);
    expect(html).toContain("<svg");
    expect(html).toBe(page(inProcess));
  });
});
