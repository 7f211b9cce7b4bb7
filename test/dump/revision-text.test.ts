/** Lazily decoded revision text, its packing for worker threads, and the byte-level character data decoder. */
import { describe, expect, it } from "vitest";
import { PageRevision } from "../../shared/core/records.ts";
import { openDumpStream } from "../../shared/dump/open-dump.ts";
import { readPages } from "../../shared/dump/page-reader.ts";
import { checkCharBytes, decodeCharBytes, lazyRevision, packRevisions, textSize, unpackRevisions } from "../../shared/dump/revision-text.ts";
import { collect, HISTORY_0000, WIKIPEDIA2VEC_09 } from "./real-data.ts";

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
