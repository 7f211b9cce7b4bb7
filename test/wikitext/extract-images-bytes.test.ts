/**
 * The byte path of the page scanner (extractImageRefsFromBytes: structure found on UTF-8 bytes, only
 * reference and caption spans decoded) against the string path (extractImageRefs on the decoded
 * text): the same references and the same counts, byte for byte, on every wikitext the suite and
 * ../shared/data hold, and on inputs made to hit where bytes and UTF-16 units differ.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { DumpError } from "../../shared/dump/errors.ts";
import { readDumpPages } from "../../shared/dump/page-reader.ts";
import { decodeCharBytesToBuffer, rawText } from "../../shared/dump/revision-text.ts";
import { extractImageRefs, extractImageRefsFromBytes, type ExtractImagesOptions } from "../../shared/wikitext/extract-images.ts";
import { expectEqual } from "../support/expect-equal.ts";
import { plainDump } from "../support/plain-dump.ts";

const REPO = new URL("../../", import.meta.url).pathname;
const SHARED = join(REPO, "../shared/data");

/** Both paths' outcome: references (or the error's message) and counters. */
function outcome(run: (opts: ExtractImagesOptions) => unknown, opts: ExtractImagesOptions): unknown {
  const counters = new Counters();
  try {
    return { refs: run({ ...opts, counters }), counters: counters.toJSON() };
  } catch (err) {
    return { error: String(err), counters: counters.toJSON() };
  }
}

const OPTION_SETS: ExtractImagesOptions[] = [{}, { fileAliases: ["Datei", "Файл"], colonFileLinks: "reference", unknownTemplates: "delete" }];

function expectSame(text: string, bytes: Buffer, label: string, optionSets = OPTION_SETS): void {
  for (const opts of optionSets) {
    const viaString = outcome((o) => extractImageRefs(text, o), opts);
    const viaBytes = outcome((o) => extractImageRefsFromBytes(bytes, o), opts);
    expectEqual(viaBytes, viaString, label);
  }
}

const sameOn = (text: string, label = text.slice(0, 60)) => expectSame(text, Buffer.from(text, "utf8"), label);

