/**
 * The chart store: rendered SVGs on disk, keyed by the spec, the renderer and vega's versions, so a
 * report written again from the same figures (another process, a rerun) draws nothing; atomic files,
 * a bounded folder, and no store (charts drawn as before) where the folder or the versions are missing.
 */
import { readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TopLevelSpec } from "vega-lite";
import { afterAll, describe, expect, it } from "vitest";
import { chartLibraryVersions, openChartStore, pruneChartStore } from "../../shared/output/chart-store.ts";
import { forgetRenderedCharts, renderSvg, renderUncached, scopeSvgIds } from "../../shared/output/charts.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const SVG = '<svg xmlns="http://www.w3.org/2000/svg"><g/></svg>';

describe("chart store", () => {
  it("gives back what was stored for the same spec, renderer and versions, and nothing for another", () => {
    const dir = tempDir("paracap-charts-");
    const store = openChartStore(dir, "renderer A", "vega@6 vega-lite@6")!;
    expect(store.read('{"mark":"bar"}')).toBeNull();
    expect(store.write('{"mark":"bar"}', SVG)).toBe(true);
    expect(store.read('{"mark":"bar"}')).toBe(SVG);
    expect(store.read('{"mark":"line"}')).toBeNull();
    expect(openChartStore(dir, "renderer B", "vega@6 vega-lite@6")!.read('{"mark":"bar"}')).toBeNull();
    expect(openChartStore(dir, "renderer A", "vega@7 vega-lite@6")!.read('{"mark":"bar"}')).toBeNull();
    // one finished file, no temporary left behind
    expect(readdirSync(join(dir, "charts"))).toEqual([expect.stringMatching(/^[0-9a-f]{40}\.svg$/)]);
  });

  it("is absent without a cache folder or readable versions; an unwritable folder only skips the copy", () => {
    expect(openChartStore(null, "r", "v")).toBeNull();
    expect(openChartStore(tempDir("paracap-charts-"), "r", null)).toBeNull();
    expect(chartLibraryVersions(tempDir("paracap-no-modules-"))).toBeNull();
    const blocked = join(tempDir("paracap-charts-"), "file");
    writeFileSync(blocked, "not a folder");
    const store = openChartStore(blocked, "r", "v")!;
    expect(store.write("{}", SVG)).toBe(false);
    expect(store.read("{}")).toBeNull();
  });

  it("keys on the installed vega and vega-lite", () => {
    const root = new URL("../../", import.meta.url).pathname;
    const version = (p: string) => (JSON.parse(readFileSync(join(root, "node_modules", p, "package.json"), "utf8")) as { version: string }).version;
    expect(chartLibraryVersions()).toBe(`vega@${version("vega")} vega-lite@${version("vega-lite")}`);
  });

  it("stays bounded: past the limit the oldest files go", () => {
    const dir = tempDir("paracap-charts-prune-");
    for (let i = 0; i < 12; i++) {
      const f = join(dir, `${String(i).padStart(40, "0")}.svg`);
      writeFileSync(f, SVG);
      utimesSync(f, 1_000_000 + i, 1_000_000 + i);
    }
    expect(pruneChartStore(dir, 12, 8)).toBe(0);
    writeFileSync(join(dir, "n.svg"), SVG);
    expect(pruneChartStore(dir, 12, 8)).toBe(5);
    const left = readdirSync(dir).sort();
    expect(left).toHaveLength(8);
    expect(left).not.toContain(`${"0".repeat(40)}.svg`); // the oldest went
    expect(left).toContain("n.svg"); // the newest stayed
  });

  it("is what renderSvg reads before drawing, and where it puts what it drew", async () => {
    const before = process.env.PARACAP_CACHE_DIR;
    const dir = tempDir("paracap-charts-render-");
    process.env.PARACAP_CACHE_DIR = dir;
    try {
      const spec: TopLevelSpec = { data: { values: [{ x: "a", v: 3 }, { x: "b", v: 5 }] }, mark: "bar", encoding: { x: { field: "x", type: "nominal" }, y: { field: "v", type: "quantitative" } } };
      forgetRenderedCharts();
      const drawn = await renderSvg(spec);
      expect(scopeSvgIds(drawn, "c")).toBe(scopeSvgIds(await renderUncached(spec), "c"));
      const files = readdirSync(join(dir, "charts"));
      expect(files).toHaveLength(1);
      expect(readFileSync(join(dir, "charts", files[0]!), "utf8")).toBe(drawn);
      // a later process (here: this one, having forgotten) reads the file instead of drawing
      writeFileSync(join(dir, "charts", files[0]!), SVG);
      forgetRenderedCharts();
      expect(await renderSvg(spec)).toBe(SVG);
      // a folder that cannot be made (under a file): drawn all the same
      const blocked = join(dir, "a-file");
      writeFileSync(blocked, "");
      process.env.PARACAP_CACHE_DIR = blocked;
      forgetRenderedCharts();
      expect(scopeSvgIds(await renderSvg(spec), "c")).toBe(scopeSvgIds(drawn, "c"));
    } finally {
      if (before === undefined) delete process.env.PARACAP_CACHE_DIR;
      else process.env.PARACAP_CACHE_DIR = before;
      forgetRenderedCharts();
    }
  });
});
