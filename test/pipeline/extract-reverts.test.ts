/**
 * A revert (a revision whose text equals one of the page's recent texts) is extracted once: its references, skips
 * and counts must be exactly those of extracting it again.
 */
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import type { PageRevision } from "../../shared/core/records.ts";
import { lazyRevision, rawText } from "../../shared/dump/revision-text.ts";
import { documentExtractor, type RevisionRefs } from "../../shared/pipeline/extract-stage.ts";
import { mediawikiSource } from "../../shared/sources/mediawiki/mediawiki-source.ts";
import { readDumpPages } from "../../shared/dump/page-reader.ts";
import { SAMPLE_HISTORY } from "../runner/helpers.ts";

const config = resolveConfig({ extraction: { maxPageBytes: 400 } });

const A = "{{Infobox person|image=Proudhon-young.jpg|caption=Pierre-Joseph Proudhon in {{circa|1850}}}}\n[[File:Kropotkin.jpg|thumb|Peter Kropotkin, an anarchist &amp; geographer]]";
const B = A.replace("geographer", "zoologist");
const HUGE = `[[File:Big.png|thumb|${"x".repeat(500)}]]`; // over maxPageBytes: a counted skip

/** As the dump reader makes them: the text still encoded (XML character data) until read. */
const raw = (pageId: number, revisionId: number, text: string): PageRevision =>
  lazyRevision(`Page ${pageId}`, 0, pageId, revisionId, null, false, Buffer.from(text.replace(/&(?!amp;)/g, "&amp;"), "utf8"));

/** Counts without the feature cache's hits (an extractor of its own per revision has a cold cache by design). */
const counts = (c: Counters) => Object.fromEntries(Object.entries(c.toJSON()).filter(([k]) => k !== "extract.features.cache_hits"));

/** Each revision extracted by an extractor of its own: nothing to reuse. */
function eachAlone(revs: () => PageRevision[]): { out: RevisionRefs[]; counters: Counters } {
  const counters = new Counters();
  const out = revs().map((r) => documentExtractor(mediawikiSource, config, counters)(r, "history"));
  return { out, counters };
}

function together(revs: () => PageRevision[]): { out: RevisionRefs[]; counters: Counters; decoded: boolean[] } {
  const counters = new Counters();
  const extract = documentExtractor(mediawikiSource, config, counters);
  const list = revs();
  const out = list.map((r) => extract(r, "history"));
  // a text still held as bytes was never decoded (nor parsed)
  return { out, counters, decoded: list.map((r) => rawText(r) === undefined) };
}

describe("reverted texts", () => {
  it("give the references, skips, counts and samples of extracting them again", () => {
    const revs = () => [raw(1, 10, A), raw(1, 11, B), raw(1, 12, A), raw(1, 13, HUGE), raw(1, 14, B), raw(1, 15, HUGE), raw(2, 20, A), raw(2, 21, A)];
    const alone = eachAlone(revs);
    const both = together(revs);
    expect(both.out).toEqual(alone.out);
    // the byte path decodes no whole text (only the spans of references), so every text stays bytes
    expect(both.decoded).toEqual([false, false, false, false, false, false, false, false]);
    // the revert (12) has the ids of its own revision and the references of the text it restored
    expect(both.out[2]!.revisionId).toBe(12);
    expect(both.out[2]!.refs).toEqual(both.out[0]!.refs);
    expect(both.out[2]!.refs.map((r) => r.caption?.text)).toEqual(["Pierre-Joseph Proudhon in c. 1850", "Peter Kropotkin, an anarchist & geographer"]);
    expect(both.out[5]!.skipped).toBe(both.out[3]!.skipped);
    expect(both.out[5]!.skipped).toBeTruthy();
    expect(counts(both.counters)).toEqual(counts(alone.counters));
    expect(both.counters.samples.toJSON()).toEqual(alone.counters.samples.toJSON());
  });

  it("a text one byte apart is extracted anew", () => {
    const C = A.replace("Kropotkin,", "Kropotkin;");
    const { out } = together(() => [raw(1, 1, A), raw(1, 2, C)]);
    expect(out[1]!.refs[1]!.caption?.text).toBe("Peter Kropotkin; an anarchist & geographer");
  });

  it("on the real history sample: the same references and counts as one extractor per revision", async () => {
    const read = async () => {
      const revs: PageRevision[] = [];
      for await (const r of readDumpPages(SAMPLE_HISTORY, { namespaces: [0] })) revs.push(r);
      return revs;
    };
    const first = await read();
    const second = await read();
    const sampleConfig = resolveConfig({});
    const aloneCounters = new Counters();
    const alone = first.map((r) => documentExtractor(mediawikiSource, sampleConfig, aloneCounters)(r, "history"));
    const counters = new Counters();
    const extract = documentExtractor(mediawikiSource, sampleConfig, counters);
    expect(second.map((r) => extract(r, "history"))).toEqual(alone);
    expect(counts(counters)).toEqual(counts(aloneCounters));
  });
});
