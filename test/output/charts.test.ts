/** Map chart labels: a cell's share never reads "0.0%" for a few pairs, and each panel is headed by its size. */
import { describe, expect, it } from "vitest";
import { characteristicMap } from "../../shared/output/characteristic-map.ts";
import { mapsChart, shareLabel } from "../../shared/output/charts.ts";

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
