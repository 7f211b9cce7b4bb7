/**
 * extractImageRefsTraced resumes the previous scan before an edit and joins it after (ScanTrace): on
 * chains of edited texts it must give exactly what a scan from scratch gives (references, counts with
 * their samples, busy spans), and it must really skip work. Edits are random, seeded, and made of the
 * markup the scanner acts on (brackets, pipes, comments, galleries, opaque tags, "=", entities'
 * decoded forms), at random places of real article texts, so they land beside checkpoints, inside
 * frames, across joins and in unclosed constructs that reach to the end. Two edits far apart leave
 * the text between them the same: the scan copies the previous scan's work over it (skip) only
 * where it is at the top level of the same bytes, which the crafted pairs below break in every way
 * the scanner has (a link, template, comment, gallery or opaque tag opened by one edit and closed,
 * or not, by the other).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { readDumpPages } from "../../shared/dump/page-reader.ts";
import { decodeCharBytesToBuffer, rawText } from "../../shared/dump/revision-text.ts";
import { extractImageRefsFromBytes, extractImageRefsTraced, type ExtractImagesOptions, type ScanTrace } from "../../shared/wikitext/extract-images.ts";
import { commonBlocks, commonPrefix, commonSuffix } from "../../shared/wikitext/byte-diff.ts";
import { rng } from "../seeded-random.ts";

const REPO = new URL("../../", import.meta.url).pathname;

const PIECES = [
  "[[", "]]", "{{", "}}", "|", "[", "]", "=", "\n", " ", "<!--", "-->", "<gallery>\nFile:G.jpg|gallery caption\n", "</gallery>",
  "<nowiki>", "</nowiki>", "[[File:New.jpg|thumb|a new caption]]", "{{Infobox|image=I.png|caption=infobox caption}}",
  "<ref>", "</ref>", "{{cite web|title=x}}", "é", "日本", "[[:File:Colon.jpg|label]]", "{{multiple image|image1=M.jpg|caption1=m}}",
];

function scratch(utf8: Buffer, opts: ExtractImagesOptions) {
  const counters = new Counters();
  const busy: number[] = [];
  try {
    return { refs: extractImageRefsFromBytes(utf8, { ...opts, counters }, busy), counters: counters.toJSON(), samples: JSON.stringify(counters.samples), busy };
  } catch (err) {
    return { error: String(err), counters: counters.toJSON(), samples: JSON.stringify(counters.samples), busy };
  }
}

function traced(utf8: Buffer, opts: ExtractImagesOptions, previous: ScanTrace[]) {
  const counters = new Counters();
  let trace: ScanTrace | null = null;
  try {
    const r = extractImageRefsTraced(utf8, { ...opts, counters }, previous);
    trace = r?.trace ?? null;
    return { view: { refs: r?.refs ?? null, counters: counters.toJSON(), samples: JSON.stringify(counters.samples), busy: trace?.busy ?? [] }, trace };
  } catch (err) {
    return { view: { error: String(err), counters: counters.toJSON(), samples: JSON.stringify(counters.samples), busy: [] }, trace };
  }
}

/** A random edit: 1–3 places, each a deletion, an insertion of markup pieces, or both; or bytes replaced in place (nothing moves). */
function edit(text: string, next: () => number): string {
  let t = text;
  const places = 1 + Math.floor(next() * 3);
  for (let k = 0; k < places; k++) {
    const at = Math.floor(next() * (t.length + 1));
    if (next() < 0.3) {
      const n = 1 + Math.floor(next() * 4);
      let same = "";
      for (let j = 0; j < n; j++) same += "[]{}|=<>x "[Math.floor(next() * 10)]!;
      t = t.slice(0, at) + same + t.slice(at + n);
      continue;
    }
    const del = next() < 0.5 ? Math.floor(next() * 40) : 0;
    let ins = "";
    const n = next() < 0.8 ? 1 + Math.floor(next() * 3) : 0;
    for (let j = 0; j < n; j++) ins += PIECES[Math.floor(next() * PIECES.length)]!;
    t = t.slice(0, at) + ins + t.slice(at + del);
  }
  return t;
}

