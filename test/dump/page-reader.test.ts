import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { PageRevision } from "../../shared/core/records.ts";
import { DumpError } from "../../shared/dump/errors.ts";
import { readDumpPages, readPages, type ReadDumpPagesOptions } from "../../shared/dump/page-reader.ts";
import {
  BGWIKI_UTF16,
  bunzip,
  collect,
  collectUntilError,
  DUMPSTER_DIVE,
  fingerprint,
  GENSIM,
  HISTORY_0000,
  HISTORY_2900,
  TABLE_MARKUP,
  tmp,
  WIKIPEDIA2VEC_09,
  WIKIPEDIA_PROVENANCE,
} from "./real-data.ts";

async function read(path: string, opts: ReadDumpPagesOptions = {}) {
  const counters = new Counters();
  const revisions = await collect(readDumpPages(path, { counters, ...opts }));
  return { revisions, counters };
}

function expectInvariant(c: Counters): void {
  expect(c.get("dump.revisions")).toBe(c.get("dump.revisions.emitted") + c.get("dump.skipped.namespace") + c.get("dump.skipped.redirect"));
}

/**
 * Reads the decoded XML of a real bz2 excerpt (bunzip: decoded once per test run), for the tests about
 * what is read rather than about decoding: a decoding costs ~1.4 CPU-s for the gensim excerpt and ~5
 * for the 26 MB history, many times its parse. Decoding through readDumpPages is checked by the first
 * test and the decoder tests below.
 */
async function readXml(path: string, opts: ReadDumpPagesOptions = {}) {
  const counters = new Counters();
  const xml = bunzip(path);
  const pieces: Buffer[] = [];
  for (let i = 0; i < xml.length; i += 65536) pieces.push(xml.subarray(i, i + 65536));
  const revisions = await collect(readPages(Readable.from(pieces), { counters, file: path, ...opts }));
  return { revisions, counters };
}

/** Writes text as a plain XML dump in a temp dir. */
function xmlFile(name: string, text: string | Buffer): string {
  const path = join(tmp(), name);
  writeFileSync(path, text);
  return path;
}

describe("readDumpPages on the gensim enwiki excerpt (export-0.10)", () => {
  // Verified with: bzcat … | grep -c '<page>' (206), grep -c '<redirect' (100), grep '<ns>' | sort | uniq -c (205 × 0, 1 × 4)
  it("reads all 206 pages; redirects and ns 4 are counted skips", async () => {
    const { revisions, counters } = await read(GENSIM);
    expect(counters.get("dump.pages")).toBe(206);
    expect(counters.get("dump.revisions")).toBe(206);
    // the namespace is checked first: the ns-4 page (itself a redirect) counts as a namespace skip
    expect(counters.get("dump.skipped.namespace")).toBe(1);
    expect(counters.get("dump.skipped.redirect")).toBe(99);
    expect(revisions).toHaveLength(106);
    expect(counters.get("dump.revisions.emitted")).toBe(106);
    expectInvariant(counters);
    expect(counters.get("dump.bytes")).toBe(bunzip(GENSIM).length);
    const anarchism = revisions.find((r) => r.title === "Anarchism")!;
    expect(anarchism).toMatchObject({ ns: 0, pageId: 12, revisionId: 716551092, timestamp: "2016-04-22T10:19:33Z", redirect: false });
    expect(anarchism.text.startsWith("{{Redirect2|Anarchist|Anarchists|the fictional character|Anarchist (comics)|other uses|Anarchists (disambiguation)}}")).toBe(true);
    expect(revisions.at(-1)!.title).toBe("Algorithm");
    for (const r of revisions) expect(() => PageRevision.parse(r)).not.toThrow();
  });

  it("emits the Wikipedia-namespace page only when ns 4 is selected", async () => {
    const { revisions, counters } = await readXml(GENSIM, { namespaces: [4], skipRedirects: false });
    expect(revisions.map((r) => [r.title, r.ns])).toEqual([["Wikipedia:Adding Wikipedia articles to Nupedia", 4]]);
    expect(counters.get("dump.skipped.namespace")).toBe(205);
    expectInvariant(counters);
  });

  it("decodes entities in text (the raw XML has 3,922 lines with &lt;ref)", async () => {
    const { revisions } = await readXml(GENSIM, { skipRedirects: false });
    const all = revisions.map((r) => r.text).join("\n");
    expect(all).not.toContain("&lt;ref");
    expect(all.split("<ref").length - 1).toBeGreaterThanOrEqual(3922);
    // an escaped entity in wikitext (&amp;nbsp; in the XML) stays an entity in the text
    expect(all).toContain("&nbsp;");
  });
});

