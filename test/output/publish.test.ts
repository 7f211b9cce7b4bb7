/**
 * The publishable outputs: characteristic map, tier summary (semantic axis found through Δ), HTML
 * escaping, reference maps, and writePublication on a real sample run and on constructed pairs with
 * semantic metrics: Parquet read back with hyparquet (an independent reader) equals the JSONL, the
 * dataset card's YAML parses and its numbers are stats.json's, report.html has the sections the pairs
 * allow and every caption inert.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from "hyparquet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalStore } from "../../shared/io/local-store.ts";
import { characteristicMap, CharacteristicMapBuilder, levelOf } from "../../shared/compare/characteristic-map.ts";
import { CARD_MARKER, sizeCategory } from "../../shared/output/dataset-card.ts";
import { htmlText } from "../../shared/output/html-escape.ts";
import { parquetColumns } from "../../shared/output/parquet-tier.ts";
import { writePublication } from "../../shared/output/publish.ts";
import { parseReferenceMaps } from "../../shared/compare/reference-maps.ts";
import type { Stats } from "../../shared/output/stats.ts";
import type { PublishedPair } from "../../shared/output/tier-dataset.ts";
import { TierSummaryBuilder } from "../../shared/output/tier-summary.ts";
import { removeTempDirs, run, SAMPLE, tempDir } from "../runner/helpers.ts";
import { EVIL_CAPTION, EVIL_PAGE, semanticFolder, semanticPairs } from "./constructed-output.ts";
import { parseFrontMatter } from "./mini-yaml.ts";

afterAll(removeTempDirs);

describe("characteristic map", () => {
  it("levels are [0,0.2) … [0.8,1]: a boundary belongs to the upper level, 1 to the top one", () => {
    expect([0, 0.1999, 0.2, 0.4, 0.6, 0.6000000001, 0.7999, 0.8, 1].map(levelOf)).toEqual([0, 0, 1, 2, 3, 3, 3, 4, 4]);
    expect(levelOf(1.0000001)).toBe(4);
    expect(levelOf(-0.001)).toBe(0);
    expect(() => levelOf(NaN)).toThrow();
  });

  it("counts pairs per [syntactic][semantic] cell and shares sum to 1", () => {
    const m = characteristicMap([[0.1, 0.9], [0.1, 0.95], [0.9, 0.9], [0.5, 0.3]]);
    expect(m.n).toBe(4);
    expect(m.counts[0]![4]).toBe(2);
    expect(m.counts[4]![4]).toBe(1);
    expect(m.counts[2]![1]).toBe(1);
    expect(m.shares[0]![4]).toBe(0.5);
    expect(m.shares.flat().reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(new CharacteristicMapBuilder().toJSON().shares.flat().every((s) => s === 0)).toBe(true);
  });
});

describe("tier summary", () => {
  const pair = (id: string, metrics: Record<string, number>, paraphrase?: boolean): PublishedPair => ({
    id, tier: "gold", image: "File:X.jpg", type: "caption", metrics, ...(paraphrase === undefined ? {} : { paraphrase }),
    a: { text: "a", page: "P", pageId: 1, revisionId: 1, ordinal: 0, uses: 1 },
    b: { text: "b", page: "P", pageId: 1, revisionId: 1, ordinal: 1, uses: 1 },
  });

  it("takes as semantic axis the metric Δsem,syn was computed from, not the first non-syntactic one", () => {
    const b = new TierSummaryBuilder("gold");
    b.add(pair("1", { other: 0.1, syntactic: 0.3, cosine: 0.9, deltaSemSyn: 0.6 }, true));
    b.add(pair("2", { other: 0.7, syntactic: 0.5, cosine: 0.5, deltaSemSyn: 0 }, false));
    b.add(pair("3", { other: 0.2, syntactic: 1, cosine: 1, deltaSemSyn: 0 }, true));
    const s = b.toJSON();
    expect(s.semantic?.metric).toBe("cosine");
    expect(s.semanticCandidates).toEqual(["cosine", "other"]);
    expect(s.semantic?.map.counts[1]![4]).toBe(1);
    expect(s.semantic?.map.counts[2]![2]).toBe(1);
    expect(s.semantic?.map.counts[4]![4]).toBe(1);
    expect(s.semantic?.cells[1]![4]!.map((p) => p.id)).toEqual(["1"]);
    expect(s.paraphrase).toEqual({ yes: 2, no: 1 });
  });

  it("bins each metric by 0.05 (1 in the last bin of [0, 1]) with moments; no semantic view without a semantic metric", () => {
    const b = new TierSummaryBuilder("gold");
    for (const [i, v] of [0, 0.04, 0.05, 1].entries()) b.add(pair(String(i), { syntactic: v }));
    const s = b.toJSON();
    expect(s.histograms.syntactic!.bins).toEqual([{ start: 0, end: 0.05, count: 2 }, { start: 0.05, end: 0.1, count: 1 }, { start: 0.95, end: 1, count: 1 }]);
    expect(s.histograms.syntactic!.mean).toBeCloseTo(0.2725, 10);
    expect(s.semantic).toBeNull();
    expect(s.paraphrase).toBeNull();
  });
});

describe("extra fields", () => {
  it("are exported by their JSON type, as JSON text when mixed or nested, renamed when they clash with a column", () => {
    const b = new TierSummaryBuilder("gold");
    const side = { text: "a", page: "P", pageId: 1, revisionId: 1, ordinal: 0, uses: 1 };
    const base = { tier: "gold", image: "File:X.jpg", type: "caption" as const, a: side, b: side, metrics: { syntactic: 0.5 } };
    b.add({ ...base, id: "1", by: "wms", mixed: 1, nested: { k: [1] }, a_text: "clash" });
    b.add({ ...base, id: "2", by: "wms", mixed: "one" });
    const s = b.toJSON();
    expect(s.extras).toEqual({ by: "string", mixed: "json", nested: "json", a_text: "string" });
    const cols = parquetColumns(["syntactic"], { paraphrase: false, setSize: false, extras: s.extras });
    const byName = new Map(cols.map((c) => [c.name, c]));
    expect(byName.get("mixed")!.get({ ...base, id: "2", mixed: "one" })).toBe('"one"');
    expect(byName.get("nested")!.get({ ...base, id: "1", nested: { k: [1] } })).toBe('{"k":[1]}');
    expect(byName.get("extra_a_text")!.get({ ...base, id: "1", a_text: "clash" })).toBe("clash");
    expect(byName.get("a_text")!.get({ ...base, id: "1", a_text: "clash" })).toBe("a");
  });
});

describe("htmlText", () => {
  it("makes captions decoded from entities, newlines, quotes and escape sequences inert", () => {
    const out = htmlText('<img src=x onerror="alert(1)">\n| a & \'b\' \u001b[31mred\u202e');
    expect(out).toBe("&lt;img src=x onerror=&quot;alert(1)&quot;&gt; | a &amp; &#39;b&#39; red ");
  });
});

describe("reference maps", () => {
  const grid = (cell: [number, number], v: number) => Array.from({ length: 5 }, (_, i) => Array.from({ length: 5 }, (_, j) => (i === cell[0] && j === cell[1] ? v : 0)));

  it("reads shares or counts, one object or an array (compare --json rows)", () => {
    const maps = parseReferenceMaps(JSON.stringify([{ corpus: "PAWS", n: 8000, map: grid([4, 4], 1) }, { name: "MSRPC", map: { counts: grid([2, 3], 12) } }]), "refs.json");
    expect(maps.map((m) => [m.corpus, m.map.n, m.map.shares[4]![4], m.map.shares[2]![3]])).toEqual([["PAWS", 8000, 1, 0], ["MSRPC", 12, 0, 1]]);
  });

  it("says in one line what is wrong with a file", () => {
    expect(() => parseReferenceMaps("{", "r.json")).toThrow(/r.json: not JSON/);
    expect(() => parseReferenceMaps(JSON.stringify({ corpus: "X" }), "r.json")).toThrow(/entry 1: needs "corpus" and a 5×5 "map"/);
    expect(() => parseReferenceMaps(JSON.stringify({ corpus: "X", map: grid([0, 0], 0.5) }), "r.json")).toThrow(/shares sum to 0.500/);
    expect(() => parseReferenceMaps(JSON.stringify({ corpus: "X", map: [[1, 2]] }), "r.json")).toThrow(/entry 1/);
  });
});

describe("sizeCategory", () => {
  it("uses Hugging Face's buckets", () => {
    expect([0, 999, 1000, 54_321, 2_000_000].map(sizeCategory)).toEqual(["n<1K", "n<1K", "1K<n<10K", "10K<n<100K", "1M<n<10M"]);
  });
});

/** Parquet rows → the JSONL pair shape, for a field-by-field comparison. */
function fromParquet(row: Record<string, unknown>, metrics: string[]): PublishedPair {
  const side = (s: "a" | "b") => ({ text: row[`${s}_text`], page: row[`${s}_page`], pageId: Number(row[`${s}_page_id`]), revisionId: Number(row[`${s}_revision_id`]), ordinal: row[`${s}_ordinal`], uses: row[`${s}_uses`] });
  return {
    id: row.id, tier: row.tier, image: row.image, type: row.type, a: side("a"), b: side("b"),
    metrics: Object.fromEntries(metrics.filter((m) => row[m] !== null).map((m) => [m, row[m]])),
    ...(row.paraphrase === undefined || row.paraphrase === null ? {} : { paraphrase: row.paraphrase }),
    ...(row.paraphraseBy === undefined || row.paraphraseBy === null ? {} : { paraphraseBy: typeof row.paraphraseBy === "string" ? JSON.parse(row.paraphraseBy) : row.paraphraseBy }),
  } as PublishedPair;
}

