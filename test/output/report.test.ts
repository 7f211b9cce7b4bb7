/** stats.json funnel rows from counters, and report.md rendering (damaged and missing shards, accounting). */
import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import type { ScoredPair } from "../../shared/core/records.ts";
import { mdCode, mdText } from "../../shared/output/markdown-escape.ts";
import { renderReport } from "../../shared/output/report.ts";
import { forTerminal } from "../../shared/output/terminal-text.ts";
import { funnelTable, type Stats } from "../../shared/output/stats.ts";

// the funnel as it was before the rendered-template and spelling-fix filters (both are switched off here)
const config = resolveConfig({ tiers: ["silver"], extraction: { unknownTemplates: "delete" }, pairs: { dropSpellingFixes: false } });

function counters(): Counters {
  const c = new Counters();
  const row = (id: string, v: [number, number, number, number, number, number]) => {
    const [images, ge2, ge5, references, captions, candidates] = v;
    c.merge({ [`funnel.silver.${id}.images`]: images, [`funnel.silver.${id}.images_ge2`]: ge2, [`funnel.silver.${id}.images_ge5`]: ge5, [`funnel.silver.${id}.references`]: references, [`funnel.silver.${id}.captions`]: captions, [`funnel.silver.${id}.candidates`]: candidates });
  };
  const filter = (id: string, inn: number, kept: number, reason?: string) => {
    c.merge({ [`filter.silver.${id}.in`]: inn, [`filter.silver.${id}.kept`]: kept, [`filter.silver.${id}.dropped`]: inn - kept });
    if (reason && inn > kept) c.inc(`filter.silver.${id}.dropped.${reason}`, inn - kept);
  };
  // the silver funnel of the golden run
  row("all", [1246, 10, 0, 1257, 1204, 5]);
  for (const [id, v] of [["not_audio_v1", [1236, 10, 0, 1247, 1197, 5]], ["min_refs_v1", [10, 10, 0, 21, 16, 5]], ["max_refs_v1", [10, 10, 0, 21, 16, 5]], ["has_caption_v1", [8, 4, 0, 12, 16, 5]], ["non_empty_v1", [8, 4, 0, 12, 16, 5]], ["readable_v1", [8, 4, 0, 12, 16, 5]], ["min_words_v1", [6, 2, 0, 8, 8, 2]], ["max_words_v1", [6, 2, 0, 8, 8, 2]], ["not_profane_v1", [6, 2, 0, 8, 8, 2]], ["has_verb_v1", [4, 1, 0, 5, 5, 1]], ["image_captioned_refs_v1", [1, 1, 0, 2, 2, 1]]] as const) row(id, [...v]);
  filter("not_audio_v1", 1257, 1247, "audio_file");
  filter("min_refs_v1", 1247, 21, "too_few_references");
  filter("has_verb_v1", 8, 5, "no_verb");
  c.merge({ "funnel.silver.unique_v1.candidates": 1, "funnel.silver.divergent_v1.candidates": 1 });
  return c;
}

describe("funnelTable", () => {
  it("derives every row from counters; pair rows carry only candidates, the last row is recounted on the dataset", () => {
    const rows = funnelTable(config, counters(), "silver", { images: 1, images_ge2: 1, images_ge5: 0, references: 2, captions: 2, pairs: 1 });
    expect(rows.map((r) => [r.step, r.paper_step, r.id])).toEqual([
      [0, 0, "all"], [1, 0, "not_audio_v1"], [2, 1, "min_refs_v1"], [3, 2, "max_refs_v1"], [4, 3, "has_caption_v1"], [5, 3, "non_empty_v1"], [6, 3, "readable_v1"], [7, 4, "min_words_v1"], [8, 4, "max_words_v1"],
      [9, 4, "not_profane_v1"], [10, 5, "has_verb_v1"], [11, 6, "image_captioned_refs_v1"], [12, 7, "unique_v1"], [13, 8, "divergent_v1"], [14, 9, "significant_difference_v1"],
    ]);
    expect(rows.filter((r) => r.in_paper === false).map((r) => r.id)).toEqual(["not_audio_v1", "readable_v1", "max_words_v1"]);
    expect(rows[0]!.in_paper).toBeNull();
    expect(rows[0]).toMatchObject({ images: 1246, references: 1257, mean_refs_per_image: 1.01, captions: 1204, candidates: 5, filter: null, unit: null });
    expect(rows[1]!.filter).toEqual({ in: 1257, kept: 1247, dropped: 10, reasons: { audio_file: 10 } });
    expect(rows[2]!.filter).toEqual({ in: 1247, kept: 21, dropped: 1226, reasons: { too_few_references: 1226 } });
    expect(rows[12]).toMatchObject({ images: null, images_ge2: null, references: null, mean_refs_per_image: null, captions: null, candidates: 1 });
    expect(rows[14]).toMatchObject({ images: 1, images_ge2: 1, images_ge5: 0, references: 2, mean_refs_per_image: 2, captions: 2, candidates: 1 });
  });
});

