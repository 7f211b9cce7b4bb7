/**
 * The WARC source on the source seam: recognition, shards split at verified gzip members, documents
 * with string ids, references keyed like the Wikipedia source's, and whole runs (local runner, CLI).
 */
import { copyFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createReadStream } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { ParacapConfig } from "../../shared/core/config.ts";
import { documentExtractor } from "../../shared/pipeline/extract-stage.ts";
import { BUILTIN_SOURCES } from "../../shared/sources/registry.ts";
import type { ByteSource } from "../../shared/io/byte-source.ts";
import { mediawikiSource } from "../../shared/sources/mediawiki/mediawiki-source.ts";
import { LOCAL_VIEW } from "../../shared/runner/local-shards.ts";
import { warcSource, type WarcPage } from "../../shared/sources/warc/warc-source.ts";
import type { ShardSpec } from "../../shared/sources/shard-spec.ts";
import { readStats, removeTempDirs, run, runCli, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const WARC = new URL("../../../shared/data/warc/", import.meta.url).pathname;
const config = ParacapConfig.parse({});

function fileBytes(path: string): ByteSource {
  return { label: path, read: (start = 0, end?: number) => createReadStream(path, { start, end: end === undefined ? undefined : end - 1 }) as AsyncIterable<Buffer> };
}

function shard(path: string, start: number | null = null, end: number | null = null, kind: "current" | "history" = "current"): ShardSpec {
  return { id: "s", uri: path, source: "warc", kind, start, end, fragment: (start ?? 0) > 0 };
}

async function docs(path: string, start: number | null = null, end: number | null = null, counters = new Counters()): Promise<WarcPage[]> {
  const out: WarcPage[] = [];
  for await (const d of warcSource.documents(shard(path, start, end), fileBytes(path), config, counters)) out.push(d);
  return out;
}

const head = (path: string) => readFileSync(path).subarray(0, 4096);

describe("the WARC source", () => {
  it("claims WARCs by name and by their first member decoded, and nothing else", () => {
    const dir = tempDir();
    const renamed = join(dir, "crawl-0001.bin");
    copyFileSync(`${WARC}commoncrawl-whirlwind.warc.gz`, renamed);
    expect(BUILTIN_SOURCES.detect("commoncrawl-whirlwind.warc.gz", head(`${WARC}commoncrawl-whirlwind.warc.gz`))?.name).toBe("warc");
    expect(BUILTIN_SOURCES.detect("crawl-0001.bin", head(renamed))?.name).toBe("warc");
    expect(BUILTIN_SOURCES.detect("example.warc", head(`${WARC}warcio-edge-cases/example.warc`))?.name).toBe("warc");
    const dump = join(dir, "dump.xml.gz");
    writeFileSync(dump, gzipSync("<mediawiki><page><title>X</title></page></mediawiki>"));
    expect(BUILTIN_SOURCES.detect("dump.xml.gz", head(dump))?.name).toBe("mediawiki");
  });

  it("documents are the HTML responses, with the record id, target URI and date", async () => {
    const [page] = await docs(`${WARC}commoncrawl-whirlwind.warc.gz`);
    expect(page).toMatchObject({ uri: "https://an.wikipedia.org/wiki/Escopete", date: expect.stringMatching(/^2024-05-18/), id: expect.stringMatching(/^<urn:uuid:/) });
    const counters = new Counters();
    expect(await docs(`${WARC}commoncrawl-whirlwind.warc.wet.gz`, null, null, counters)).toEqual([]);
    expect(counters.get("warc.skipped.wet_file")).toBe(1);
  });

  it("a large .warc.gz splits into ranges; each shard owns the members starting in it: every page read once", async () => {
    const path = `${WARC}pywb-iana.warc.gz`;
    const whole = (await docs(path)).map((d) => d.id);
    const ranges = (await warcSource.planRanges!({ name: path, size: statSync(path).size }, 100_000, LOCAL_VIEW)) as { start: number; end: number | null }[];
    expect(ranges.length).toBe(8);
    const parts: string[] = [];
    for (const r of ranges) parts.push(...(await docs(path, r.start, r.end)).map((d) => d.id));
    expect(parts).toEqual(whole);
    // 20 HTML responses, 4 of them not 2xx (counted warc.skipped.http_status)
    expect(whole.length).toBe(16);
  });

  it("a crawl and a dump meet on one image key: the Common Crawl page's coat of arms = the wikitext's File: key", async () => {
    const [page] = await docs(`${WARC}commoncrawl-whirlwind.warc.gz`);
    const counters = new Counters();
    const web = documentExtractor(warcSource, config, counters, await warcSource.prepare!(config))(page!, "current");
    // the same file as the Aragonese page's infobox uses it, in wikitext (its real markup)
    const wiki = documentExtractor(mediawikiSource, config, counters)(
      { title: "Escopete", ns: 0, pageId: 1, revisionId: 1, timestamp: null, redirect: false, text: "{| class=\"infobox\"\n|[[Imachen:Escudo de Escopete (Guadalajara).svg|70px|Escudo d'armas]]\n|}\n[[Image:Escudo_de_Escopete_(Guadalajara).svg|thumb|Escudo d'armas d'Escopete]]" },
      "current",
    );
    const key = "File:Escudo de Escopete (Guadalajara).svg";
    expect(web.refs.map((r) => r.image)).toContain(key);
    expect(wiki.refs.map((r) => r.image)).toContain(key);
    expect(web.page).toBe("https://an.wikipedia.org/wiki/Escopete");
    // string ids: the page is its URL, a capture is its date and record id (captures of a page sort by time)
    expect(web.pageId).toBe("https://an.wikipedia.org/wiki/Escopete");
    expect(web.revisionId).toMatch(/^2024-05-18\S* <urn:uuid:/);
  });

  it("two crawls of one page are two revisions of one page (the history mapping)", async () => {
    const counters = new Counters();
    const extract = documentExtractor(warcSource, config, counters, await warcSource.prepare!(config));
    const crawl = (id: string, uri: string, alt: string): WarcPage => ({
      id, uri, date: null, file: "x.warc.gz", offset: 0, headers: { "content-type": "text/html" },
      body: Buffer.from(`<p><img src="/harbour.jpg" alt="${alt}"></p>`),
    });
    const may = extract(crawl("<urn:uuid:1>", "https://Example.org:443/news#top", "Boats moored in the harbour at dusk"), "history");
    const june = extract(crawl("<urn:uuid:2>", "https://example.org/news", "Small fishing boats in the old harbour"), "history");
    expect(june.page).toBe(may.page);
    expect(june.pageId).toBe(may.pageId);
    expect(june.revisionId).not.toBe(may.revisionId);
    expect(may.refs[0]!.image).toBe(june.refs[0]!.image);
    expect([may.refs[0]!.alt!.text, june.refs[0]!.alt!.text]).toEqual(["Boats moored in the harbour at dusk", "Small fishing boats in the old harbour"]);
  });

  it("references carry alt and figcaption captions that pass the web filters", async () => {
    const pages = await docs(`${WARC}dolma-sample-0000.warc.gz`);
    const counters = new Counters();
    const extract = documentExtractor(warcSource, config, counters, await warcSource.prepare!(config));
    const refs = pages.flatMap((p) => extract(p, "current").refs);
    const alts = refs.filter((r) => r.alt).map((r) => r.alt!.text);
    const captions = refs.filter((r) => r.caption).map((r) => r.caption!.text);
    expect(alts.some((a) => a.startsWith("A raccoon wearing a top hat"))).toBe(true);
    expect(alts.some((a) => /Icon$/.test(a))).toBe(false);
    expect(captions).toContain("Ways to add notes and tags in Tilda");
    expect(counters.get("filter.web.web_boilerplate_v1.dropped")).toBeGreaterThan(0);
    // title and nearby texts are caption types of their own, never mixed with alt or figcaption
    expect(refs.some((r) => r.nearby)).toBe(true);
    for (const r of refs) if (r.nearby && r.alt) expect(r.nearby.text).not.toBe(r.alt.text);
  });

  it("runs through the local runner and the CLI, its counters in stats.json", async () => {
    const dir = tempDir();
    const out = join(dir, "out");
    await run(out, [{ path: `${WARC}dolma-sample-0000.warc.gz`, kind: "current" }, { path: `${WARC}commoncrawl-whirlwind.warc.gz`, kind: "current" }], { tiers: ["silver"] });
    const stats = readStats(out);
    expect(stats.counters["warc.documents"]).toBe(23);
    // a crawl's documents are its pages (Source.document), counted under that noun
    expect(stats.counters["extract.current.pages"]).toBe(23);
    expect(stats.counters["extract.current.references.img"]).toBeGreaterThan(0);
    expect(stats.extraction["warc.documents"]).toBe(23);
    expect(readFileSync(join(out, "report.md"), "utf8")).toMatch(/- 23 HTML records read from WARC files/);
    // image uses are counted before the web caption filters: the line does not call their captions kept
    expect(readFileSync(join(out, "report.md"), "utf8")).toContain(`23 HTML records read from WARC files, ${stats.counters["warc.image_refs"]!.toLocaleString("en-US")} image uses found (their captions before the web caption filters)`);
    const cli = await runCli(["extract", `${WARC}commoncrawl-whirlwind.warc.gz`]);
    expect(cli.code).toBe(0);
    const lines = cli.stdout.trim().split("\n").map((l) => JSON.parse(l) as { image: string; type: string; text: string });
    expect(lines).toContainEqual(expect.objectContaining({ image: "File:Escudo de Escopete (Guadalajara).svg", type: "alt", text: "Escudo d'armas" }));
  });
});
