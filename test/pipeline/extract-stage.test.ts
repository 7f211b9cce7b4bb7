/** Extract stage: revisions → references with caption features; identical uses of a page collapse. */
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import type { PageRevision, ShuffleRef } from "../../shared/core/records.ts";
import { silentContext } from "../../shared/core/stage.ts";
import { readDumpPages } from "../../shared/dump/page-reader.ts";
import { collapseUses, createFeatureLookup, documentChunks, documentExtractor, extractStage, type ExtractedRef, type RevisionRefs, type UseSpill } from "../../shared/pipeline/extract-stage.ts";
import { mediawikiSource } from "../../shared/sources/mediawiki/mediawiki-source.ts";
import { SAMPLE_CURRENT, SAMPLE_HISTORY } from "../runner/helpers.ts";
import { collect, from } from "./stage-helpers.ts";

const config = resolveConfig({});

async function extract(path: string, kind: "current" | "history") {
  const counters = new Counters();
  const refs = await collect(extractStage(mediawikiSource, config, kind).run(readDumpPages(path, { namespaces: [0] }), silentContext(counters)));
  return { refs, counters };
}

const brief = (r: ShuffleRef) => [r.image, r.revisionId, r.ordinal, r.uses, r.caption?.text.slice(0, 30) ?? null];

describe("extract stage on the history sample (120 revisions of Anarchism)", () => {
  it("collapses each unchanged use into one record counting its revisions: 831 references → 13 records", async () => {
    const { refs, counters } = await extract(SAMPLE_HISTORY, "history");
    expect(counters.get("extract.history.revisions")).toBe(120);
    expect(counters.get("extract.history.references")).toBe(831);
    expect(refs.reduce((n, r) => n + r.uses, 0)).toBe(831);
    // in the order each use was first seen: (image, first revision, position in it, revisions, caption)
    expect(refs.map(brief)).toEqual([
      ["File:Proudhon-young.jpg", 18576354, 0, 111, "Pierre Proudhon (1809-1865)"],
      ["File:Goldman-4.jpg", 18576354, 1, 111, "Emma Goldman 1869-1940"],
      ["File:Kropotkin.jpg", 18576354, 2, 111, null],
      ["File:Blkred flag.png", 18576354, 3, 120, "The red-and-black flag, coming"],
      ["File:BenjaminTucker.jpg", 18576354, 4, 109, "Benjamin Tucker"],
      ["File:Zerzan.jpeg", 18576354, 5, 109, "John Zerzan"],
      ["File:Food Not Bombs logo.png", 18576354, 6, 108, "Food Not Bombs logo, which pla"],
      ["File:Murray Rothbard Smile.JPG", 18576885, 2, 23, "Murray Rothbard (1926-1995)"],
      // the one revision that escaped the quotes (\"militant fist\") is a use of its own
      ["File:Food Not Bombs logo.png", 18578806, 7, 1, "Food Not Bombs logo, which pla"],
      ["File:CircleAsymbol01.gif", 18581569, 0, 6, null],
      ["File:Ideomap-v21.gif", 18581569, 2, 7, "Political ideology diagram, sh"],
      ["File:LysanderSpooner.jpg", 18581569, 7, 11, "Lysander Spooner (1808-1887)"],
      ["File:Ideomap-v21.gif", 18864795, 0, 4, "Political ideology diagram, sh"],
    ]);
    expect(refs.every((r) => r.kind === "history" && r.page === "Anarchism" && r.pageId === 12)).toBe(true);
  });
});