describe("renderReport", () => {
  const stats = (over: Partial<Stats>): Stats => ({
    version: 1,
    inputs: [{ uri: "enwiki-20261101-pages-articles-multistream.xml.bz2", kind: "current", shards: 3, tiers: ["silver"] }],
    shards: { total: 3, ok: 1, corrupt: [], missing: [] },
    failedTasks: [],
    complete: true,
    extraction: {
      "dump.pages": 207, "dump.revisions": 326, "dump.revisions.emitted": 226, "dump.skipped.namespace": 1, "dump.skipped.redirect": 99,
      "extract.current.references": 1257, "extract.current.references.gallery": 97, "extract.current.references.link": 1045, "extract.current.references.template": 115,
      "extract.current.revisions": 106, "extract.current.shuffle_records": 1254,
    },
    tiers: { silver: { input: "current", pairs: 1, funnel: funnelTable(config, counters(), "silver", { images: 1, images_ge2: 1, images_ge5: 0, references: 2, captions: 2, pairs: 1 }) } },
    counters: {},
    ...over,
  });

  it("says which preset ran, and what the paper's bronze rule would have dropped (151 MB history figures)", () => {
    const md = renderReport(stats({ counters: { "filter.bronze.max_uses_v1.paper_rule_dropped": 18062, "filter.bronze.max_uses_v1.paper_rule_dropped_images": 16 } }), {}, { generated: "t", elapsedSeconds: null, preset: "improved" });
    expect(md).toContain("Method: `preset: improved` (the default). For the published rules exactly, run with a config file holding `{\"preset\": \"paper\"}`.");
    expect(md).toContain("bronze: the bound counted distinct uses; the paper's rule (every revision's use a reference) would have dropped 16 images with 18,062 references here.");
    expect(renderReport(stats({}), {}, { generated: "t", elapsedSeconds: null, preset: "paper" })).toContain("Method: `preset: paper`, the published rules exactly.");
  });

  it("counts every image the pixel pivot looked at: decoded, without bytes, outside the bounds by their header, not decoded", () => {
    const p = "pixel_identity.";
    const md = renderReport(stats({ counters: { [`${p}mode.phash`]: 1, [`${p}threshold`]: 8, [`${p}max_diameter`]: 16, [`${p}images`]: 10, [`${p}decoded`]: 6, [`${p}no_bytes`]: 1, [`${p}outside_bounds.too_small`]: 2, [`${p}failed.corrupt`]: 1 } }), {}, { generated: "t", elapsedSeconds: null });
    expect(md).toContain("- 10 images looked at: 6 decoded, 1 without bytes, outside the bounds by their header (not decoded): too_small 2, not decoded: corrupt 1.");
    // decoded, then dropped by the bounds (transparency): decoded = hashes + these
    const after = renderReport(stats({ counters: { [`${p}mode.phash`]: 1, [`${p}images`]: 26, [`${p}decoded`]: 23, [`${p}decoded_outside_bounds.has_transparency`]: 2, [`${p}index.hashes`]: 21 } }), {}, { generated: "t", elapsedSeconds: null });
    expect(after).toContain("- 26 images looked at: 23 decoded (2 of them then outside the bounds: has_transparency 2), 0 without bytes.");
    expect(after).toContain("- Index: 21 hashes,");
  });

  it("accounts for every revision read and names damaged and missing shards with file and offset", () => {
    const md = renderReport(stats({
      complete: false,
      shards: {
        total: 3, ok: 1,
        corrupt: [{ shard: "s00001-x@1000", file: "enwiki.xml.bz2[1000..2000]", offset: 438528, error: "enwiki.xml.bz2[1000..2000] at decompressed byte 438528: bz2 data is truncated | or corrupt" }],
        missing: ["s00002-x@2000"],
      },
    }), {}, { generated: "2026-01-01T00:00:00.000Z", elapsedSeconds: 1.25 });
    expect(md).toContain("Generated 2026-01-01T00:00:00.000Z in 1.3 s.");
    expect(renderReport(stats({}), {}, { generated: "t", elapsedSeconds: 0.4, resumed: true })).toContain("Generated t in 0.4 s (this run resumed an earlier one, whose time is not counted).");
    expect(md).toContain("Shards: 3; read completely: 1; damaged: 1; missing: 1. **The run is incomplete**");
    expect(md).toContain("| `s00001-x@1000` | `enwiki.xml.bz2[1000..2000]` | 438,528 | enwiki.xml.bz2\\[1000..2000\\] at decompressed byte 438528: bz2 data is truncated \\| or corrupt |");
    expect(md).toContain("- `s00002-x@2000`");
    expect(md).not.toContain("Failed partitions");
    const failed = renderReport(stats({ complete: false, failedTasks: ["group-3"] }), {}, { generated: "t", elapsedSeconds: null });
    expect(failed).toContain("**The run is incomplete**");
    expect(failed).toContain("**Failed partitions** (dead-lettered; the images or pairs hashed to them are not in the datasets):\n\n- `group-3`");
    expect(md).toContain("- 207 pages, 326 revisions read = 226 used + 1 skipped (namespace) + 99 skipped (redirect).");
    expect(md).toContain("- current input: 106 revisions → 1,257 image references (gallery 97, link 1,045, template 115), 1,254 shuffle records");
  });

  it("renders the funnel with its Table 3 step, and each filter's in / kept / dropped", () => {
    const md = renderReport(stats({}), {}, { generated: "t", elapsedSeconds: null });
    expect(md).toContain("Shards: 3; read completely: 1; damaged: 0; missing: 0. The run is complete.");
    expect(md).toContain("| 2 | 1 | image referenced ≥ 2 times | 10 (-99.2 %) | 10 | 0 | 21 (-98.3 %) | 2.1 | 16 (-98.7 %) | 5 (0.0 %) |");
    // a rule that is not the paper's shows its step in parentheses (the filter's metadata: paperStep null)
    expect(md).toContain("| 1 | (0) | file is an image or video, not a sound | 1,236 (-0.8 %) |");
    expect(md).toContain("| 6 | (3) | caption could be analysed");
    expect(md).toContain("| 12 | 7 | pair is unique corpus-wide (exact texts; duplicates keep the smallest id) | — | — | — | — | — | — | 1 (0.0 %) |");
    expect(md).toContain("| 10 | `has_verb_v1` | captions | 8 | 5 | 3 | no verb 3 |");
    expect(md).toContain("| 3 | `max_refs_v1` | references | 0 | 0 | 0 | — |");
    expect(md).toContain("## How to read the funnel");
  });

  it("renders hostile titles, captions, image names and file names as inert text that cannot break a table", () => {
    // what a page can carry: an entity that decodes to a tag, a link, emphasis, a code fence, a table
    // break, a newline, a terminal escape and a bidi override
    const evil = "<img src=x onerror=alert(1)> [click](javascript:alert(1)) **bold** `code` a | b\n# heading \u001b]0;pwned\u0007\u001b[31mred\u202e";
    const side = (text: string, page: string) => ({ text, page, pageId: 1, revisionId: 2, ordinal: 0, uses: 1 });
    const pair = { id: "0123456789abcdef", tier: "silver", image: `File:${evil}.jpg`, type: "caption", a: side(evil, `Page ${evil}`), b: side("A plain caption of six words here", "<script>alert(1)</script>"), metrics: { syntactic: 0.5 } } as unknown as ScoredPair;
    const md = renderReport(stats({
      complete: false,
      inputs: [{ uri: `dumps/${evil}.xml`, kind: "current", shards: 1, tiers: ["silver"] }],
      shards: { total: 2, ok: 0, corrupt: [{ shard: "s00000-x.xml", file: `dumps/${evil}|x.xml`, offset: 1, error: `malformed XML near ${evil}` }], missing: [`s00001-${evil}`] },
    }), { silver: [pair] }, { generated: "t", elapsedSeconds: null });

    // no control character reaches the file; no text line was split
    expect(md).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    // as a markdown renderer sees it (raw HTML and autolinks enabled, as on GitHub): no tag, link,
    // emphasis, code or heading from the input, and every table row keeps its column count
    const html = new MarkdownIt({ html: true, linkify: false }).render(md);
    expect(html).not.toMatch(/<img|<script|<a |<strong>bold|<code>code|<h1>heading/);
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    const tokens = new MarkdownIt({ html: true }).parse(md, {});
    const rowCells: number[][] = [];
    let cells = -1;
    for (const t of tokens) {
      if (t.type === "table_open") rowCells.push([]);
      if (t.type === "tr_open") cells = 0;
      if (t.type === "th_open" || t.type === "td_open") cells++;
      if (t.type === "tr_close") rowCells.at(-1)!.push(cells);
    }
    for (const table of rowCells) expect(new Set(table).size).toBe(1);
    const inputs = md.split("\n").filter((l) => l.startsWith("| ``dumps/"));
    expect(inputs).toHaveLength(1);
    const damaged = md.split("\n").filter((l) => l.startsWith("| `s00000-x.xml`"));
    expect(damaged).toHaveLength(1);
    // the sample caption survives as text (the reader sees what the page said)
    const plain = html.replace(/<[^>]+>/g, "");
    expect(plain).toContain("[click](javascript:alert(1)) **bold** `code` a | b # heading");
  });
});

