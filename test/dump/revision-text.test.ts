/** Lazily decoded revision text, its packing for worker threads, and the byte-level character data decoder. */
import { describe, expect, it } from "vitest";
import { PageRevision } from "../../shared/core/records.ts";
import { openDumpStream } from "../../shared/dump/open-dump.ts";
import { readPages } from "../../shared/dump/page-reader.ts";
import { checkCharBytes, checkCharBytesFrom, decodeCharBytes, decodeCharBytesFrom, decodeCharBytesToBuffer, knownTextDiff, lazyRevision, packRevisions, rawText, textSize, unpackRevisions } from "../../shared/dump/revision-text.ts";
import { rng } from "../seeded-random.ts";
import { commonPrefix, commonSuffix } from "../../shared/wikitext/byte-diff.ts";
import { collect, HISTORY_0000, WIKIPEDIA2VEC_09 } from "./real-data.ts";
import { readDumpPages } from "../../shared/dump/page-reader.ts";

const raw = (s: string) => Buffer.from(s, "utf8");

describe("decodeCharBytes", () => {
  it("decodes the predefined entities and character references, as UTF-8", () => {
    expect(decodeCharBytes(raw("&lt;ref name=&quot;a&quot;&gt;x&lt;/ref&gt; &amp;amp; &apos;"))).toBe('<ref name="a">x</ref> &amp; \'');
    expect(decodeCharBytes(raw("&#65;&#x42;&#X43;&#233;&#x20AC;&#x1F600;"))).toBe("AB&#X43;é€😀");
    expect(decodeCharBytes(raw("café — ünï &lt; 日本"))).toBe("café — ünï < 日本");
    expect(decodeCharBytes(raw(""))).toBe("");
    expect(decodeCharBytes(raw("no entities at all"))).toBe("no entities at all");
  });

  it("normalises CR LF and lone CR before decoding (a referenced CR stays)", () => {
    expect(decodeCharBytes(raw("a\r\nb\rc&#13;d\r"))).toBe("a\nb\nc\rd\n");
  });

  it("agrees with decoding to a string first, on real wikitext", async () => {
    // the raw XML of a real revision, decoded both ways
    const xml = (await collect(openDumpStream(WIKIPEDIA2VEC_09) as AsyncIterable<Buffer>)).reduce((a, b) => Buffer.concat([a, b]));
    const start = xml.indexOf(">", xml.indexOf("<text")) + 1;
    const body = xml.subarray(start, xml.indexOf("</text>", start));
    const viaString = body.toString("utf8").replace(/&(lt|gt|amp|quot|apos);/g, (_, n: string) => ({ lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" })[n]!);
    expect(decodeCharBytes(body)).toBe(viaString);
  });

  it("checkCharBytes reports what decodeCharBytes cannot decode, with its index", () => {
    expect(checkCharBytes(raw("fine &amp; &#1234; &#x10FFFF;"))).toBeNull();
    expect(checkCharBytes(raw("ab &nbsp; c"))).toEqual({ message: "undefined entity: nbsp.", index: 3 });
    expect(checkCharBytes(raw("AT&T"))?.message).toMatch(/malformed entity/);
    expect(checkCharBytes(raw("&;"))?.message).toBe("empty entity name.");
    expect(checkCharBytes(raw("&#0;"))?.message).toMatch(/malformed character entity/);
    expect(checkCharBytes(raw("&#x110000;"))?.message).toMatch(/malformed character entity/);
    expect(checkCharBytes(raw("&#xFFFE;"))?.message).toMatch(/malformed character entity/);
  });
});

describe("decodeCharBytesFrom (a text decoded from an earlier one's decoding)", () => {
  /** Decodes b from a's decoding; checks bytes, shift pairs and the common parts it claims against decoding from scratch. */
  const check = (a: Buffer, b: Buffer, p = commonPrefix(a, b), s = commonSuffix(a, b, Math.min(a.length, b.length) - p)) => {
    const aShifts: number[] = [];
    const aUtf8 = Buffer.from(decodeCharBytesToBuffer(a, aShifts));
    const want: number[] = [];
    const expected = Buffer.from(decodeCharBytesToBuffer(b, want));
    const shifts: number[] = [];
    const got = decodeCharBytesFrom(b, { raw: a, utf8: aUtf8, shifts: aShifts }, p, s, shifts, Buffer.alloc(b.length + 8, 0x7e));
    expect(got.utf8.toString("latin1"), `${a} → ${b}`).toBe(expected.toString("latin1"));
    expect(shifts, `${a} → ${b}`).toEqual(want);
    expect(got.prefix + got.suffix).toBeLessThanOrEqual(Math.min(aUtf8.length, expected.length));
    expect(expected.subarray(0, got.prefix).equals(aUtf8.subarray(0, got.prefix))).toBe(true);
    expect(expected.subarray(expected.length - got.suffix).equals(aUtf8.subarray(aUtf8.length - got.suffix))).toBe(true);
  };

  it("gives what decoding from scratch gives, with edits inside, beside and across entities", () => {
    const base = "x &lt;ref name=&quot;a&quot;&gt;caf&#233; &amp;amp; &#x1F600;&lt;/ref&gt; tail &lt; end &gt;";
    const texts = [
      base,
      base.replace("&quot;a&quot;", "&quot;ab&quot;"),
      base.replace("&lt;ref", "&gt;ref"),
      base.replace("&lt;ref", "&lt;;ref"),
      base.replace("&#233;", "&#2330;"),
      base.replace("&#233;", "&#23"),
      base.replace("tail", "&"),
      base.replace("tail", "&lt"),
      base.replace("end", "&amp;"),
      base.replace(" tail", ""),
      base.replace("&amp;amp;", "&amp;lt;"),
      base.replace("&amp;amp;", "&ampamp;"),
      "&" + base,
      base + "&lt;",
      base + ";",
      "no entity here",
      "no entity there",
      "",
      "&lt;",
      "&lt;&lt;",
    ];
    for (const a of texts) for (const b of texts) check(raw(a), raw(b));
  });

  it("gives the same from smaller common parts than the largest (the caller may know less)", () => {
    const a = raw("aa &lt;b&gt; cc &quot;d&quot; ee &amp; ff");
    const b = raw("aa &lt;b&gt; cX &quot;d&quot; ee &amp; ff");
    for (let p = 0; p <= commonPrefix(a, b); p++) for (let s = 0; s <= commonSuffix(a, b, a.length - p); s += 3) check(a, b, p, s);
  });

  it("gives what decoding from scratch gives on random edits of entity-dense text", () => {
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const pieces = ["&lt;", "&gt;", "&quot;", "&amp;", "&#233;", "&#x20AC;", "&", ";", "a", "bc", " ", "é", "&#", "lt", "amp"];
    const random = (n: number) => Array.from({ length: n }, () => pieces[Math.floor(next() * pieces.length)]).join("");
    let text = random(40);
    for (let i = 0; i < 400; i++) {
      const at = Math.floor(next() * (text.length + 1));
      const cut = Math.floor(next() * 6);
      const edited = text.slice(0, at) + random(Math.floor(next() * 3)) + text.slice(at + cut);
      check(raw(text), raw(edited));
      text = edited;
    }
  });
});

describe("lazy revisions", () => {
  const make = () => lazyRevision("Title", 0, 1, 2, "2020-01-01T00:00:00Z", false, raw("a &lt;b&gt; c"));

  it("look like plain PageRevisions to JSON, spreading, structured clone and zod", () => {
    const plain = { title: "Title", ns: 0, pageId: 1, revisionId: 2, timestamp: "2020-01-01T00:00:00Z", redirect: false, text: "a <b> c" };
    expect(JSON.parse(JSON.stringify(make()))).toEqual(plain);
    expect({ ...make() }).toEqual(plain);
    expect(structuredClone(make())).toEqual(plain);
    expect(PageRevision.parse(make())).toEqual(plain);
    expect(Object.keys(make())).toEqual(Object.keys(plain));
  });

  it("decode once, and take an assigned text", () => {
    const r = make();
    expect(textSize(r)).toBe(raw("a &lt;b&gt; c").length);
    expect(r.text).toBe("a <b> c");
    expect(r.text).toBe(r.text);
    expect(textSize(r)).toBe(7); // decoded: UTF-16 units
    r.text = "other";
    expect(r.text).toBe("other");
  });

  it("pack for a worker (bytes, not strings) and unpack to the same revisions", async () => {
    const revs = await collect(readPages(openDumpStream(HISTORY_0000)));
    const decodedFirst = revs[0]!.text; // one already decoded: it travels as a string
    const packed = packRevisions(revs);
    expect(packed.revisions[0]!.text).toBe(decodedFirst);
    expect(packed.revisions.slice(1).every((r) => r.text === null)).toBe(true);
    expect(packed.bytes.byteLength).toBe(packed.bytes.buffer.byteLength); // its own buffer: a clone copies no more
    const received = unpackRevisions(structuredClone(packed));
    expect(received.map((r) => ({ ...r }))).toEqual(revs.map((r) => ({ ...r })));
  });
});

describe("checkCharBytesFrom (entities checked only where a text differs from one that passed)", () => {
  const PIECES = ["&", "&amp;", "&lt;", "&gt;", ";", "&#65;", "&#x1F600;", "&nbsp;", "&#0;", "&;", "amp;", "lt", "#", "x", " ", "é"];
  it("gives what checkCharBytes gives, on random edits of a text full of entities", () => {
    const next = rng(21);
    const base = raw("&lt;ref name=&quot;a&quot;&gt;x&lt;/ref&gt; AT&amp;T &#233; caf\u00e9 ".repeat(6));
    expect(checkCharBytes(base)).toBeNull();
    let tested = 0;
    let problems = 0;
    for (let k = 0; k < 3000; k++) {
      let t = base.toString("latin1");
      for (let e = 0, edits = 1 + Math.floor(next() * 2); e < edits; e++) {
        const at = Math.floor(next() * (t.length + 1));
        const del = next() < 0.5 ? Math.floor(next() * 6) : 0;
        const ins = next() < 0.8 ? PIECES[Math.floor(next() * PIECES.length)]! : "";
        t = t.slice(0, at) + ins + t.slice(at + del);
      }
      const b = Buffer.from(t, "latin1");
      const p = commonPrefix(base, b);
      const s = commonSuffix(base, b, Math.min(base.length, b.length) - p);
      const want = checkCharBytes(b);
      expect(checkCharBytesFrom(b, p, s), t).toEqual(want);
      // a lower bound of the common parts is enough
      expect(checkCharBytesFrom(b, Math.floor(p / 2), Math.floor(s / 2)), t).toEqual(want);
      tested++;
      if (want !== null) problems++;
    }
    expect(tested).toBe(3000);
    expect(problems).toBeGreaterThan(300);
    expect(problems).toBeLessThan(2700);
  });

  it("the reader tells the common parts of consecutive texts (knownTextDiff), exactly", async () => {
    const texts: Buffer[] = [];
    for await (const r of readDumpPages(HISTORY_0000)) texts.push(rawText(r)!);
    let known = 0;
    for (let i = 1; i < texts.length; i++) {
      const [a, b] = [texts[i - 1]!, texts[i]!];
      const d = knownTextDiff(a, b);
      if (d === null) continue;
      known++;
      const p = commonPrefix(a, b);
      expect({ p: d.p, s: d.s }).toEqual({ p, s: commonSuffix(a, b, Math.min(a.length, b.length) - p) });
      // not for texts not read in a row
      if (i >= 2) expect(knownTextDiff(texts[i - 2]!, b)).toBeNull();
    }
    expect(known).toBeGreaterThan(texts.length * 0.9);
  });
});