describe("extract stage on the current sample", () => {
  it("collapses a page's identical uses (same image, source, caption and alt) and nothing else", async () => {
    const { refs, counters } = await extract(SAMPLE_CURRENT, "current");
    // (1257 and 1254 before {{double image}}, {{wide image}} and comments before infobox parameter names were read)
    expect(counters.get("extract.current.references")).toBe(1279);
    expect(refs).toHaveLength(1276);
    expect(refs.filter((r) => r.uses > 1).map((r) => [r.image, r.page, r.source, r.uses, r.caption, r.alt])).toEqual([
      ["File:Flag of Alabama.svg", "Alabama", "template", 2, null, null],
      ["File:Seal of Alabama.svg", "Alabama", "template", 2, null, null],
      ["File:Sturgeon2.jpg", "Actinopterygii", "link", 2, null, null],
    ]);
    // the same image and caption on two pages stays two uses
    const skeleton = refs.filter((r) => r.image === "File:Ceratophrys cornuta skeleton front.jpg");
    expect(skeleton.map((r) => [r.page, r.uses, r.caption?.text])).toEqual([
      ["Amphibian", 1, "Skeleton of Surinam horned frog (Ceratophrys cornuta)"],
      ["Anatomy", 1, "Skeleton of Surinam horned frog (Ceratophrys cornuta)"],
    ]);
  });
});