/** The first `count` revision texts of the history sample (up to 22: the sample is decoded once per file, not once per test). */
async function baseTexts(count: number): Promise<string[]> {
  if (count > BASE_TEXTS) throw new Error(`baseTexts reads at most ${BASE_TEXTS}`);
  return (await (firstTexts ??= readTexts(BASE_TEXTS))).slice(0, count);
}
const BASE_TEXTS = 22;
let firstTexts: Promise<string[]> | undefined;

async function readTexts(count: number): Promise<string[]> {
  const texts: string[] = [];
  for await (const r of readDumpPages(join(REPO, "shared/sample/enwiki-Anarchism-history-sample.xml.bz2"))) {
    texts.push(decodeCharBytesToBuffer(Buffer.from(rawText(r)!)).toString("utf8"));
    if (texts.length >= count) break;
  }
  return texts;
}

describe("traced scans of edited texts = scans from scratch", () => {
  it.each([1, 2, 3])("seed %i: chains of random markup edits, with reverts", async (seed) => {
    const next = rng(seed);
    const [base] = await baseTexts(1 + seed * 7);
    const opts: ExtractImagesOptions = seed === 3 ? { colonFileLinks: "reference", unknownTemplates: "delete" } : {};
    let previous: ScanTrace[] = [];
    const history: string[] = [base!];
    let scanned = 0;
    let total = 0;
    for (let step = 0; step < 60; step++) {
      // mostly edits of the last text; sometimes a revert to an earlier one (the base is then not the newest trace)
      const text = next() < 0.15 && history.length > 2 ? history[history.length - 3]! : edit(history[history.length - 1]!, next);
      history.push(text);
      const utf8 = Buffer.from(text, "utf8");
      const got = traced(utf8, opts, previous);
      expect(got.view, `seed ${seed} step ${step}`).toEqual(scratch(utf8, opts));
      if (got.trace !== null) {
        scanned += got.trace.scanned;
        total += utf8.length;
        previous = [got.trace, ...previous].slice(0, 4);
      } else previous = [];
    }
    // the point of it: most bytes are not walked again (unless an edit left something open to the end)
    expect(scanned).toBeLessThan(total);
  });

  it("resumes and joins around a small edit: only the bytes near it are walked", () => {
    const para = (i: number) => `Paragraph ${i} with a [[link|label]] and {{cite web|title=t${i}}}<ref>note ${i}</ref>. [[File:P${i}.jpg|thumb|caption ${i}]]\n`;
    const text = Array.from({ length: 200 }, (_, i) => para(i)).join("");
    const edited = text.replace("caption 100", "a changed caption 100");
    const first = traced(Buffer.from(text), {}, []);
    const second = traced(Buffer.from(edited), {}, [first.trace!]);
    expect(second.view).toEqual(scratch(Buffer.from(edited), {}));
    expect(second.trace!.joined).toBe(true);
    expect(second.trace!.scanned).toBeLessThan(4096);
  });

  it("an unclosed comment or gallery before the edit reaches to the end: no resume past it, still exact", () => {
    const body = Array.from({ length: 100 }, (_, i) => `Text ${i} [[File:Q${i}.jpg|thumb|q ${i}]]\n`).join("");
    for (const open of ["<!-- never closed ", "<gallery>\nFile:Z.jpg|z\n"]) {
      const text = `${body.slice(0, 2000)}${open}${body.slice(2000)}`;
      const edited = `${text}<!-- closed at last -->${open.startsWith("<!--") ? "-->" : "</gallery>"} tail [[File:T.jpg|tail]]`;
      const first = traced(Buffer.from(text), {}, []);
      const second = traced(Buffer.from(edited), {}, [first.trace!]);
      expect(second.view).toEqual(scratch(Buffer.from(edited), {}));
    }
  });
});

