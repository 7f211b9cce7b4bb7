/**
 * `paracap extract` on a damaged WARC says what it skipped and where, as a run's report does; with
 * `--config` it reads a dump or page with the run's settings (a German page's `Datei:` links); its
 * --help names the keys of the lines it writes.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, runCli, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const EDGE = new URL("../../../shared/data/warc/warcio-edge-cases/", import.meta.url).pathname;

describe("paracap extract on a WARC", () => {
  // warcio's wrong-chunks file without its second member (the response's body): the response is cut;
  // the request in the third member, after blank lines, is read
  it("names the damaged records it skipped (file@offset: reason) in its summary", async () => {
    const chunks = readFileSync(`${EDGE}example-wrong-chunks.warc.gz`);
    const file = join(tempDir("paracap-extract-cut-"), "cut.warc.gz");
    writeFileSync(file, Buffer.concat([chunks.subarray(0, 516), chunks.subarray(1130)]));
    const r = await runCli(["extract", file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`paracap extract: 0 HTML page(s) of 2 WARC record(s) read; 1 damaged record(s) skipped: ${file}@0: truncated\n`);
  });

  it("a record split across gzip members (wrong chunks) is one page", async () => {
    const r = await runCli(["extract", `${EDGE}example-wrong-chunks.warc.gz`]);
    expect(r.stderr).toBe("paracap extract: 1 HTML page(s) of 2 WARC record(s) read\n");
  });

  it("an intact WARC's summary is unchanged", async () => {
    const r = await runCli(["extract", `${EDGE}example.warc.gz`]);
    expect(r.stderr).toBe("paracap extract: 1 HTML page(s) of 6 WARC record(s) read\n");
  });
});

describe("paracap extract --config", () => {
  // a German Wikipedia page (wtf_wikipedia's fixture): its seven images are all [[Datei:…]] links
  const page = new URL("../fixtures/data/wikitext/wtf_wikipedia/Keilwelle.txt", import.meta.url).pathname;
  const images = (stdout: string) => [...new Set(stdout.trim().split("\n").filter(Boolean).map((l) => (JSON.parse(l) as { image: string }).image))];

  it("reads localised file links with the config's extraction.fileAliases, as a run with that config does", async () => {
    const dir = tempDir("paracap-extract-config-");
    const config = join(dir, "de.json");
    writeFileSync(config, JSON.stringify({ extraction: { fileAliases: ["Datei"] } }));
    const without = await runCli(["extract", page]);
    expect(without.code).toBe(0);
    expect(images(without.stdout).filter((i) => i.startsWith("File:Keil"))).toEqual([]);
    const withConfig = await runCli(["extract", page, "--config", config]);
    expect(withConfig.code).toBe(0);
    expect(images(withConfig.stdout)).toEqual([
      "File:Keilprofil-6K.JPG",
      "File:Keilprofil-6K-Detail.JPG",
      "File:Spline hobs.JPG",
      "File:Milling splineprofile.JPG",
      "File:Keilnaben-Ziehmesser.JPG",
      "File:Keilwelle.JPG",
      "File:Zahnrad mit Keilnabe.JPG",
    ]);
    expect(withConfig.stdout).toContain('"text":"Keilwelle mit 16 Keilen"');
  });

  it("a config the run would refuse is refused here too, naming the key", async () => {
    const dir = tempDir("paracap-extract-config-bad-");
    const config = join(dir, "bad.json");
    writeFileSync(config, JSON.stringify({ extraction: { fileAlias: ["Datei"] } }));
    const r = await runCli(["extract", page, "--config", config]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/extraction\.fileAlias/);
  });
});

describe("paracap extract --help", () => {
  // the usage names the fields of the lines, for a wiki page and for a WARC: the keys must be the output's
  const documented = (usage: string) => [...usage.matchAll(/^\s*\{("image".*)\}$/gm)].map((m) => [...m[1]!.matchAll(/"(\w+)"(?=[,:]|$)/g)].map((k) => k[1]).filter((k) => !["caption", "alt", "title", "figcaption", "table", "nearby"].includes(k!)));
  const keys = (stdout: string) => Object.keys(JSON.parse(stdout.split("\n")[0]!) as object);

  it("names the keys of the lines it writes", async () => {
    const usage = (await runCli(["extract", "--help"])).stdout;
    const [wiki, warc] = documented(usage);
    const page = new URL("../fixtures/data/wikitext/wtf_wikipedia/Bodmin.txt", import.meta.url).pathname;
    expect(keys((await runCli(["extract", page])).stdout)).toEqual(wiki);
    expect(keys((await runCli(["extract", `${EDGE}../pywb-iana.warc.gz`])).stdout)).toEqual(warc);
  });
});

describe("paracap extract on a file that is no dump", () => {
  // a user's mistake (a picture, a caption list), not damage: exit 2 as run gives, one line
  it("an image or a caption list is one line, exit 2; a dump damaged after its first pages stays exit 1", async () => {
    const jpg = new URL("../fixtures/data/images/jimagehash/ballon.jpg", import.meta.url).pathname;
    const tsv = new URL("../fixtures/data/conceptual-captions/gcc-validation-lines00001-00500.tsv", import.meta.url).pathname;
    for (const file of [jpg, tsv]) {
      const r = await runCli(["extract", file]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/^paracap extract: no pages read from .*: malformed XML .*is this a MediaWiki XML export\?\n$/);
    }
    // enwik8's first 4 MB end without </mediawiki>: its pages are written, then the damage is said
    const cut = await runCli(["extract", new URL("../../../shared/data/wikipedia/enwik8-first-4154064-bytes.xml.bz2", import.meta.url).pathname]);
    expect(cut.code).toBe(1);
    expect(cut.stdout).not.toBe("");
  });
});
