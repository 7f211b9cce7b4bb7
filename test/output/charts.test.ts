/** Charts are byte-identical for the same data in one process and across processes (reports compare byte for byte on resume). */
import { describe, expect, it } from "vitest";
import { characteristicMap } from "../../shared/output/characteristic-map.ts";
import { mapsChart, stableSvgIds } from "../../shared/output/charts.ts";

const map = characteristicMap([[0.24, 0.69], [0.9, 0.95], [0.5, 0.55]]);

describe("chart SVG ids", () => {
  it("a heatmap rendered twice is the same SVG: Vega's counter-numbered gradient ids are renamed after the content", async () => {
    const first = await mapsChart([{ corpus: "gold", map }], "semantic");
    const second = await mapsChart([{ corpus: "gold", map }], "semantic");
    expect(first).toMatch(/url\(#vg[0-9a-f]+-0\)/);
    expect(first).not.toMatch(/gradient_\d/);
    expect(second).toBe(first);
  });

  it("renames every occurrence consistently and leaves other text alone", () => {
    const svg = '<defs><linearGradient id="gradient_7"/><clipPath id="clip12"/></defs><path fill="url(#gradient_7)" clip-path="url(#clip12)"/><text>clip art</text>';
    const out = stableSvgIds(svg);
    const [g, c] = [...out.matchAll(/id="([^"]+)"/g)].map((m) => m[1]);
    expect(g).not.toBe(c);
    expect(out).toContain(`fill="url(#${g})"`);
    expect(out).toContain(`clip-path="url(#${c})"`);
    expect(out).toContain("<text>clip art</text>");
    // the same content with other counter values gives the same ids
    expect(stableSvgIds(svg.replaceAll("gradient_7", "gradient_3").replaceAll("clip12", "clip1"))).toBe(out);
  });
});