/** An article of `n` paragraphs, each with a link, a citation, a ref and an image (about 120 bytes each). */
function article(n: number): string {
  return Array.from({ length: n }, (_, i) => `Paragraph ${i} with a [[link|label]] and {{cite web|title=t${i}}}<ref>note ${i}</ref>. [[File:P${i}.jpg|thumb|caption ${i}]] é\n`).join("");
}

/** Inserts `head` after the first `at` bytes' worth of paragraphs and `tail` before the last ones: two edits far apart. */
function twoEdits(text: string, head: string, tail: string, at = 20, fromEnd = 20): string {
  const lines = text.split("\n");
  const n = lines.length;
  return [...lines.slice(0, at), head + lines[at], ...lines.slice(at + 1, n - fromEnd), tail + lines[n - fromEnd], ...lines.slice(n - fromEnd + 1)].join("\n");
}

describe("two edits far apart: the work between them is copied where the scan is at the same top level", () => {
  const text = article(300);
  const first = traced(Buffer.from(text), {}, []);

  it("finds the block between the edits (commonBlocks: equal bytes, in order, long enough)", () => {
    const edited = Buffer.from(twoEdits(text, "new words ", "[[File:Late.jpg|late]]"));
    const a = Buffer.from(text);
    const blocks = commonBlocks(a, edited, 2000, 2000, 2048);
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    for (let i = 0; i < blocks.length; i += 3) {
      const [bs, be, d] = [blocks[i]!, blocks[i + 1]!, blocks[i + 2]!];
      expect(be - bs).toBeGreaterThanOrEqual(2048);
      expect(edited.subarray(bs, be).equals(a.subarray(bs - d, be - d))).toBe(true);
      if (i > 0) expect(bs).toBeGreaterThanOrEqual(blocks[i - 2]!);
    }
    // the block reaches from just after the first edit to just before the second
    expect(blocks[1]! - blocks[0]!).toBeGreaterThan(edited.length - 45 * 130);
  });

  it("two plain edits: exact, and only the bytes near them are walked", () => {
    for (const [head, tail] of [["new words ", "more words "], ["[[File:Early.jpg|thumb|early]] ", "{{Infobox|image=Late.png|caption=late}}"], ["", "a"], ["inserted text that shifts the rest by a lot ".repeat(20), ""]]) {
      const edited = Buffer.from(twoEdits(text, head!, tail!));
      const second = traced(edited, {}, [first.trace!]);
      expect(second.view).toEqual(scratch(edited, {}));
      expect(second.trace!.scanned, `${head} / ${tail}`).toBeLessThan(12_000);
    }
  });

  it.each([
    ["a link opened by the first edit, never closed", "[[Target|", ""],
    ["a link opened by the first edit, closed by the second", "[[Target|", "]]"],
    ["a file link opened by the first edit, closed by the second", "[[File:Wide.jpg|thumb|", "]]"],
    ["a template opened and closed", "{{Infobox|caption=c|image=", "}}"],
    ["a template opened, never closed", "{{Infobox|image=", ""],
    ["a comment opened and closed", "<!--", "-->"],
    ["a comment opened, never closed", "<!--", ""],
    ["a gallery around the middle", "<gallery>\nFile:G.jpg|g\n", "</gallery>"],
    ["a gallery opened, never closed", "<gallery>\n", ""],
    ["nowiki around the middle", "<nowiki>", "</nowiki>"],
    ["a stray closer first, then an opener", "]]}}", "[[File:X.jpg|"],
    ["brackets joined into runs", "[", "]"],
    ["CRs and decoded entities", "\r\n<b>&amp;</b>\r", "\r<"],
    ["an unclosed tag's closer added at the end", "<ref>", "</ref>"],
  ])("%s: exact", (_name, head, tail) => {
    const edited = Buffer.from(twoEdits(text, head, tail));
    const second = traced(edited, {}, [first.trace!]);
    expect(second.view).toEqual(scratch(edited, {}));
    // and a later edit of that text, from its own trace
    const third = Buffer.from(twoEdits(edited.toString("utf8"), "x ", "y ", 40, 40));
    expect(traced(third, {}, [second.trace!]).view).toEqual(scratch(third, {}));
  });

  it("an edit that closes a frame opened in the previous text: the copied work must not be the old (open) one", () => {
    const open = twoEdits(text, "[[Target|", "");
    const a = traced(Buffer.from(open), {}, []);
    for (const tail of ["]]", "]]]]", "}}", "-->"]) {
      const closed = Buffer.from(twoEdits(open, "", tail, 21, 20));
      expect(traced(closed, {}, [a.trace!]).view).toEqual(scratch(closed, {}));
    }
  });

  it.each([4, 5, 6])("seed %i: random markup at two to five places far apart, chained", (seed) => {
    const next = rng(seed);
    let previous: ScanTrace[] = [first.trace!];
    let current = text;
    let scanned = 0;
    let total = 0;
    for (let step = 0; step < 25; step++) {
      const lines = current.split("\n");
      const places = 2 + Math.floor(next() * 4);
      for (let k = 0; k < places; k++) {
        const at = Math.floor(next() * lines.length);
        let ins = "";
        for (let j = 0, n = 1 + Math.floor(next() * 2); j < n; j++) ins += PIECES[Math.floor(next() * PIECES.length)]!;
        lines[at] = next() < 0.5 ? ins + lines[at] : lines[at]!.slice(0, 10) + ins + lines[at]!.slice(10 + Math.floor(next() * 20));
      }
      current = lines.join("\n");
      const utf8 = Buffer.from(current, "utf8");
      const got = traced(utf8, {}, previous);
      expect(got.view, `seed ${seed} step ${step}`).toEqual(scratch(utf8, {}));
      scanned += got.trace?.scanned ?? utf8.length;
      total += utf8.length;
      previous = got.trace !== null ? [got.trace, ...previous].slice(0, 4) : [];
    }
    expect(scanned).toBeLessThan(total);
  });
});

