/**
 * A dump's File namespace names from its <siteinfo>: bgwiki's (UTF-16, as this shortened export is)
 * are Файл and, from MediaWiki's Bulgarian language file, Картинка; English dumps add none; `run`
 * reads a Bulgarian dump's [[Файл:…]] links without a config saying so, and says it did.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dumpFileNamespaces, fileNamespacesOfSiteinfo } from "../../shared/dump/site-file-namespaces.ts";
import { withInputSettings } from "../../shared/sources/input-settings.ts";
import { BUILTIN_SOURCES } from "../../shared/sources/registry.ts";
import { DATA, removeTempDirs, runCli, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const WIKI = join(DATA, "wikipedia");

describe("dumpFileNamespaces", () => {
  it("bgwiki (a UTF-16 export): Файл from its siteinfo, Картинка from the Bulgarian language file", async () => {
    expect(await dumpFileNamespaces(join(WIKI, "bgwiki-latest-pages-articles-shortened.xml.bz2"))).toEqual({ language: "bg", names: ["Файл", "Картинка"] });
  });

  it("English dumps add nothing (File, Image and Media are built in)", async () => {
    expect(await dumpFileNamespaces(join(WIKI, "wikipedia2vec-enwiki-pages-articles-sample.xml.bz2"))).toEqual({ language: "en", names: [] });
    expect(await dumpFileNamespaces(join(WIKI, "enwiki-table-markup.xml.bz2"))).toBeNull(); // (no siteinfo)
  });

  it("a German siteinfo: Datei and Bild; a dump without siteinfo: null", () => {
    const head = '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="de"><siteinfo><sitename>Wikipedia</sitename><dbname>dewiki</dbname><namespaces><namespace key="6" case="first-letter">Datei</namespace></namespaces></siteinfo><page>';
    expect(fileNamespacesOfSiteinfo(head)).toEqual({ language: "de", names: ["Datei", "Bild"] });
    expect(fileNamespacesOfSiteinfo("<page><title>x</title></page>")).toBeNull();
  });

  it("run on a Bulgarian dump reads its [[Файл:…]] links and says so", async () => {
    const dir = tempDir("paracap-bg-");
    // the bgwiki export's siteinfo, then an article whose images are written the Bulgarian way
    // (the Bulgarian options after the first caption are options: the caption stays the caption)
    const page = (id: number, caption: string) => `<page><title>Статия ${id}</title><ns>0</ns><id>${id}</id><revision><id>${100 + id}</id><text xml:space="preserve">[[Файл:Витоша.jpg|${caption}|мини|вдясно|200пкс]] [[Картинка:Родопи.jpg|мини|ляво|Родопите през зимата, погледнати от връх Снежанка.]]</text></revision></page>`;
    const dump = `<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="bg"><siteinfo><sitename>Уикипедия</sitename><dbname>bgwiki</dbname><namespaces><namespace key="0" case="first-letter" /><namespace key="6" case="first-letter">Файл</namespace></namespaces></siteinfo>${page(1, "Витоша, погледната от центъра на София в ясен зимен ден.")}${page(2, "Планината Витоша се издига над града в слънчев зимен ден.")}</mediawiki>`;
    writeFileSync(join(dir, "bgwiki-test.xml"), dump);
    const out = join(dir, "out");
    const r = await runCli(["run", "--input", join(dir, "bgwiki-test.xml"), "--out", out, "--tiers", "gold,silver"], { env: { PARACAP_QUIET: "" } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("bgwiki-test.xml: a bg wiki, whose file links are also written [[Файл:…]], [[Картинка:…]], with its own image options (extraction.fileAliases, extraction.language)");
    expect(JSON.parse(readFileSync(join(out, "config.json"), "utf8")).extraction).toMatchObject({ fileAliases: ["Файл", "Картинка"], language: "bg" });
    expect(r.stderr).toContain('note: the gold and silver caption filters (a sentence, a verb) read English; captions in "bg" rarely pass them');
    const stats = JSON.parse(readFileSync(join(out, "stats.json"), "utf8"));
    expect(stats.extraction["extract.current.references"]).toBe(4);
    // extract reads it the same way: each caption is the caption, not the option after it
    const x = await runCli(["extract", join(dir, "bgwiki-test.xml")]);
    expect(x.code, x.stderr).toBe(0);
    const lines = x.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as { image: string; text: string | null });
    expect(lines.map((l) => [l.image, l.text])).toEqual([
      ["File:Витоша.jpg", "Витоша, погледната от центъра на София в ясен зимен ден."],
      ["File:Родопи.jpg", "Родопите през зимата, погледнати от връх Снежанка."],
      ["File:Витоша.jpg", "Планината Витоша се издига над града в слънчев зимен ден."],
      ["File:Родопи.jpg", "Родопите през зимата, погледнати от връх Снежанка."],
    ]);
  });

  it("cloud upload's config gains them for a Bulgarian dump; an English dump's or a config that names them stays as it was", async () => {
    const bg = join(WIKI, "bgwiki-latest-pages-articles-shortened.xml.bz2");
    const en = join(WIKI, "wikipedia2vec-enwiki-pages-articles-sample.xml.bz2");
    const given: { tiers: string[]; extraction?: { fileAliases?: string[]; language?: string } } = { tiers: ["gold", "silver"] };
    const got = await withInputSettings(BUILTIN_SOURCES, given, [bg, en]);
    expect(got.config).toEqual({ tiers: ["gold", "silver"], extraction: { fileAliases: ["Файл", "Картинка"], language: "bg" } });
    expect(got.notes).toHaveLength(1);
    expect((await withInputSettings(BUILTIN_SOURCES, given, [en])).config).toBe(given);
    expect((await withInputSettings(BUILTIN_SOURCES, undefined, [en])).config).toBeUndefined();
    const named = { extraction: { fileAliases: ["Datei"] } };
    expect((await withInputSettings(BUILTIN_SOURCES, named, [bg])).config).toBe(named);
  });
});
