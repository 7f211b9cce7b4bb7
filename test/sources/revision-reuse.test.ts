/**
 * The revision extractor reuses the previous text's outcome only where that is exact: on every revision
 * of every history in the suite it gives what extracting the decoded text from scratch gives, and it
 * does reuse on plain-text edits. Hand-made edits aim at what a plain-text change could break.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import type { PageRevision } from "../../shared/core/records.ts";
import { readDumpPages } from "../../shared/dump/page-reader.ts";
import { decodeCharBytes, lazyRevision, rawText } from "../../shared/dump/revision-text.ts";
import { createWikitextExtractor } from "../../shared/sources/mediawiki/revision-reuse.ts";
import { extractImageRefs } from "../../shared/wikitext/extract-images.ts";
import { plainDump } from "../support/plain-dump.ts";

const REPO = new URL("../../", import.meta.url).pathname;

function fromScratch(raw: Buffer): unknown {
  const counters = new Counters();
  try {
    return { refs: extractImageRefs(decodeCharBytes(raw), { counters }), skipped: null, counters: counters.toJSON() };
  } catch (err) {
    return { refs: null, skipped: (err as { reason?: string }).reason ?? "extraction_error", counters: counters.toJSON() };
  }
}

const view = (o: { refs: unknown; skipped: string | null; counted: Counters }) => ({ refs: o.refs, skipped: o.skipped, counters: o.counted.toJSON() });

/** XML-escaped wikitext as a lazily decoded revision of page 1. */
const rev = (wikitext: string, id: number): PageRevision =>
  lazyRevision("Page", 0, 1, id, null, false, Buffer.from(wikitext.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;"), "utf8"));

/** Extracts each text in turn as revisions of one page; checks each against a scratch extraction. */
function chain(texts: string[]): number {
  const x = createWikitextExtractor({});
  texts.forEach((t, i) => {
    const r = rev(t, i + 1);
    const expected = fromScratch(rawText(r)!);
    expect(view(x.extract(r)), `revision ${i + 1}: ${t}`).toEqual(expected);
  });
  return x.stats.reused;
}

describe("reuse across revisions", () => {
  const base = 'Intro text. [[File:A.jpg|thumb|A caption here]] More prose about it. {{cite web|url=http://x|title=Old title}} End <ref name="r">note</ref>.';

  it("reuses the outcome on an edit of plain prose, a plain link's label or a citation's value", () => {
    const edited = base.replace("More prose", "More and better prose");
    expect(chain([base, edited, edited.replace("Intro text.", "Intro.")])).toBe(2);
    expect(chain([`[[Anarchy|label one]] ${base}`, `[[Anarchy|label two, longer]] ${base}`])).toBe(1);
    expect(chain([base, base.replace("Old title", "New title")])).toBe(1);
  });

  it("scans again where the edit reaches a reference or could make one", () => {
    const cases: string[][] = [
      [base, base.replace("A caption here", "Another caption here")], // caption
      [base, base.replace("A.jpg", "B.jpg")], // file
      ["Look [x[File:A.jpg|cap]] here", "Look [[File:A.jpg|cap]] here"], // joining brackets
      ["[[Anarchy|x]] y", "[[File:Anarchy.jpg|x]] y"], // a link target
      ["{{Infobox|ima ge=A.jpg|caption=Hi there}}", "{{Infobox|image=A.jpg|caption=Hi there}}"], // a parameter name
      ["{{Infobox|title A.jpg}}", "{{Infobox|title=A.jpg}}", "{{Infobox|image=A.jpg}}"], // "=" inside a template
      ["a &lt; b [[File:A.jpg|c]]", "a &gt; b [[File:A.jpg|c]]"], // entities (escaped again: the text shows "&lt;")
      ["x <!-- [[File:A.jpg|c]] --> y", "x <!-- [[File:A.jpg|c]] -- > y"], // a comment's end
      ["<gallery>\nA.jpg|one\n</gallery> tail", "<gallery>\nA.jpg|one two\n</gallery> tail"], // gallery caption
      ["<nowiki>[[File:A.jpg|c]]</nowiki> text", "<nowikii>[[File:A.jpg|c]]</nowiki> text"], // a tag name
      ["[[File:A.jpg|unclosed caption text", "[[File:A.jpg|unclosed caption text and more"], // unclosed frame
      ["{{Gallery|A.jpg|one}}", "{{Gallery|A.jpg|one two}}"], // gallery template values
    ];
    for (const texts of cases) chain(texts);
  });
});

describe("every revision of the histories, against extraction from scratch", () => {
  const shared = join(REPO, "../shared/data/wikipedia-history");
  const fixtures = join(REPO, "test/fixtures/data/wikipedia-history");
  const inShared = existsSync(shared) ? readdirSync(shared).filter((f) => f.endsWith(".bz2")) : [];
  const files = [
    join(REPO, "shared/sample/enwiki-Anarchism-history-sample.xml.bz2"),
    ...inShared.map((f) => join(shared, f)),
    // the suite's copies, where ../shared/data does not have them
    ...readdirSync(fixtures).filter((f) => f.endsWith(".bz2") && !inShared.includes(f)).map((f) => join(fixtures, f)),
  ];
  // Every revision goes through the reusing extractor (its state is the chain of revisions); every 4th
  // is checked against a scan from scratch, at a quarter of the cost. Whole runs over every revision
  // are compared by scripts/check-identical.sh.
  it.each(files)("%s", async (file) => {
    const x = createWikitextExtractor({});
    let n = 0;
    let checked = 0;
    for await (const r of readDumpPages(await plainDump(file))) {
      const got = view(x.extract(r));
      if (n++ % 4 === 0) {
        expect(got, `revision ${r.revisionId}`).toEqual(fromScratch(Buffer.from(rawText(r)!)));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(25);
    expect(x.stats.reused).toBeGreaterThan(0);
  });
});