const jsonlPairs = (dir: string, tier: string): PublishedPair[] =>
  readFileSync(join(dir, `${tier}.jsonl`), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as PublishedPair);

describe("writePublication", () => {
  let sampleDir: string;
  let semDir: string;
  let sem: { gold: PublishedPair[]; silver: PublishedPair[] };

  beforeAll(async () => {
    sampleDir = tempDir("paracap-publish-sample-");
    // the aggregate writes the publication itself; syntactic scores only, so the report's no-semantic path is tested here
    await run(sampleDir, undefined, { scoring: { scorers: ["syntactic"] } });
    semDir = tempDir("paracap-publish-semantic-");
    sem = semanticFolder(sampleDir, semDir);
    const msrp = semanticPairs("ref", 0, 300);
    await writePublication(new LocalStore(semDir), {
      generated: "2026-11-24T00:00:00.000Z",
      references: [{ corpus: "MSRPC (first 300)", semantic: "bagOfWordsCosine", scoring: null, map: characteristicMap(msrp.map((p) => [p.metrics.syntactic!, p.metrics.bagOfWordsCosine!])) }],
    });
  });

  it("a run writes report.html, one Parquet file per tier and the card; Parquet reads back (hyparquet) equal to the JSONL", async () => {
    for (const tier of ["gold", "silver", "bronze"]) {
      const file = await asyncBufferFromFile(join(sampleDir, `${tier}.parquet`));
      const rows = await parquetReadObjects({ file });
      const metrics = Object.keys(jsonlPairs(sampleDir, "gold")[0]!.metrics);
      expect(rows.map((r) => fromParquet(r, metrics))).toEqual(jsonlPairs(sampleDir, tier));
      // an empty tier has the same columns as the others
      const meta = await parquetMetadataAsync(file);
      expect(meta.schema.map((s) => s.name)).toContain("syntactic");
    }
    const html = readFileSync(join(sampleDir, "report.html"), "utf8");
    expect(html).toContain('data-chart="funnel-gold"');
    expect(html).toContain('data-chart="metric-syntactic"');
    // no semantic metric: those sections are one-line notes, not empty charts
    expect(html).not.toContain('data-chart="maps"');
    expect(html).not.toContain('data-chart="delta"');
    expect(html).toMatch(/<p class="absent">Not available: the pairs carry no semantic metric/);
    expect(html).toMatch(/<p class="absent">Not available for our tiers: the pairs carry no semantic metric/);
    // the pairs are still shown, and the funnel's dropped examples
    expect(html).toContain("gold: the first 1 pair by id");
    expect(html).toContain("Neil Armstrong descends a ladder");
    expect(html).toContain("“File:A New Look at the Apollo 11 Landing Site.ogg”");
  });

  it("Parquet of constructed semantic pairs (gold from .jsonl.gz) has one column per metric and paraphrase, equal to the input", async () => {
    for (const tier of ["gold", "silver"] as const) {
      const file = await asyncBufferFromFile(join(semDir, `${tier}.parquet`));
      const rows = await parquetReadObjects({ file });
      expect(Object.keys(rows[0]!)).toEqual(expect.arrayContaining(["bagOfWordsCosine", "deltaSemSyn", "jaccardWords", "paraphrase", "a_revision_id", "paraphraseBy"]));
      const metrics = Object.keys(sem[tier][0]!.metrics);
      expect(rows.map((r) => fromParquet(r, metrics))).toEqual(sem[tier]);
    }
  });

  it("the dataset card's YAML parses and its numbers are stats.json's", () => {
    for (const dir of [sampleDir, semDir]) {
      const stats = JSON.parse(readFileSync(join(dir, "stats.json"), "utf8")) as Stats;
      const card = readFileSync(join(dir, "README.md"), "utf8");
      const { data, body } = parseFrontMatter(card);
      expect(Object.keys(data)).toEqual(["license", "language", "pretty_name", "size_categories", "task_categories", "tags", "configs", "dataset_info"]);
      expect(data.license).toBe("cc-by-sa-4.0");
      expect(data.language).toEqual(["en"]);
      const total = Object.values(stats.tiers).reduce((a, t) => a + t.pairs, 0);
      expect(data.size_categories).toEqual([sizeCategory(total)]);
      const tiers = Object.keys(stats.tiers);
      expect(data.configs).toEqual(tiers.map((t, i) => ({ config_name: t, data_files: [{ split: "train", path: `${t}.parquet` }], ...(i === 0 ? { default: true } : {}) })));
      const info = data.dataset_info as { config_name: string; features: { name: string; dtype: string }[]; splits: { name: string; num_examples: number; num_bytes: number }[] }[];
      expect(info.map((c) => c.config_name)).toEqual(tiers);
      for (const c of info) {
        expect(c.splits[0]!.num_examples).toBe(stats.tiers[c.config_name]!.pairs);
        expect(c.splits[0]!.num_bytes).toBe(readFileSync(join(dir, `${c.config_name}.parquet`)).length);
        expect(c.features.slice(0, 5)).toEqual([{ name: "id", dtype: "string" }, { name: "tier", dtype: "string" }, { name: "image", dtype: "string" }, { name: "type", dtype: "string" }, { name: "a_text", dtype: "string" }]);
      }
      expect(body.trimStart().startsWith(CARD_MARKER)).toBe(true);
      for (const [tier, t] of Object.entries(stats.tiers)) {
        const first = t.funnel[0]!;
        expect(body).toContain(`| ${tier} | ${first.references!.toLocaleString("en-US")} | ${first.images_ge2!.toLocaleString("en-US")} |`);
        expect(body).toMatch(new RegExp(`\\| ${tier} \\| ${t.input} revisions \\| ${t.pairs.toLocaleString("en-US")} \\|`));
      }
      expect(body).toContain("Paraphrase Acquisition from Image Captions");
      expect(body).toContain("When one image is used on several Wikipedia pages (or in several revisions of a page), each use tends to get its own caption;");
      expect(body).toContain("Gohsen, Marcel and Hagen, Matthias and Potthast, Martin and Stein, Benno");
      expect(body).toContain("Preset `improved`");
      expect(body).not.toContain("/work/"); // inputs by file name, no local paths
    }
    const semCard = readFileSync(join(semDir, "README.md"), "utf8");
    expect(semCard).toContain("Judged paraphrase (`paraphrase` column): gold ");
  });

  it("a run over a dump, a crawl and a history: the card names each source's licence and the run's own thresholds; the funnels keep the crawl's filters to the tiers it feeds", async () => {
    const dir = tempDir("paracap-publish-mixed-");
    const warc = new URL("../../../shared/data/warc/dolma-sample-0000.warc.gz", import.meta.url).pathname;
    await run(dir, [SAMPLE[0]!, { path: warc, kind: "current" }, SAMPLE[1]!], { images: { maxRefs: 20 }, captions: { minWords: 4 }, scoring: { scorers: ["syntactic"] } });
    const { data, body } = parseFrontMatter(readFileSync(join(dir, "README.md"), "utf8"));
    expect(data.license).toBe("other");
    expect(data.tags).toEqual(["paraphrase", "image-captions", "wikipedia", "web-crawl"]);
    expect(body).toMatch(/Licences of the captions: captions from Wikipedia are licensed under \[CC BY-SA 4\.0\].*; captions from web pages .* belong to each page's owner/);
    expect(body).toContain("keep images referenced 2 to 20 times (history: up to 180 uses); keep captions of 4 to 200 words");
    expect(body).toContain("extract image references with their captions from the wikitext (captions and alt texts), web pages (alt, title, figcaption, table and nearby text)");
    // the opening names where this run's captions come from, not Wikipedia alone
    expect(body).toContain("When one image is used in several places (Wikipedia pages or their revisions, web pages), each use tends to get its own caption;");
    const stats = JSON.parse(readFileSync(join(dir, "stats.json"), "utf8")) as Stats;
    // the crawl feeds gold and silver: its caption filters open their funnels, not bronze's
    expect(stats.tiers.gold!.funnel[0]!.id).toBe("web_length_v1");
    expect(stats.tiers.bronze!.funnel.some((r) => r.id.startsWith("web_"))).toBe(false);
    for (const [tier, t] of Object.entries(stats.tiers)) {
      const all = t.funnel.find((r) => r.id === "all")!;
      expect(body).toContain(`| ${tier} | ${all.references!.toLocaleString("en-US")} | ${all.images_ge2!.toLocaleString("en-US")} |`);
    }
    // report.md: no change in percent from the crawl's last caption filter (its captions) to the first row of all references
    const gold = readFileSync(join(dir, "report.md"), "utf8").split("## gold")[1]!;
    const allRow = gold.split("\n").find((l) => /^\| \d+ \| \S+ \| all /.test(l) || l.includes("| all references"))!;
    expect(allRow, gold.slice(0, 2000)).toBeDefined();
    expect(allRow).not.toMatch(/%/);
  });

  it("report.html of semantic pairs draws Δsem,syn, the maps (ours and the reference's) and samples per cell, all text inert", () => {
    const html = readFileSync(join(semDir, "report.html"), "utf8");
    for (const id of ["funnel-gold", "metric-bagOfWordsCosine", "metric-jaccardWords", "delta", "maps"]) expect(html).toContain(`data-chart="${id}"`);
    expect(html).not.toContain('data-chart="metric-deltaSemSyn"'); // Δ has its own section
    expect(html).toContain("semantic level (bagOfWordsCosine)");
    expect(html).toContain("MSRPC (first 300)");
    expect(html).not.toContain("Not available");
    // the injected caption, dropped example and page title, as text
    expect(html).toContain(htmlText(EVIL_CAPTION));
    expect(html).toContain(`<li class="caption">“${htmlText(EVIL_CAPTION)}”</li>`);
    expect(html).toContain(htmlText(EVIL_PAGE));
    expect(html).not.toMatch(/<img|<script|onerror="/i);
    expect(html).not.toContain("\nand a second line");
    // nothing is fetched when viewed
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
    expect(html).toContain("Content-Security-Policy");
  });

  it("leaves a README.md that is not paracap's card alone, and refuses a folder whose datasets do not match stats.json", async () => {
    const dir = tempDir("paracap-publish-own-readme-");
    semanticFolder(sampleDir, dir);
    writeFileSync(join(dir, "README.md"), "# my project\n");
    const r = await writePublication(new LocalStore(dir));
    expect(r.cardSkipped).toBe(true);
    expect(readFileSync(join(dir, "README.md"), "utf8")).toBe("# my project\n");

    const bad = tempDir("paracap-publish-mismatch-");
    semanticFolder(sampleDir, bad);
    writeFileSync(join(bad, "silver.jsonl"), readFileSync(join(bad, "silver.jsonl"), "utf8").split("\n").slice(1).join("\n"));
    await expect(writePublication(new LocalStore(bad))).rejects.toThrow(/silver.jsonl: 119 pairs, but stats.json says 120/);
    const empty = tempDir("paracap-publish-empty-");
    mkdirSync(join(empty, "x"));
    await expect(writePublication(new LocalStore(empty))).rejects.toThrow(/no stats.json/);
  });
});
