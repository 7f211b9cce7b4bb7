/**
 * extractImageRefsTraced resumes the previous scan before an edit and joins it after (ScanTrace): on
 * chains of edited texts it must give exactly what a scan from scratch gives (references, counts with
 * their samples, busy spans), and it must really skip work. Edits are random, seeded, and made of the
 * markup the scanner acts on (brackets, pipes, comments, galleries, opaque tags, "=", entities'
 * decoded forms), at random places of real article texts, so they land beside checkpoints, inside
 * frames, across joins and in unclosed constructs that reach to the end.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { readDumpPages } from "../../shared/dump/page-reader.ts";
import { decodeCharBytesToBuffer, rawText } from "../../shared/dump/revision-text.ts";
import { extractImageRefsFromBytes, extractImageRefsTraced, type ExtractImagesOptions, type ScanTrace } from "../../shared/wikitext/extract-images.ts";
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

async function baseTexts(count: number): Promise<string[]> {
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
