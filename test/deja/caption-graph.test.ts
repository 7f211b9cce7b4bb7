/**
 * Déjà grouping on real caption lists: the Conceptual Captions excerpt (every URL distinct; 116
 * caption strings recur for several URLs), with the URL's host standing in for the user or page.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createCanonicalizer } from "../../shared/deja/canonical-form.ts";
import { DejaGrouper, distribution, GraphLine, groupCandidates, writeGraph, type DejaGroup } from "../../shared/deja/caption-graph.ts";

const CC = new URL("../../../shared/data/conceptual-captions/gcc-validation-part1-lines00001-07900.tsv", import.meta.url).pathname;
const uses = readFileSync(CC, "utf8").split("\n").filter((l) => l.length > 0).map((l) => {
  const [caption, url] = l.split("\t") as [string, string];
  return { caption, image: url, page: new URL(url).host };
});

const canonicalizer = createCanonicalizer();

describe("Déjà caption groups and graph", () => {
  const grouper = new DejaGrouper(canonicalizer);
  for (const u of uses) grouper.add(u);
  const groups = grouper.retained();

  it("counts every use: grouped or dropped with a reason", () => {
    expect(grouper.counts.uses).toBe(7900);
    const dropped = Object.values(grouper.counts.dropped).reduce((a, b) => a + b, 0);
    expect(dropped).toBeGreaterThan(0);
    expect(Object.keys(grouper.counts.dropped).every((r) => r === "no_verb_prep_adj" || r === "empty_form")).toBe(true);
    expect(grouper.counts.forms).toBeLessThan(7900 - dropped);
  });

  it("keeps forms used for ≥ 2 distinct images on ≥ 2 sites, merging variants the verbatim rule would keep apart", () => {
    expect(groups.length).toBeGreaterThan(5);
    for (const g of groups) {
      expect(g.images.size).toBeGreaterThanOrEqual(2);
      expect(g.pages.size).toBeGreaterThanOrEqual(2);
    }
    const premiere = groups.find((g) => g.form === "actor arrive IN premiere")!;
    expect([...premiere.originals.keys()].sort()).toEqual(["actor arrives at the premiere", "actor arrives at the premiere .", "actor arrives for the premiere"]);
    // the canonical-form pivot: distinct originals of one group are candidates
    expect(groupCandidates(premiere)).toHaveLength(3);
    expect(groups.filter((g) => g.originals.size > 1).length).toBeGreaterThan(3);
    // stricter settings keep fewer
    expect(grouper.retained({ minImages: 3, minPages: 3 }).length).toBeLessThan(groups.length);
  });

  it("writes the bipartite graph as JSONL (captions, images, typed edges) and Déjà's statistics", () => {
    let text = "";
    const stats = writeGraph(groups, (chunk) => (text += chunk));
    const lines = text.trimEnd().split("\n").map((l) => GraphLine.parse(JSON.parse(l)));
    const captions = lines.filter((l) => l.kind === "caption"), images = lines.filter((l) => l.kind === "image"), edges = lines.filter((l) => l.kind === "edge");
    expect(captions).toHaveLength(groups.length);
    expect(stats.captions).toBe(groups.length);
    expect(images).toHaveLength(stats.images);
    expect(new Set(images.map((i) => i.id)).size).toBe(images.length);
    // every edge joins a caption node to an image node; each group's images are all reached
    const captionIds = new Set(captions.map((c) => c.id)), imageIds = new Set(images.map((i) => i.id));
    for (const e of edges) {
      expect(e.type).toBe("original");
      expect(captionIds.has(e.caption)).toBe(true);
      expect(imageIds.has(e.image)).toBe(true);
    }
    const reached = new Set(edges.map((e) => `${e.caption} ${e.image}`));
    expect(reached.size).toBe(groups.reduce((s, g: DejaGroup) => s + g.images.size, 0));
    expect(stats.imagesPerCaption!.max).toBe(Math.max(...groups.map((g) => g.images.size)));
    expect(stats.imagesPerCaption!.p50).toBeGreaterThanOrEqual(2);
  });

  it("distribution: mean, population std and nearest-rank percentiles", () => {
    expect(distribution([])).toBeNull();
    // 1..8: mean 4.5, variance 5.25; nearest rank: p25 = 2nd, p50 = 4th, p75 = 6th value
    expect(distribution([8, 1, 7, 2, 6, 3, 5, 4])).toEqual({ mean: 4.5, std: Math.sqrt(5.25), p25: 2, p50: 4, p75: 6, max: 8 });
  });
});
