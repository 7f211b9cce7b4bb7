/**
 * A stub dump (stub-meta-history, stub-articles: every revision's metadata, its text kept in another file as
 * `<text bytes="2264" id="…"/>`) sits next to the full dumps on dumps.wikimedia.org and is easily fetched by
 * mistake. Its revisions are counted as no_text skips, not read as empty pages, and a run over nothing else
 * stops and says which dump to fetch instead of publishing empty datasets.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { readPages } from "../../shared/dump/page-reader.ts";
import { bunzip } from "./real-data.ts";
import { readStats, run, SAMPLE_CURRENT, SAMPLE_HISTORY, tempDir, removeTempDirs } from "../runner/helpers.ts";

afterAll(removeTempDirs);

/** The history sample as its stub dump would be: each text replaced by its size and a text id. */
function stubOf(xml: string): { stub: string; texts: number; blank: number } {
  let texts = 0;
  let blank = 0;
  const stub = xml.replace(/<text([^>/]*)>([\s\S]*?)<\/text>/g, (_m, _attrs: string, body: string) => {
    const bytes = Buffer.byteLength(body);
    if (bytes === 0) blank++;
    else texts++;
    return `<text bytes="${bytes}" sha1="phoiac9h4m842xq45sp7s6u21eteeq1" location="tt:${1000 + texts}" id="${1000 + texts}" />`;
  });
  return { stub, texts, blank };
}

const HISTORY_XML = bunzip(SAMPLE_HISTORY).toString("utf8");

async function read(xml: string): Promise<{ revisions: number; counters: Counters }> {
  const counters = new Counters();
  let revisions = 0;
  for await (const _ of readPages(Readable.from([Buffer.from(xml)]), { counters })) revisions++;
  return { revisions, counters };
}

describe("a stub dump", () => {
  it("its revisions are no_text skips; a blank revision (bytes 0) and a text deleted from view are read as before", async () => {
    const { stub, texts } = stubOf(HISTORY_XML);
    expect(texts).toBeGreaterThan(100);
    const { revisions, counters } = await read(stub);
    expect(counters.get("dump.skipped.no_text")).toBe(texts);
    expect(counters.get("dump.revisions.emitted")).toBe(revisions);
    expect(counters.get("dump.revisions")).toBe(revisions + texts);
    // the full dump: no revision is a stub
    expect((await read(HISTORY_XML)).counters.get("dump.skipped.no_text")).toBe(0);
    // what full dumps also write without text
    const edge = HISTORY_XML.replace(/<text([^>/]*)>([\s\S]*?)<\/text>/, '<text bytes="0" />').replace(/<text([^>/]*)>([\s\S]*?)<\/text>/, '<text bytes="5120" deleted="deleted" />');
    const e = await read(edge);
    expect(e.counters.get("dump.skipped.no_text")).toBe(0);
    expect(e.revisions).toBe((await read(HISTORY_XML)).revisions);
  });

  it("a run over a stub dump alone stops with the dump to fetch instead; beside a full dump it runs and counts them", async () => {
    const dir = tempDir("paracap-stub-");
    const stub = join(dir, "enwiki-20250601-stub-meta-history1.xml");
    const { stub: text, texts } = stubOf(HISTORY_XML);
    writeFileSync(stub, text);
    await expect(run(join(dir, "alone"), [{ path: stub, kind: "history" }])).rejects.toThrow(
      /^\d[\d,]* of [\d,]+ revisions have no text in the input .*: a stub dump .* holds revision metadata only; give the pages-articles or pages-meta-history dump$/,
    );
    await run(join(dir, "mixed"), [{ path: SAMPLE_CURRENT, kind: "current" }, { path: stub, kind: "history" }], { tiers: ["gold"] });
    expect(readStats(join(dir, "mixed")).extraction["dump.skipped.no_text"]).toBe(texts);
  });
});
