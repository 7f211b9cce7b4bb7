/**
 * ARC crawls on the source seam: recognised by name and by their version block, uploaded as inputs,
 * split into shards by gzip members (or checked header lines) as WARCs are, and read into the same
 * documents, references and datasets as the same crawl written as WARC (arc-helpers.ts writes the
 * real WARCs' responses as ARC).
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { createReadStream } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { ParacapConfig, resolveConfig } from "../../shared/core/config.ts";
import type { ByteSource } from "../../shared/io/byte-source.ts";
import { runLocal } from "../../shared/runner/local-runner.ts";
import { LOCAL_VIEW } from "../../shared/runner/local-shards.ts";
import { BUILTIN_SOURCES } from "../../shared/sources/registry.ts";
import { warcSource, type WarcPage } from "../../shared/sources/warc/warc-source.ts";
import { PHOTO } from "../pixels/images.ts";
import { pathsSource } from "../../shared/sources/warc/warc-paths-source.ts";
import { inputFacts } from "../../shared/output/dataset-card.ts";
import type { Stats } from "../../shared/output/stats.ts";
import { serveCrawl } from "./warc-http-server.ts";
import { PARTITIONS } from "../cloud/helpers.ts";
import { readStats, removeTempDirs, runCli, tempDir } from "../runner/helpers.ts";
import { warcResponses, writeArc, type ArcEntry } from "../web/warc/arc-helpers.ts";
import { httpResponse, warcRecord } from "../web/warc/warc-helpers.ts";

afterAll(removeTempDirs);

const WARC = new URL("../../../shared/data/warc/", import.meta.url).pathname;
const config = ParacapConfig.parse({});

function fileBytes(path: string): ByteSource {
  return { label: path, read: (start = 0, end?: number) => createReadStream(path, { start, end: end === undefined ? undefined : end - 1 }) as AsyncIterable<Buffer> };
}

async function docs(path: string, start: number | null = null, end: number | null = null, counters = new Counters(), cfg = config): Promise<WarcPage[]> {
  const out: WarcPage[] = [];
  const shard = { id: "s", uri: path, source: "warc", kind: "current" as const, start, end, fragment: (start ?? 0) > 0 };
  for await (const d of warcSource.documents(shard, fileBytes(path), cfg, counters)) out.push(d);
  return out;
}

/** A real crawl's responses written as an ARC file in a temporary folder. */
function arcOf(crawl: string, name: string, opts: { gzip?: boolean; version?: 1 | 2 } = {}): string {
  const path = join(tempDir("paracap-arc-"), name);
  writeFileSync(path, writeArc(warcResponses(`${WARC}${crawl}`), { ...opts, name }));
  return path;
}

/**
 * Pairs without what names their captures' records (date + WARC-Record-ID, or date + file@offset),
 * which the pair id hashes and which orders a pair's sides and the pairs: each as its image, type,
 * verdict and sides (text and page), sorted.
 */
const withoutRecordIds = (jsonl: string) =>
  jsonl
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { image: string; type: string; paraphrase: boolean; a: { text: string; page: string }; b: { text: string; page: string } })
    .map((p) => JSON.stringify([p.image, p.type, p.paraphrase, ...[`${p.a.page} ${p.a.text}`, `${p.b.page} ${p.b.text}`].sort()]))
    .sort();

/** A page as a WARC or an ARC source reads it, without the framing's own identity. */
const page = (d: WarcPage) => ({ uri: d.uri, date: d.date, headers: d.headers, body: d.body.toString("latin1") });

