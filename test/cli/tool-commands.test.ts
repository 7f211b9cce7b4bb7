/**
 * `paracap extract` on a damaged WARC says what it skipped and where, as a run's report does; with
 * `--config` it reads a dump or page with the run's settings (a German page's `Datei:` links).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, runCli, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const EDGE = new URL("../../../shared/data/warc/warcio-edge-cases/", import.meta.url).pathname;

describe("paracap extract on a WARC", () => {
  // (the request in the third member, after blank lines, is read too)
  it("names the damaged records it skipped (file@offset: reason) in its summary", async () => {
    const file = `${EDGE}example-wrong-chunks.warc.gz`;
    const r = await runCli(["extract", file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`paracap extract: 0 HTML page(s) of 2 WARC record(s) read; 2 damaged record(s) skipped: ${file}@516: not_a_warc_record; ${file}@0: truncated\n`);
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