describe("collapseUses", () => {
  const text = "[[File:Blkred flag.png|thumb|The red-and-black flag, coming from the experience of anarchists in the labour movement, is particularly associated with anarcho-syndicalism.]]";
  const rev = (title: string, pageId: number, revisionId: number, body: string): PageRevision =>
    ({ title, ns: 0, pageId, revisionId, timestamp: null, redirect: false, text: body });

  it("keys uses by page: identical wikitext on two pages is two uses; a use that disappears and returns is the same use", async () => {
    const counters = new Counters();
    const extractor = documentExtractor(mediawikiSource, config, counters);
    const revisions = [
      rev("Anarchism", 12, 1, text),
      rev("Anarchism", 12, 2, "no image in this revision"),
      rev("Anarchism", 12, 3, text),
      rev("Anarchist symbolism", 40, 4, text),
    ].map((r) => extractor(r, "history"));
    const out = await collect(collapseUses(from(revisions), counters));
    expect(out.map((r) => [r.page, r.revisionId, r.uses])).toEqual([["Anarchism", 1, 2], ["Anarchist symbolism", 4, 1]]);
    expect(counters.get("extract.history.references")).toBe(3);
  });

  it("a reference at the same index as in the last revision is that use only when every part is equal", async () => {
    const counters = new Counters();
    // two lookups: equal texts as different feature objects
    const f1 = createFeatureLookup(config, counters);
    const f2 = createFeatureLookup(config, counters);
    const ref = (image: string, caption: string | null, alt: string | null, more: Partial<ExtractedRef> = {}, f = f1): ExtractedRef =>
      ({ image, source: "link", ordinal: 0, caption: f(caption), alt: f(alt), ...more });
    const revs: ExtractedRef[][] = [
      [ref("A", "x", null)],
      [ref("A", "x", "y")], // alt added: a new use
      [ref("A", "x", "y", {}, f2)], // the same texts, other objects: the same use
      [ref("B", "x", "y")], // another image
      [ref("B", "x", "y", { source: "template" })], // another source
      [ref("B", "x", "y", { source: "template", origin: "O" })], // a text pivot's copy of another image
      [ref("B", "x", "y", { source: "template", origin: "O", title: f1("t") })], // a title
      [ref("B", null, "y", { source: "template", origin: "O", title: f1("t") })], // no caption
      [ref("C", "z", null), ref("A", "x", "y"), ref("A", "x", null)], // earlier uses at other indices: found by key
      [ref("A", "x", "y"), ref("A", "x", "y"), ref("A", "x", null)], // index 0 now A: by key; index 1 as before
    ];
    const out = await collect(collapseUses(from(revs.map((refs, i) => ({ kind: "history" as const, page: "P", pageId: 1, revisionId: i + 1, refs }))), counters));
    expect(out.map((r) => [r.image, r.source, r.origin ?? null, r.caption?.text ?? null, r.alt?.text ?? null, r.title?.text ?? null, r.uses])).toEqual([
      ["A", "link", null, "x", null, null, 3],
      ["A", "link", null, "x", "y", null, 5],
      ["B", "link", null, "x", "y", null, 1],
      ["B", "template", null, "x", "y", null, 1],
      ["B", "template", "O", "x", "y", null, 1],
      ["B", "template", "O", "x", "y", "t", 1],
      ["B", "template", "O", null, "y", "t", 1],
      ["C", "link", null, "z", null, null, 1],
    ]);
  });

  it("a page flushed early (limit) splits a use into records whose uses still add up", async () => {
    const counters = new Counters();
    const extractor = documentExtractor(mediawikiSource, config, counters);
    const revisions = [1, 2, 3].map((id) => extractor(rev("Anarchism", 12, id, text + (id === 2 ? "\n[[File:Kropotkin.jpg|thumb|left]]" : "")), "history"));
    const out = await collect(collapseUses(from(revisions), counters, 1));
    expect(out.reduce((n, r) => n + r.uses, 0)).toBe(4);
    expect(out.length).toBeGreaterThan(2);
  });

  it("emits the last page's uses before passing on a damaged-input error (they were read and counted)", async () => {
    const counters = new Counters();
    const extractor = documentExtractor(mediawikiSource, config, counters);
    async function* damaged() {
      yield extractor(rev("Anarchism", 12, 1, text), "history");
      yield extractor(rev("Anarchism", 12, 2, text), "history");
      throw new Error("bz2 data is truncated");
    }
    const got: ShuffleRef[] = [];
    await expect((async () => {
      for await (const r of collapseUses(damaged(), counters)) got.push(r);
    })()).rejects.toThrow("bz2 data is truncated");
    expect(got.map((r) => [r.image, r.uses])).toEqual([["File:Blkred flag.png", 2]]);
    expect(counters.get("extract.history.references")).toBe(2);
  });

  it("with a spill, holds a few records of a page and gives back exactly the records and order it gives without one", async () => {
    // the history sample as chunks of 2 references, with distinct uses doubled on a page of its own
    const pages = (await collect(readDumpPages(SAMPLE_HISTORY, { namespaces: [0] }))) as PageRevision[];
    const wide = rev("Wide", 99, 1, Array.from({ length: 40 }, (_, i) => `[[File:W${i % 7}.jpg|thumb|caption ${i % 11}]] `).join(""));
    const run = async (spill?: UseSpill) => {
      const counters = new Counters();
      const chunks = documentChunks(mediawikiSource, config, counters, 2);
      const revs = [...pages, wide, wide].flatMap((p) => [...chunks(p, "history")]);
      return collect(collapseUses(from(revs), counters, spill ? { spill, held: 3 } : {}));
    };
    let lines = "";
    let drains = 0;
    let largest = 0;
    const spill: UseSpill = {
      write: async (s) => {
        lines += s;
        largest = Math.max(largest, lines.length);
      },
      drain: async function* () {
        drains++;
        const all = lines.split("\n").filter(Boolean).map((l) => JSON.parse(l) as ShuffleRef);
        lines = "";
        yield* all;
      },
    };
    const plain = await run();
    const spilled = await run(spill);
    expect(drains).toBe(2); // Anarchism (13 records) and Wide (40 distinct uses), each more than 3
    expect(largest).toBeGreaterThan(0);
    expect(spilled.map((r) => JSON.stringify(r))).toEqual(plain.map((r) => JSON.stringify(r)));
    expect(plain.filter((r) => r.page === "Wide").map((r) => r.uses)).toEqual(Array(40).fill(2));
  });

  it("chunks of a revision give the references, ordinals, features and counts of it in one piece", () => {
    const body = Array.from({ length: 25 }, (_, i) => `[[File:C${i}.jpg|thumb|Caption number ${i} of the page.]]`).join("\n");
    const whole = new Counters();
    const chunked = new Counters();
    const one = documentExtractor(mediawikiSource, config, whole)(rev("Chunks", 7, 70, body), "current");
    const parts: RevisionRefs[] = [...documentChunks(mediawikiSource, config, chunked, 10)(rev("Chunks", 7, 70, body), "current")];
    expect(parts.map((p) => [p.refs.length, p.continued ?? false])).toEqual([[10, false], [10, true], [5, true]]);
    expect(parts.flatMap((p) => p.refs)).toEqual(one.refs);
    expect(chunked.toJSON()).toEqual(whole.toJSON());
    const empty = [...documentChunks(mediawikiSource, config, chunked, 10)(rev("Chunks", 7, 71, "no image"), "current")];
    expect(empty.map((p) => p.refs.length)).toEqual([0]);
  });
});