describe("dropped examples in report.md and report.html", () => {
  it("are escaped exactly once: a caption holding \"&lt;script&gt;\" shows those characters, not a tag", async () => {
    const { renderHtmlReport } = await import("../../shared/output/html-report.ts");
    const written = ["&lt;script&gt;x", "A &amp; B <b>c</b>", "1 < 2 & 3 > 2"];
    const funnel = funnelTable(config, counters(), "silver", { images: 1, images_ge2: 1, images_ge5: 0, references: 2, captions: 2, pairs: 1 });
    const row = funnel.find((r) => r.id === "has_verb_v1")!;
    row.filter!.examples = { no_verb: written };
    const st: Stats = {
      version: 1, inputs: [], shards: { total: 1, ok: 1, corrupt: [], missing: [] }, failedTasks: [], complete: true, extraction: {},
      tiers: { silver: { input: "current", pairs: 1, funnel } }, counters: {},
    };
    const text = (html: string) => {
      const items = [...html.matchAll(/“([^”]*)”/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ""));
      // what a browser shows: the entities of the HTML decoded once
      return items.map((t) => t.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&"));
    };
    const md = new MarkdownIt({ html: true, linkify: false }).render(renderReport(st, {}, { generated: "t", elapsedSeconds: null }));
    for (const w of written) expect(text(md), "report.md").toContain(w);
    const html = await renderHtmlReport({ stats: st, summaries: [], generated: "t", elapsedSeconds: null, preset: "improved", files: [], references: [] } as never);
    for (const w of written) expect(text(html), "report.html").toContain(w);
  });
});

describe("escaping helpers", () => {
  it("mdText, mdCode and forTerminal give one inert line", () => {
    expect(mdText("a|b\nc <i> & [x](y) *z*")).toBe("a\\|b c &lt;i&gt; &amp; \\[x\\](y) \\*z\\*");
    expect(mdCode("a`b")).toBe("``a`b``");
    expect(mdCode("`x|y", { inTable: true })).toBe("`` `x\\|y ``");
    expect(forTerminal("name\u001b[2J\u001b]0;title\u0007\r\nforged line\u009b31m")).toBe("name  forged line");
    expect(forTerminal("Zürich — 東京.jpg")).toBe("Zürich — 東京.jpg");
  });
});
