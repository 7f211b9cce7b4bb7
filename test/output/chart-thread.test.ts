/**
 * The chart thread (output/chart-thread.ts): what it draws is what this thread draws, a chart it cannot
 * draw fails as it would here, and without a started thread charts are drawn here.
 */
import type { TopLevelSpec } from "vega-lite";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { drawChart, startChartThread, stopChartThread } from "../../shared/output/chart-thread.ts";
import { histogramChart, renderUncached, scopeSvgIds } from "../../shared/output/charts.ts";

const spec = { data: { values: [{ x: "a", y: 1 }, { x: "b", y: 3 }] }, mark: "bar", encoding: { x: { field: "x", type: "nominal" }, y: { field: "y", type: "quantitative" } } } as TopLevelSpec;

// One started thread serves the tests that need a running one (each start loads vega in a new worker,
// ~2 CPU-s); the test of no thread and a stopped one starts and stops its own.
describe("chart thread", () => {
  beforeAll(() => startChartThread());
  afterAll(stopChartThread);

  it("draws the same SVG as this thread", async () => {
    let here = 0;
    const drawn = await drawChart(spec, () => (here++, renderUncached(spec)));
    expect(here).toBe(0);
    expect(scopeSvgIds(drawn, "c")).toBe(scopeSvgIds(await renderUncached(spec), "c"));
  });

  it("leaves a chart it cannot draw to this thread, whose error is the one given", async () => {
    const bad = { mark: "no-such-mark" } as unknown as TopLevelSpec;
    const here = await renderUncached(bad).then(() => "drawn", (e: Error) => e.message);
    expect(here).not.toBe("drawn");
    await expect(drawChart(bad, () => renderUncached(bad))).rejects.toThrow(here);
    // and keeps drawing afterwards
    expect(await drawChart(spec, () => Promise.reject(new Error("drawn here")))).toMatch(/^<svg/);
  });

  it("serves the report's charts (renderSvg) when started", async () => {
    const byTier = [{ tier: "bronze", histogram: { n: 2, mean: 0.5, sd: 0.1, bins: [{ start: 0.4, end: 0.45, count: 1 }, { start: 0.55, end: 0.6, count: 1 }] } }];
    const svg = await histogramChart(`thread-test-${process.pid}-${Date.now()}`, byTier as Parameters<typeof histogramChart>[1]);
    expect(svg).toMatch(/^<svg/);
  });
});

describe("no chart thread", () => {
  afterEach(stopChartThread);

  it("draws here when no thread runs, or when the thread is stopped", async () => {
    expect(await drawChart(spec, () => Promise.resolve("here"))).toBe("here");
    startChartThread();
    await stopChartThread();
    expect(await drawChart(spec, () => Promise.resolve("here"))).toBe("here");
  });
});