/** Every string literal of a test file (the hand-written wikitext cases of the suite). */
function literals(file: string): string[] {
  const src = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) out.push(n.text);
    ts.forEachChild(n, visit);
  };
  visit(src);
  return out.filter((s) => /\[\[|\{\{|<|\|/.test(s));
}

describe("byte path = string path", () => {
  it("on where bytes and UTF-16 units differ: non-ASCII spaces in tags, 4-byte characters, long values", () => {
    const cases = [
      "<gallery\u00a0mode=packed>\nFile:A.jpg|Ein schönes Bild\n</gallery\u00a0>",
      "<gallery\u2003>\nFile:A.jpg|x y z\n</gallery\u3000\ufeff>[[File:B.jpg|thumb|after]]",
      "<galleryé>\nFile:A.jpg|no tag\n</gallery>[[File:C.jpg|ok]]",
      "<nowiki\u00a0>[[File:Hidden.jpg|hidden]]</nowiki\u00a0>[[File:Shown.jpg|shown]]",
      "<NoWiki>[[File:Hidden.jpg]]</NOWIKI >[[File:D.jpg|d]]",
      `{{Infobox|${"😀".repeat(39)}image=A.jpg|caption=emoji key}}`,
      `{{Infobox|${"😀".repeat(40)}image=A.jpg|caption=emoji key}}`,
      `{{Infobox|${"é".repeat(79)}=x|image=B.jpg|caption=${"日本".repeat(5)}}}`,
      `{{Infobox|image=${"日".repeat(400)}.jpg|caption=long value}}`,
      `{{Infobox|image=${"日".repeat(300)}|caption=long value}}`,
      `[[${"Ä".repeat(200)}File:X.jpg|not a file link]][[  File:${"ö".repeat(120)}.jpg|caption ü]]`,
      `[[Файл:Kiev.jpg|thumb|Київ]] [[Image:A b.png|alt=äöü|Ünïcödé caption 😀]]`,
      "[[File:A.jpg|thumb|a <ref>x</ref> b <!-- c -->]] <imagemap>\nImage:Map.png|Karte\u00a0\n</imagemap>",
      "{{multiple image|image1=A.jpg|caption1=Erste|image2=B.jpg|caption2=Zweite 😀}}",
    ];
    for (const c of cases) sameOn(c);
  });

  it("where the plain-text skip reads bytes: bytes ≥ 0x80 whose low 7 bits are markup, every ASCII byte beside markup, markup at the end", () => {
    // "¼" is C2 BC (BC & 0x7F = "<"), "۰" DB B0 (DB & 0x7F = "["), "݀" DD 80 ("]"), "ý" C3 BD ("="), "ü" C3 BC;
    // 0x7E "~" and 0x7F sit just past the last markup character "}" (0x7D)
    const wide = "¼۰݀ýü";
    const ascii = Array.from({ length: 0x60 }, (_, k) => String.fromCharCode(0x20 + k)).join("") + "\t\n";
    const cases = [
      `[[File:A${wide}.jpg|thumb|${wide} [[B${wide}]] {{lang|de|${wide}}} ${wide}]]${wide}[[File:C.jpg|${wide}]]`,
      `{{Infobox|image${wide}=X.jpg|image=Y${wide}.jpg|caption=${wide}~\x7f~}}~\x7f[[File:D.jpg|~\x7f${wide}]]`,
      `[[File:E.jpg|${ascii}]] ${ascii} {{Infobox|image=F.jpg|caption=${ascii.replace(/[|{}[\]<]/g, "")}}}`,
      `<gallery>\nFile:G${wide}.jpg|${wide}\n</gallery>${wide}<!--${wide}-->${wide}[[File:H.jpg|end]]`,
      `${wide}[[File:I.jpg|unclosed ${wide}`,
      `${wide}[[File:J.jpg|last]]`,
      `${wide}{{`,
      `x[`,
    ];
    for (const c of cases) sameOn(c);
  });

  it("on every string literal of the extraction and caption tests", () => {
    let n = 0;
    for (const file of ["test/wikitext/extract-images.test.ts", "test/wikitext/caption-words.test.ts", "test/wikitext/template-images.test.ts", "test/wikitext/clean-caption.test.ts"]) {
      for (const s of literals(join(REPO, file))) {
        sameOn(s, `${file}: ${s.slice(0, 60)}`);
        n++;
      }
    }
    expect(n).toBeGreaterThan(100);
  });

  it("on the reference articles and every cached wtf_wikipedia article", () => {
    const dirs = [join(REPO, "test/fixtures/wikitext"), join(REPO, "test/fixtures/data/wikitext/wtf_wikipedia"), join(SHARED, "wikitext/wtf_wikipedia")].filter(existsSync);
    let n = 0;
    for (const dir of dirs) {
      for (const f of readdirSync(dir).filter((x) => x.endsWith(".txt"))) {
        sameOn(readFileSync(join(dir, f), "utf8"), f);
        n++;
      }
    }
    expect(n).toBeGreaterThan(40);
  });

  const listed = [
    ...["shared/sample/enwiki-2016-pages-articles1-sample.xml.bz2", "shared/sample/enwiki-Anarchism-history-sample.xml.bz2"].map((p) => join(REPO, p)),
    ...["wikipedia", "wikipedia-history"].flatMap((d) => (existsSync(join(SHARED, d)) ? readdirSync(join(SHARED, d)).filter((f) => /\.xml(\.bz2)?$|\.bz2$/.test(f)).map((f) => join(SHARED, d, f)) : [])),
  ];
  // each content once: the embedded current sample is ../shared/data's enwiki excerpt byte for byte
  // (its ~4 CPU-s of decoding and comparing were paid twice)
  const contents = new Map<string, string>();
  for (const path of listed) {
    const hash = createHash("sha256").update(readFileSync(path)).digest("hex");
    if (!contents.has(hash)) contents.set(hash, path);
  }
  const dumps = [...contents.values()];
  it("covers the samples and every dump in ../shared/data", () => {
    expect(listed.length).toBeGreaterThanOrEqual(11);
    // one pair of copies (the two enwiki excerpts), every other file its own content
    expect(dumps.length).toBeGreaterThanOrEqual(10);
  });

  // A history's consecutive revisions are near copies: every 5th distinct one covers its texts at a
  // fifth of the cost (scripts/check-identical.sh compares whole runs on all of them).
  const strideOf = (path: string) => (/history/.test(path) ? 5 : 1);

  it.each(dumps)("on every distinct revision text of %s (every 5th of a history)", async (path) => {
    const stride = strideOf(path);
    let distinct = 0;
    let seen = 0;
    let last: Buffer | null = null;
    try {
      for await (const rev of readDumpPages(await plainDump(path), { namespaces: [0, 2, 4, 6, 10, 14] })) {
        const raw = rawText(rev);
        if (raw === undefined) throw new Error("the reader gives raw texts");
        if (last !== null && last.equals(raw)) continue;
        last = raw;
        if (seen++ % stride !== 0) continue;
        // with the page's title, as the run reads them (captions with {{PAGENAME}}, {{map caption}})
        expectSame(rev.text, decodeCharBytesToBuffer(raw), `${path} revision ${rev.revisionId}`, [{ ...OPTION_SETS[0], pageTitle: rev.title, pageNs: rev.ns }]);
        distinct++;
      }
    } catch (err) {
      // enwik8's excerpt is cut mid-page: its last page is damage, every page before it was compared
      if (!(err instanceof DumpError && path.includes("enwik8"))) throw err;
    }
    expect(distinct).toBeGreaterThan(0);
  });
});