describe("edits inside a link or template the previous text left open to its end", () => {
  // the frame opens at paragraph 20 and nothing closes it; the stray closers later are no-ops in it
  // (a "}}" inside an open link, a "]]" inside an open template) but not under a frame an edit opens
  const bases: [string, string][] = [
    ["an open file link", twoEdits(twoEdits(article(300), "[[Image:Open.jpg|thumb|an open caption ", "", 20, 30), "", "stray }} closer ", 21, 10)],
    ["an open template", twoEdits(twoEdits(article(300), "{{Infobox|image=Open.png|caption=", "", 20, 30), "", "stray ]] closer ", 21, 10)],
    ["a template in an open link", twoEdits(article(300), "[[Image:Open.jpg|thumb|{{nowrap|", "", 20, 30)],
  ];
  const edits: [string, string][] = [
    ["plain words", "a few plain words "],
    ["a link opened", "[[Target|"],
    ["a link closed (the open frame's end)", "]]"],
    ["three closing brackets", "]]]"],
    ["a template opened", "{{Infobox|image="],
    ["a template closed", "}}"],
    ["a file link", "[[File:New.jpg|thumb|a new caption]]"],
    ["an infobox image", "{{Infobox|image=I.png|caption=infobox caption}}"],
    ["a comment opened", "<!--"],
    ["a comment closed", "-->"],
    ["a gallery", "<gallery>\nFile:G.jpg|gallery caption\n</gallery>"],
    ["a gallery opened", "<gallery>\n"],
    ["nowiki opened", "<nowiki>"],
    ["a ref", "<ref>note</ref>"],
    ["a ref opened", "<ref>"],
    ["CRs and decoded entities", "\r\n<b>&amp;</b>\r"],
    ["a pipe and an equals sign", "|x="],
  ];
  for (const [baseName, text] of bases) {
    const first = traced(Buffer.from(text), {}, []);
    it.each(edits)(`${baseName}, edited far inside it: %s: exact`, (_name, ins) => {
      // one edit in the open frame, far from where it opened and from the end
      const edited = Buffer.from(twoEdits(text, "", ins, 20, 150));
      const second = traced(edited, {}, [first.trace!]);
      expect(second.view).toEqual(scratch(edited, {}));
      // and a later edit of that text, from its trace (resumed or joined inside the frame again)
      const third = Buffer.from(twoEdits(edited.toString("utf8"), "", "more words ", 20, 100));
      expect(traced(third, {}, [second.trace!]).view).toEqual(scratch(third, {}));
    });
  }

  it("a plain edit far inside the open frame resumes and joins inside it: only the bytes near it are walked", () => {
    for (const [baseName, text] of bases) {
      const first = traced(Buffer.from(text), {}, []);
      expect(first.trace!.dpSafe.some((x) => x), baseName).toBe(true);
      let previous = [first.trace!];
      let current = text;
      for (const at of [150, 100, 200]) {
        current = twoEdits(current, "", "a few plain words ", 20, at);
        const got = traced(Buffer.from(current), {}, previous);
        expect(got.view).toEqual(scratch(Buffer.from(current), {}));
        expect(got.trace!.joined, baseName).toBe(true);
        expect(got.trace!.scanned, `${baseName} at ${at}`).toBeLessThan(3 * 1024);
        previous = [got.trace!];
      }
    }
  });
});

