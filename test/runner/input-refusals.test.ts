/** Inputs given by mistake (a companion file, plain text no source reads) are refused with what they are; plain UTF-16 dumps are still read. */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InputError, planLocalShards } from "../../shared/runner/local-shards.ts";
import { BUILTIN_SOURCES } from "../../shared/sources/registry.ts";
import { tempDir, removeTempDirs } from "./helpers.ts";

afterAll(removeTempDirs);

describe("a companion given as the input", () => {
  it("a multistream index is refused with the dump it belongs to, not read as a broken dump", async () => {
    const dir = tempDir("paracap-companion-");
    const index = join(dir, "enwiki-20250601-pages-articles-multistream-index.txt");
    // Wikipedia's index lines: offset:page id:title
    writeFileSync(index, "616:10:AccessibleComputing\n616:12:Anarchism\n616:13:AfghanistanHistory\n");
    const planned = planLocalShards([{ path: index, kind: "current" }]);
    await expect(planned).rejects.toThrow(InputError);
    await expect(planLocalShards([{ path: index, kind: "current" }])).rejects.toThrow(
      `${index} is not an input but a companion of enwiki-20250601-pages-articles-multistream.xml.bz2 (mediawiki): give that file as the input; this one is found beside it by its name`,
    );
  });
});

describe("an input given as a URL", () => {
  it("says to download it (or how paracap reads remote crawls), not just 'input not found'", async () => {
    const url = "https://dumps.wikimedia.org/enwiki/latest/enwiki-latest-pages-articles1.xml-p1p41242.bz2";
    await expect(planLocalShards([{ path: url, kind: "current" }])).rejects.toThrow(
      `${url}: run reads files on this machine: download it first (curl -LO '${url}'); a crawl's WARCs on a server are read over HTTP(S) through a paths list (--input warc.paths.gz, its lines under --warc-base-url)`,
    );
    await expect(planLocalShards([{ path: "gs://my-bucket/dumps/x.xml.bz2", kind: "current" }])).rejects.toThrow(/^gs:\/\/my-bucket\/dumps\/x\.xml\.bz2: a Cloud Storage object: run reads files on this machine \(copy it here: gcloud storage cp/);
    await expect(planLocalShards([{ path: "no-such-file.xml.bz2", kind: "current" }])).rejects.toThrow("input not found: no-such-file.xml.bz2");
  });
});

describe("a plain-text input no source reads", () => {
  const CC = new URL("../../../shared/data/conceptual-captions/gcc-validation-part1-lines00001-07900.tsv", import.meta.url).pathname;
  const captions = readFileSync(CC, "utf8").split("\n").slice(0, 10).map((l) => l.split("\t")[0]!);

  it("is refused with what paracap reads (it went to the dump reader: 'malformed XML … is this a MediaWiki XML export?')", async () => {
    const dir = tempDir("paracap-unreadable-");
    const notes = join(dir, "notes.txt");
    writeFileSync(notes, `${captions[0]}\n${captions[1]}\n`);
    await expect(planLocalShards([{ path: notes, kind: "current" }])).rejects.toThrow(
      new RegExp(`^${notes.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: not a format paracap reads \\(first line: .*\\); it reads MediaWiki XML dumps, caption lists .*, web crawls .* and img2dataset outputs$`),
    );
  });
});

describe("a plain MediaWiki export in UTF-16 (some exports are)", () => {
  it("is still the dump reader's, with its mark or without, either byte order", () => {
    const xml = '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="bg">\n  <siteinfo>';
    const le = Buffer.from(xml, "utf16le");
    const be = Buffer.from(le).swap16();
    for (const head of [Buffer.concat([Buffer.from([0xff, 0xfe]), le]), le, Buffer.concat([Buffer.from([0xfe, 0xff]), be]), be]) {
      expect(BUILTIN_SOURCES.detect("bgwiki-latest-pages-articles.xml", head)?.name).toBe("mediawiki");
    }
  });
});