describe("ARC crawls as input", () => {
  it("are claimed by name and by their version block (plain or gzip), and uploaded as inputs", () => {
    const gz = arcOf("commoncrawl-whirlwind.warc.gz", "IA-2008-00001.arc.gz", { gzip: true });
    const plain = arcOf("commoncrawl-whirlwind.warc.gz", "IA-2008-00001.arc");
    const head = (p: string) => readFileSync(p).subarray(0, 4096);
    expect(BUILTIN_SOURCES.detect("IA-2008-00001.arc.gz", head(gz))?.name).toBe("warc");
    expect(BUILTIN_SOURCES.detect("IA-2008-00001.arc", head(plain))?.name).toBe("warc");
    // named otherwise: by the version block
    expect(BUILTIN_SOURCES.detect("crawl-0001.bin", head(gz))?.name).toBe("warc");
    expect(BUILTIN_SOURCES.detect("crawl-0001.dat", head(plain))?.name).toBe("warc");
    expect(BUILTIN_SOURCES.detect("notes.gz", gzipSync("filedesc is a word in these notes"))?.name).not.toBe("warc");
    expect(BUILTIN_SOURCES.uploadRole("crawls/IA-2008-00001.arc.gz")).toMatchObject({ source: { name: "warc" }, role: "input" });
    expect(BUILTIN_SOURCES.uploadRole("crawls/IA-2008-00001.arc")).toMatchObject({ source: { name: "warc" }, role: "input" });
  });

  it("an ARC in a crawl's paths list is read over HTTP (resumed after dropped connections) as the local file", async () => {
    const path = arcOf("pywb-iana.warc.gz", "iana.arc.gz", { gzip: true });
    const dir = join(path, "..");
    writeFileSync(join(dir, "arc.paths"), "iana.arc.gz\n");
    const server = await serveCrawl(dir, "drop", 100_000);
    try {
      const cfg = resolveConfig({ extraction: { warcBaseUrl: server.base } });
      const counters = new Counters();
      const shard = { id: "p", uri: join(dir, "arc.paths"), source: "warc-paths", kind: "current" as const, start: null, end: null, fragment: false };
      const remote: WarcPage[] = [];
      for await (const d of pathsSource({ http: { backoffMs: 5 }, notify: () => {} }).documents(shard, fileBytes(join(dir, "arc.paths")), cfg, counters)) remote.push(d);
      const local = await docs(path);
      expect(remote.map((d) => [d.id, d.uri])).toEqual(local.map((d) => [d.id, d.uri]));
      expect(remote.length).toBe(16);
      expect(counters.get("warc.http.retries")).toBeGreaterThan(0);
      expect(counters.get("warc.files.arc")).toBe(1);
    } finally {
      await server.close();
    }
    // a run's dataset card knows an ARC input for a web crawl, even one nothing was read from
    expect(inputFacts({ inputs: [{ uri: "/crawls/IA-2008-00001.arc.gz" }], extraction: {} } as unknown as Stats).web).toBe(true);
  });

  it("a file named otherwise is read as the ARC its first bytes say it is", async () => {
    const arc = await docs(arcOf("dolma-sample-0000.warc.gz", "crawl-0001.bin", { gzip: true }));
    const warc = await docs(`${WARC}dolma-sample-0000.warc.gz`);
    expect(arc.length).toBe(22);
    expect(arc.map(page)).toEqual(warc.map(page));
    expect(arc[0]!.id).toMatch(/^crawl-0001\.bin@\d+$/);
  });

  it("a large .arc.gz splits at verified members, a large .arc at checked header lines: every page read once", async () => {
    for (const [name, gzip] of [["iana.arc.gz", true], ["iana.arc", false]] as const) {
      const path = arcOf("pywb-iana.warc.gz", name, { gzip });
      const whole = (await docs(path)).map((d) => d.id);
      expect(whole.length).toBe(16);
      const ranges = (await warcSource.planRanges!({ name: path, size: statSync(path).size }, 100_000, LOCAL_VIEW)) as { start: number; end: number | null }[];
      expect(ranges.length).toBeGreaterThan(5);
      const parts: string[] = [];
      const counters = new Counters();
      for (const r of ranges) parts.push(...(await docs(path, r.start, r.end, counters)).map((d) => d.id));
      expect(parts, name).toEqual(whole);
      expect(counters.get("warc.records.damaged")).toBe(0);
      expect(counters.get("warc.files")).toBe(1);
    }
  });

  it("the same crawl as WARC and as ARC: the same references, counts and datasets (the CLI's too)", async () => {
    const dir = tempDir("paracap-arc-run-");
    const arc = arcOf("dolma-sample-0000.warc.gz", "dolma.arc.gz", { gzip: true });
    const stats = async (input: string, name: string) => {
      const out = join(dir, name);
      await runLocal({ inputs: [{ path: input, kind: "current" }], outDir: out, config: resolveConfig({ partitions: PARTITIONS, tiers: ["silver"], extraction: { templateImages: false } }), workers: 1, progress: null });
      return { stats: readStats(out), report: readFileSync(join(out, "report.md"), "utf8"), silver: readFileSync(join(out, "silver.jsonl"), "utf8") };
    };
    const w = await stats(`${WARC}dolma-sample-0000.warc.gz`, "warc");
    const a = await stats(arc, "arc");
    const same = (x: Record<string, number>) => Object.fromEntries(Object.entries(x).filter(([k]) => !k.startsWith("warc.") || /^warc\.(documents|image_refs|skipped\.(image\.|http_status))/.test(k)));
    expect(same(a.stats.counters)).toEqual(same(w.stats.counters));
    expect(a.stats.counters["warc.documents"]).toBe(22);
    expect(a.stats.counters["extract.current.references.img"]).toBeGreaterThan(0);
    expect(withoutRecordIds(a.silver)).toEqual(withoutRecordIds(w.silver));
    expect(a.report).toMatch(/- 22 HTML records read from ARC files/);
    // extract prints the same captions, each with its record's id
    const lines = async (file: string) => {
      const r = await runCli(["extract", file]);
      expect(r.code).toBe(0);
      return { lines: r.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, string>), stderr: r.stderr };
    };
    const [fromWarc, fromArc] = [await lines(`${WARC}commoncrawl-whirlwind.warc.gz`), await lines(arcOf("commoncrawl-whirlwind.warc.gz", "cc.arc", { version: 2 }))];
    expect(fromArc.lines.map(({ recordId: _, ...l }) => l)).toEqual(fromWarc.lines.map(({ recordId: _, ...l }) => l));
    expect(fromArc.lines[0]!.recordId).toMatch(/^cc\.arc@\d+$/);
    expect(fromArc.stderr).toMatch(/1 HTML page\(s\) of 2 ARC record\(s\) read/);
  });

  it("re-crawls in ARC and in WARC feed bronze the same pairs (revisions ordered by capture date)", async () => {
    const dir = tempDir("paracap-arc-bronze-");
    const [soldaini] = warcResponses(`${WARC}dolma-sample-0000.warc.gz`).filter((e) => e.url === "https://soldaini.net/");
    const alt = "A raccoon wearing a top hat and holding a pizza slice. Luca sometimes uses this image as their online profile picture.";
    const reworded = "A raccoon in a top hat holds a slice of pizza. Luca sometimes uses this picture as an online profile image.";
    expect(soldaini!.content.includes(alt)).toBe(true);
    const recrawl: ArcEntry = { ...soldaini!, date: "20250425162444", content: Buffer.from(soldaini!.content.toString("latin1").replace(alt, reworded), "latin1") };
    writeFileSync(join(dir, "site-2024.arc.gz"), writeArc([soldaini!], { gzip: true, name: "site-2024.arc.gz" }));
    writeFileSync(join(dir, "site-2025.arc"), writeArc([recrawl], { name: "site-2025.arc" }));
    const isoOf = (d: string) => `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T${d.slice(8, 10)}:${d.slice(10, 12)}:${d.slice(12)}Z`;
    const warcOf = (e: ArcEntry) => Buffer.from(warcRecord("response", e.content, { uri: e.url }).toString("latin1").replace("2024-05-18T00:00:00Z", isoOf(e.date)), "latin1");
    writeFileSync(join(dir, "site-2024.warc"), warcOf(soldaini!));
    writeFileSync(join(dir, "site-2025.warc"), warcOf(recrawl));
    const bronze = async (files: string[]) => {
      const out = join(dir, `out-${files[0]}`);
      await runLocal({ inputs: files.map((f) => ({ path: join(dir, f), kind: "history" as const })), outDir: out, config: resolveConfig({ partitions: PARTITIONS, tiers: ["bronze"] }), workers: 1, progress: null, fresh: true });
      return readFileSync(join(out, "bronze.jsonl"), "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as { a: { text: string; revisionId: string }; b: { text: string; revisionId: string } });
    };
    const fromArc = await bronze(["site-2024.arc.gz", "site-2025.arc"]);
    const fromWarc = await bronze(["site-2024.warc", "site-2025.warc"]);
    expect(fromArc.map((p) => [p.a.text, p.b.text].sort())).toContainEqual([alt, reworded].sort());
    // the same pairs; only the revision ids' record part differs (date + file@offset, date + WARC-Record-ID)
    const noIds = (ps: typeof fromArc) => JSON.stringify(ps).replace(/"id":"[0-9a-f]+",/g, "").replace(/"(\d{4}-\d\d-\d\dT[\d:]+Z) [^"]+"/g, '"$1"');
    expect(noIds(fromArc)).toBe(noIds(fromWarc));
    expect(JSON.stringify(fromArc)).toMatch(/"2025-04-25T16:24:44Z site-2025\.arc@\d+"/);
  });

  it("pixel runs: an ARC's image responses carry their bytes to the pages that use them, as a WARC's do", async () => {
    const dir = tempDir("paracap-arc-pixels-");
    const photo = readFileSync(PHOTO.original);
    const captions = ["A quiet road runs through a forest in autumn.", "The forest road is covered with fallen leaves.", "An empty road leads into the autumn woods."];
    // an ARC crawl stores the same photo once per URL (no revisits before WARC)
    const image = (i: number): ArcEntry => ({ url: `http://img${i}.example.org/road.jpg`, ip: "192.0.2.1", date: "20080430204825", mime: "image/jpeg", content: httpResponse(photo, { "Content-Type": "image/jpeg", "Content-Length": String(photo.length) }) });
    const pageOf = (i: number): ArcEntry => ({
      url: `http://site.example.org/page-${i}.html`,
      ip: "192.0.2.2",
      date: "20080430204826",
      mime: "text/html",
      content: httpResponse(`<!doctype html><html lang="en"><head><title>Page ${i}</title></head><body><p>Some words about the trip we made last year.</p><figure><img src="http://img${i}.example.org/road.jpg" alt=""><figcaption>${captions[i]}</figcaption></figure></body></html>`),
    });
    const entries = [0, 1, 2].flatMap((i) => [pageOf(i), image(i)]);
    writeFileSync(join(dir, "crawl.arc.gz"), writeArc(entries, { gzip: true, name: "crawl.arc.gz" }));
    writeFileSync(join(dir, "crawl.warc"), Buffer.concat(entries.map((e) => warcRecord("response", e.content, { uri: e.url }))));
    const pixelRun = async (file: string) => {
      const run = await runLocal({ inputs: [{ path: join(dir, file), kind: "current" }], outDir: join(dir, `out-${file}`), config: resolveConfig({ partitions: PARTITIONS, tiers: ["silver"], pivot: "md5" }), workers: 1, progress: null });
      return { counters: run.stats.counters, silver: readFileSync(join(dir, `out-${file}`, "silver.jsonl"), "utf8") };
    };
    const arc = await pixelRun("crawl.arc.gz");
    const warc = await pixelRun("crawl.warc");
    expect(arc.counters["warc.image_records"]).toBe(3);
    expect(arc.counters["pixel_identity.decoded"]).toBe(3);
    expect(arc.silver.length).toBeGreaterThan(0);
    expect(arc.silver.split("\n").filter(Boolean).every((l) => /"image":"md5:/.test(l))).toBe(true);
    expect(withoutRecordIds(arc.silver)).toEqual(withoutRecordIds(warc.silver));
    expect(withoutRecordIds(arc.silver).length).toBe(3);
    for (const k of ["warc.image_records", "warc.documents", "pixel_identity.images", "pixel_identity.decoded"]) expect(arc.counters[k], k).toBe(warc.counters[k]);
  });
});
