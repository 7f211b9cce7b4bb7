/**
 * A revision text is never held beyond its bound: a small .gz that expands to a 640 MiB <text> (more
 * than V8's longest string, ~512 MiB, so a reader that held it whole could not) is read through, that
 * revision is a counted skip, and the pages after it are read. Old exports' redirects
 * (text "#REDIRECT …", no <redirect> element) are recognised.
 */
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { readDumpPages } from "../../shared/dump/page-reader.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const DATA = new URL("../../../shared/data/wikipedia/", import.meta.url).pathname;

async function* bomb(textBytes: number): AsyncGenerator<Buffer> {
  yield Buffer.from('<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/"><page><title>Bomb</title><ns>0</ns><id>1</id><revision><id>10</id><text xml:space="preserve">');
  const block = Buffer.alloc(1 << 20, "a");
  for (let n = 0; n < textBytes; n += block.length) yield block;
  yield Buffer.from("</text></revision></page>");
  yield Buffer.from('<page><title>After</title><ns>0</ns><id>2</id><revision><id>20</id><text xml:space="preserve">[[File:Stari Most.jpg|thumb|The old bridge at Mostar was rebuilt in 2004.]]</text></revision></page></mediawiki>');
}

describe("revision text bound", () => {
  it("a 640 MiB <text> inside a small .gz is skipped and counted; the next page is read", async () => {
    const file = join(tempDir(), "bomb.xml.gz");
    await pipeline(bomb(640 << 20), createGzip({ level: 1 }), createWriteStream(file));
    const counters = new Counters();
    const titles: string[] = [];
    for await (const rev of readDumpPages(file, { counters, maxTextBytes: 8 << 20 })) titles.push(rev.title);
    expect(titles).toEqual(["After"]);
    expect(counters.get("dump.skipped.page_too_large")).toBe(1);
    expect(counters.get("dump.revisions")).toBe(2);
    expect(counters.get("dump.revisions.emitted")).toBe(1);
  });

  it("export-0.3 redirects are told by their text (enwik8: 243 of 491 pages)", async () => {
    const counters = new Counters();
    let used = 0;
    // the excerpt is the first 4,154,064 bytes of enwik8: it ends inside the root
    await expect(async () => {
      for await (const rev of readDumpPages(join(DATA, "enwik8-first-4154064-bytes.xml.bz2"), { counters })) {
        expect(rev.text).not.toMatch(/^\s*#redirect/i);
        used++;
      }
    }).rejects.toThrow(/unclosed tag: mediawiki/);
    expect(counters.get("dump.pages")).toBe(491);
    // 243 texts start with #REDIRECT; one of them is on a page outside the article namespace
    expect(counters.get("dump.skipped.namespace")).toBe(1);
    expect(counters.get("dump.skipped.redirect")).toBe(242);
    expect(used + counters.get("dump.skipped.redirect") + counters.get("dump.skipped.namespace")).toBe(counters.get("dump.revisions"));
  });
});

describe("DOCTYPE", () => {
  it("an internal subset with \"]\" inside an entity value or a comment is read through", async () => {
    const { readPages } = await import("../../shared/dump/page-reader.ts");
    const xml = `<?xml version="1.0"?><!DOCTYPE mediawiki [ <!ENTITY brackets "a]b"> <!-- not the end: ] --> <!ENTITY x 'c]d'> ]><mediawiki><page><title>Mostar</title><ns>0</ns><id>1</id><revision><id>2</id><text>[[File:Stari Most.jpg|thumb|The old bridge]]</text></revision></page></mediawiki>`;
    const got: string[] = [];
    for await (const rev of readPages([Buffer.from(xml)])) got.push(rev.title);
    expect(got).toEqual(["Mostar"]);
  });
});