describe("schemas and encodings", () => {
  it("export-0.9 (wikipedia2vec): the redirect page is skipped by default and flagged otherwise", async () => {
    const skipped = await read(WIKIPEDIA2VEC_09);
    expect(skipped.revisions.map((r) => r.title)).toEqual(["Computer accessibility", "Accessibility"]);
    expect(skipped.counters.get("dump.skipped.redirect")).toBe(1);
    expectInvariant(skipped.counters);
    const all = await read(WIKIPEDIA2VEC_09, { skipRedirects: false });
    expect(all.revisions.map((r) => [r.title, r.redirect, r.pageId])).toEqual([
      ["AccessibleComputing", true, 10],
      ["Computer accessibility", false, 411964],
      ["Accessibility", false, 302109],
    ]);
    expect(all.revisions[1]!.revisionId).toBe(627945420);
  });

  it("UTF-16 with BOM (bgwiki): 3 pages with Cyrillic titles, not garbage", async () => {
    const { revisions, counters } = await read(BGWIKI_UTF16, { namespaces: [0, 4] });
    expect(revisions.map((r) => [r.title, r.ns])).toEqual([
      ["Григориански календар", 0],
      ["Уикипедия:Редактиране на страници", 4],
      ["Уикипедия:Разговори/Архив/2005/октомври-ноември-декември", 4],
    ]);
    expect(revisions[0]!.text).toContain("Григориански календар");
    expect(counters.get("dump.bytes")).toBe(486088);
  });

  it("a fragment without <siteinfo> (table markup excerpt) reads its 5 articles", async () => {
    const { revisions } = await read(TABLE_MARKUP);
    expect(revisions.map((r) => r.title).sort()).toEqual([
      "Academy Award for Best Production Design",
      "Brahui language",
      "Constructive vote of no confidence",
      "Economy of Estonia",
      "List of Prison Break characters",
    ]);
  });

  it("export-0.4 full history: 400 revisions of one page, rev ids in dump order", async () => {
    const { revisions, counters } = await readXml(HISTORY_2900);
    expect(revisions).toHaveLength(400);
    expect(counters.get("dump.pages")).toBe(1);
    expect(counters.get("dump.revisions")).toBe(400);
    expect(revisions[0]).toMatchObject({ title: "Anarchism", ns: 0, pageId: 12, revisionId: 18576354, timestamp: "2005-07-11T04:05:00Z" });
    expect(revisions.at(-1)!.revisionId).toBe(19472441);
    expect(new Set(revisions.map((r) => r.revisionId)).size).toBe(400);
    // every revision has its own text, not the previous one's
    expect(new Set(revisions.map((r) => r.text)).size).toBeGreaterThan(300);
  });

  it("export-0.4 has no <ns>: the namespace comes from the title prefix and <siteinfo>", async () => {
    // The real 0.4 header and first revision, with the page title changed per case.
    const xml = bunzip(HISTORY_0000).toString("utf8");
    const oneRevision = xml.slice(0, xml.indexOf("</revision>") + "</revision>".length) + "\n  </page>\n</mediawiki>\n";
    expect(oneRevision).not.toContain("<ns>");
    const nsOf = async (title: string) => {
      const path = xmlFile("ns.xml", oneRevision.replace("<title>Anarchism</title>", `<title>${title}</title>`));
      const [rev] = await collect(readDumpPages(path, { namespaces: [0, 1, 3, 4, 100] }));
      return rev!.ns;
    };
    expect(await nsOf("Anarchism")).toBe(0);
    expect(await nsOf("Talk:Anarchism")).toBe(1);
    expect(await nsOf("User talk:Someone")).toBe(3);
    expect(await nsOf("Portal:Anarchism")).toBe(100);
    expect(await nsOf("Anarchism: a history")).toBe(0); // a colon alone does not make a namespace
  });

  it("a revision without text or with deleted text gives empty text", async () => {
    const xml = bunzip(WIKIPEDIA2VEC_09).toString("utf8");
    const first = xml.indexOf("<text");
    const firstEnd = xml.indexOf("</text>", first) + "</text>".length;
    const second = xml.indexOf("<text", firstEnd);
    const secondEnd = xml.indexOf("</text>", second) + "</text>".length;
    const edited = xml.slice(0, first) + "" + xml.slice(firstEnd, second) + '<text deleted="deleted" />' + xml.slice(secondEnd);
    const revisions = await collect(readDumpPages(xmlFile("no-text.xml", edited), { skipRedirects: false }));
    expect(revisions.map((r) => r.text.length).slice(0, 2)).toEqual([0, 0]);
    expect(revisions[2]!.text.length).toBeGreaterThan(1000);
  });

  it("namespace filtering on the dumpster-dive fixture (8 ns-0 pages, two sharing a title; its redirect has only the #REDIRECT text)", async () => {
    const articles = await read(DUMPSTER_DIVE);
    expect(articles.revisions.map((r) => r.title)).toEqual(["Hello", "Toronto", "Duplicate title", "Duplicate title", "Big Page", "Disambiguation page", "Bodmin"]);
    const talk = await read(DUMPSTER_DIVE, { namespaces: [1] });
    expect(talk.revisions).toEqual([]);
    expect(talk.counters.get("dump.pages")).toBe(8);
    expect(talk.counters.get("dump.skipped.namespace")).toBe(8);
    expectInvariant(talk.counters);
  });

  it("accepts text chunks and reads the same as from bytes", async () => {
    const xml = bunzip(WIKIPEDIA2VEC_09).toString("utf8");
    // odd-sized string chunks split tags, entities and characters
    const pieces: string[] = [];
    for (let i = 0; i < xml.length; i += 997) pieces.push(xml.slice(i, i + 997));
    const fromText = await collect(readPages(pieces, { skipRedirects: false }));
    const fromBytes = await collect(readDumpPages(WIKIPEDIA2VEC_09, { skipRedirects: false }));
    expect(fromText.map(fingerprint)).toEqual(fromBytes.map(fingerprint));
  });

  it("UTF-8 split inside multi-byte characters across chunks decodes correctly", async () => {
    const bytes = bunzip(BGWIKI_UTF16);
    const utf8 = Buffer.from(new TextDecoder("utf-16le").decode(bytes), "utf8");
    const chunks: Buffer[] = [];
    for (let i = 0; i < utf8.length; i += 1001) chunks.push(utf8.subarray(i, i + 1001));
    const a = await collect(readPages(Readable.from(chunks), { namespaces: [0, 4], joinChunksBelow: 0 }));
    const b = await collect(readDumpPages(BGWIKI_UTF16, { namespaces: [0, 4] }));
    expect(a.map(fingerprint)).toEqual(b.map(fingerprint));
  });
});

