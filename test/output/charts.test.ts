/**
 * Inline SVG charts of report.html: their ids (clip paths, gradients) come from vega's process-wide
 * counters, so they are renamed per chart: the same chart renders the same bytes every time, and
 * two charts in one page never share an id. Map labels: a cell's share never reads "0.0%" for a few
 * pairs, and each panel is headed by its size.
 */
import { describe, expect, it } from "vitest";
import { characteristicMap, mapFromShares } from "../../shared/compare/characteristic-map.ts";
import type { TopLevelSpec } from "vega-lite";
import { mapsChart, renderUncached, scopeSvgIds, shareLabel } from "../../shared/output/charts.ts";

describe("scopeSvgIds", () => {
  it("renames every id and its references, in order of appearance, leaving other # values alone", () => {
    const svg = `<svg><defs><clipPath id="clip12"><rect/></clipPath><linearGradient id="gradient_3"/></defs><g clip-path="url(#clip12)"><path fill="url(#gradient_3)" stroke="#ddd"/><use xlink:href="#clip1"/></g><clipPath id="clip1"/></svg>`;
    expect(scopeSvgIds(svg, "chart-maps")).toBe(
      `<svg><defs><clipPath id="chart-maps-0"><rect/></clipPath><linearGradient id="chart-maps-1"/></defs><g clip-path="url(#chart-maps-0)"><path fill="url(#chart-maps-1)" stroke="#ddd"/><use xlink:href="#chart-maps-2"/></g><clipPath id="chart-maps-2"/></svg>`,
    );
    expect(scopeSvgIds("<svg><g/></svg>", "x")).toBe("<svg><g/></svg>");
  });

  it("a chart with a gradient legend renders the same bytes a second time in the same process", async () => {
    const map = mapFromShares(10, [
      [0.1, 0.1, 0, 0, 0],
      [0, 0.2, 0.1, 0, 0],
      [0, 0, 0.3, 0.1, 0],
      [0, 0, 0, 0.1, 0],
      [0, 0, 0, 0, 0],
    ]);
    const spec: TopLevelSpec = { data: { values: [{ x: "a", v: 0.1 }, { x: "b", v: 0.9 }] }, mark: "rect", encoding: { x: { field: "x", type: "nominal" }, color: { field: "v", type: "quantitative" } } };
    const [a, b] = [await renderUncached(spec), await renderUncached(spec)];
    expect(a).toMatch(/id="gradient_\d+"/);
    expect(a).not.toBe(b); // vega's counters moved on
    expect(scopeSvgIds(a, "chart-maps")).toBe(scopeSvgIds(b, "chart-maps"));
    expect(scopeSvgIds(a, "chart-maps")).not.toMatch(/gradient_\d|"clip\d/);
    // the charts a report draws are remembered by spec: the second is the first's SVG
    const [c, d] = [await mapsChart([{ corpus: "gold", map }], "semantic"), await mapsChart([{ corpus: "gold", map }], "semantic")];
    expect(c).toMatch(/id="gradient_\d+"/);
    expect(d).toBe(c);
  });
});

describe("characteristic map chart", () => {
  it("labels empty cells blank, a few pairs of a large corpus <0.1%, small shares to 0.1 and the rest to 1 %", () => {
    expect([0, 1 / 4076, 0.003, 0.0801, 0.38, 1].map(shareLabel)).toEqual(["", "<0.1%", "0.3%", "8.0%", "38%", "100%"]);
  });

  it("heads each panel with the corpus and its number of pairs, on two lines", async () => {
    const svg = await mapsChart([{ corpus: "gold", map: characteristicMap([[0.3, 0.7]]) }, { corpus: "MSRPC train (all pairs)", map: characteristicMap(Array.from({ length: 4076 }, () => [0.9, 0.9] as const)) }], "semantic");
    expect(svg).toContain("<tspan>gold</tspan><tspan x=\"0\" dy=\"14\">n = 1</tspan>");
    expect(svg).toContain("<tspan>MSRPC train (all pairs)</tspan><tspan x=\"0\" dy=\"14\">n = 4,076</tspan>");
    expect(svg).toContain(">semantic level</text>");
  });
});
