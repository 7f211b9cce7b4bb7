/**
 * The CLI's bundle (scripts/build.mjs), as a user runs it: report.html written through it (`paracap
 * report`; the bundle carries its own vega and vega-lite) is byte for byte the one written in-process
 * from the sources with the packages in node_modules, charts included; and a run on worker threads
 * started from the bundle (extract workers, the JS bz2 decoder's workers) writes the same datasets
 * and stats as the in-process run, its charts drawn on the bundle's chart thread.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../../shared/cli/main.ts";
import { forgetRenderedCharts } from "../../shared/output/charts.ts";
import { removeTempDirs, runCli, tempDir } from "../runner/helpers.ts";
import { sampleRunCopy } from "../support/sample-run.ts";

afterAll(removeTempDirs);

/** report.html without its "Generated <time> in <seconds>" line */
const page = (dir: string) => readFileSync(join(dir, "report.html"), "utf8").replace(/<p class="meta">Generated [^<]*/, "");

describe("the bundled CLI", () => {
  let inProcess: string;
  let bundled: string;
  // Both sides draw every chart: no chart store shared with other runs (shared/output/chart-store.ts)
  // and nothing this worker remembers from earlier files.
  const cacheBefore = process.env.PARACAP_CACHE_DIR;
  afterAll(() => {
    if (cacheBefore === undefined) delete process.env.PARACAP_CACHE_DIR;
    else process.env.PARACAP_CACHE_DIR = cacheBefore;
  });
  beforeAll(async () => {
    process.env.PARACAP_CACHE_DIR = tempDir("paracap-bundle-cache-");
    forgetRenderedCharts();
    inProcess = await sampleRunCopy("paracap-bundle-charts-");
    bundled = await sampleRunCopy("paracap-bundle-charts-");
    for (const dir of [inProcess, bundled]) rmSync(join(dir, "report.html"));
  });

  it("draws the charts vega draws from node_modules", async () => {
    const spy = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      forgetRenderedCharts();
      expect(await main(["report", inProcess])).toBe(0);
    } finally {
      spy.mockRestore();
    }
    const r = await runCli(["report", bundled], { env: { PARACAP_CACHE_DIR: tempDir("paracap-bundle-cache-") } });
    expect(r.code, r.stderr).toBe(0);
    const html = page(bundled);
    expect(html).toContain("<svg");
    expect(html).toBe(page(inProcess));
  });
  it("runs its worker threads from the bundle: the same datasets and stats as in-process", async () => {
    const out = tempDir("paracap-bundle-workers-");
    const config = join(out, "..", `${out.split("/").pop()}-config.json`);
    writeFileSync(config, JSON.stringify({ dump: { decoder: "js" } }));
    // PARACAP_THREADS=always: extraction and partition tasks on the worker threads on any machine, and the
    // report's charts on the chart thread (an empty chart store: every chart is drawn there)
    const r = await runCli(["run", "--quiet", "--workers", "2", "--config", config, "--out", out], { env: { PARACAP_THREADS: "always", PARACAP_CACHE_DIR: tempDir("paracap-bundle-cache-") } });
    rmSync(config);
    expect(r.code, r.stderr).toBe(0);
    for (const f of ["gold.jsonl", "silver.jsonl", "bronze.jsonl", "stats.json"]) expect(readFileSync(join(out, f), "utf8"), f).toBe(readFileSync(join(inProcess, f), "utf8"));
    expect(r.stderr).not.toMatch(/chart thread failed/);
    const svgs = (dir: string) => page(dir).match(/<svg[\s\S]*?<\/svg>/g) ?? [];
    expect(svgs(out).length).toBeGreaterThan(0);
    expect(svgs(out)).toEqual(svgs(inProcess));
  });
});