describe("system and JS decoders", () => {
  it("give identical revisions", async () => {
    for (const file of [WIKIPEDIA2VEC_09, BGWIKI_UTF16, HISTORY_0000]) {
      const system = await read(file, { decoder: "system", namespaces: [0, 4], skipRedirects: false });
      const js = await read(file, { decoder: "js", namespaces: [0, 4], skipRedirects: false });
      expect(js.revisions.map(fingerprint)).toEqual(system.revisions.map(fingerprint));
      expect(js.counters.toJSON()).toEqual(system.counters.toJSON());
      expect(system.revisions.length).toBeGreaterThan(0);
    }
  });
});

describe("errors", () => {
  it("malformed XML: a DumpError naming file and byte offset, after the earlier pages", async () => {
    const xml = bunzip(WIKIPEDIA2VEC_09);
    const cut = xml.indexOf("</page>", xml.indexOf("</page>") + 1) + "</page>".length; // after page 2
    const broken = Buffer.concat([xml.subarray(0, cut), Buffer.from("\n  <page><title>x</title></oops>"), xml.subarray(cut)]);
    const path = xmlFile("broken.xml", broken);
    const { items, error } = await collectUntilError(readDumpPages(path, { skipRedirects: false }));
    expect(items.map((r) => r.title)).toEqual(["AccessibleComputing", "Computer accessibility"]);
    expect(error).toBeInstanceOf(DumpError);
    const e = error as DumpError;
    expect(e.file).toBe(path);
    expect(e.message).toContain(path);
    expect(e.message).toMatch(/malformed XML/);
    const oops = broken.indexOf("</oops>");
    expect(e.offset).toBeGreaterThanOrEqual(oops);
    expect(e.offset).toBeLessThanOrEqual(oops + "</oops>".length);
    expect(e.message).toContain(`at decompressed byte ${e.offset}`);
  });

  it("malformed UTF-16: the byte offset counts two bytes per code unit plus the BOM", async () => {
    const text = new TextDecoder("utf-16le").decode(bunzip(BGWIKI_UTF16));
    const at = text.indexOf("</page>") + "</page>".length;
    const broken = text.slice(0, at) + "<<" + text.slice(at);
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(broken, "utf16le")]);
    const { items, error } = await collectUntilError(readPages(Readable.from([bytes]), { file: "bg.xml" }));
    expect(items.map((r) => r.title)).toEqual(["Григориански календар"]);
    const e = error as DumpError;
    expect(e).toBeInstanceOf(DumpError);
    expect(e.offset).toBeGreaterThanOrEqual(2 + at * 2);
    expect(e.offset).toBeLessThanOrEqual(2 + (at + 2) * 2);
  });

  for (const decoder of ["system", "js"] as const) {
    it(`truncated bz2 (gensim cut in half, ${decoder}): pages before the cut, then a DumpError`, async () => {
      const whole = (await import("node:fs")).readFileSync(GENSIM);
      const half = xmlFile("half.xml.bz2", whole.subarray(0, whole.length >> 1));
      const { revisions: full } = await readXml(GENSIM, { skipRedirects: false });
      const { items, error } = await collectUntilError(readDumpPages(half, { decoder, skipRedirects: false }));
      expect(error).toBeInstanceOf(DumpError);
      expect((error as DumpError).message).toContain(half);
      expect((error as DumpError).offset).not.toBeNull();
      expect(items.length).toBeLessThan(full.length);
      expect(items.map(fingerprint)).toEqual(full.slice(0, items.length).map(fingerprint));
      if (decoder === "js") expect(items.length).toBeGreaterThan(10);
    });
  }

  it("a dump with no <page> says so", async () => {
    const xml = bunzip(GENSIM).toString("utf8");
    const headerOnly = xml.slice(0, xml.indexOf("<page>")) + "</mediawiki>\n";
    const path = xmlFile("header-only.xml", headerOnly);
    const { items, error } = await collectUntilError(readDumpPages(path));
    expect(items).toEqual([]);
    expect(error).toBeInstanceOf(DumpError);
    expect((error as DumpError).message).toMatch(/no <page> found .*is this a MediaWiki XML export\?/);
    expect((error as DumpError).message).toContain(path);
  });

  it("non-XML input (a markdown file) is a DumpError, not a crash", async () => {
    const { error } = await collectUntilError(readDumpPages(WIKIPEDIA_PROVENANCE));
    expect(error).toBeInstanceOf(DumpError);
    expect((error as DumpError).message).toContain(WIKIPEDIA_PROVENANCE);
    expect((error as DumpError).message).toMatch(/is this a MediaWiki XML export\?/);
  });

  it("XML that is not a MediaWiki export names its root", async () => {
    const { error } = await collectUntilError(readDumpPages(xmlFile("page.html", "<html><body><p>Not found</p></body></html>")));
    expect((error as DumpError).message).toMatch(/root element is <html>, not <mediawiki>/);
  });

  it("empty input is a DumpError", async () => {
    const { error } = await collectUntilError(readDumpPages(xmlFile("empty.xml", "")));
    expect(error).toBeInstanceOf(DumpError);
    expect((error as DumpError).message).toMatch(/empty/);
  });

  it("a page cut off at the end of the input is an error, not a silent loss", async () => {
    const xml = bunzip(WIKIPEDIA2VEC_09).toString("utf8");
    const path = xmlFile("cut.xml", xml.slice(0, xml.lastIndexOf("</page>")));
    const { items, error } = await collectUntilError(readDumpPages(path, { skipRedirects: false }));
    expect(items).toHaveLength(3); // the last revision closed before the cut
    expect((error as DumpError).message).toMatch(/unclosed tag: page/);
  });
});