describe("comparing with earlier scans from what is known (ScanTrace.relP / relS)", () => {
  it("commonPrefix and commonSuffix from a known shared length give the lengths from scratch", () => {
    const next = rng(11);
    const a = Buffer.from(article(40));
    for (let step = 0; step < 200; step++) {
      const b = Buffer.from(edit(a.toString("utf8"), next));
      const p = commonPrefix(a, b);
      const limit = Math.min(a.length, b.length) - p;
      const s = commonSuffix(a, b, limit);
      const from = Math.floor(next() * (p + 1));
      expect(commonPrefix(a, b, from)).toBe(p);
      expect(commonSuffix(a, b, limit, Math.floor(next() * (s + 1)))).toBe(s);
    }
  });

  it("chains of edits and reverts told the newest scan's shared lengths: exact, and every recorded length is shared", async () => {
    const next = rng(12);
    const [start] = await baseTexts(3);
    const history: string[] = [start!];
    let previous: ScanTrace[] = [];
    for (let step = 0; step < 60; step++) {
      const text = next() < 0.25 && history.length > 3 ? history[history.length - 2 - Math.floor(next() * 2)]! : edit(history[history.length - 1]!, next);
      history.push(text);
      const utf8 = Buffer.from(text, "utf8");
      const newest = previous[0];
      const known = newest === undefined ? undefined : { trace: newest, prefix: commonPrefix(newest.utf8, utf8), suffix: 0 };
      if (known !== undefined) known.suffix = commonSuffix(newest!.utf8, utf8, Math.min(newest!.utf8.length, utf8.length) - known.prefix);
      const counters = new Counters();
      const r = extractImageRefsTraced(utf8, { counters }, previous, known)!;
      expect({ refs: r.refs, counters: counters.toJSON(), samples: JSON.stringify(counters.samples), busy: r.trace.busy }, `step ${step}`).toEqual(scratch(utf8, {}));
      for (const t of previous) {
        const j = r.trace.relTo.indexOf(t.self);
        expect(j, `step ${step}`).toBeGreaterThanOrEqual(0);
        const [p, s] = [r.trace.relP[j]!, r.trace.relS[j]!];
        expect(utf8.subarray(0, p).equals(t.utf8.subarray(0, p))).toBe(true);
        expect(s === 0 || utf8.subarray(utf8.length - s).equals(t.utf8.subarray(t.utf8.length - s))).toBe(true);
      }
      previous = [r.trace, ...previous].slice(0, 4);
    }
  });
});
