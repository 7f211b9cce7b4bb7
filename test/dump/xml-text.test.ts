import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { decodeXmlText, detectXmlEncoding, encodedLength } from "../../shared/dump/xml-text.ts";
import { BGWIKI_UTF16, bunzip } from "./real-data.ts";

async function decodeAll(chunks: Buffer[]) {
  const src = decodeXmlText(Readable.from(chunks));
  let text = "";
  let bytes = 0;
  for await (const c of src.chunks) {
    text += c.text;
    bytes += c.bytes;
  }
  return { text, bytes, encoding: src.encoding(), bom: src.bomBytes() };
}

describe("decodeXmlText", () => {
  it("detects UTF-16LE by BOM in the real bgwiki sample, even with the BOM split across chunks", async () => {
    const raw = bunzip(BGWIKI_UTF16);
    expect(detectXmlEncoding(raw)).toBe("utf-16le");
    const r = await decodeAll([raw.subarray(0, 1), raw.subarray(1, 3), raw.subarray(3)]);
    expect(r.encoding).toBe("utf-16le");
    expect(r.bom).toBe(2);
    expect(r.bytes).toBe(raw.length);
    expect(r.text.startsWith("<mediawiki ")).toBe(true);
    expect(r.text).toContain("<title>Григориански календар</title>");
    expect(encodedLength(r.text, "utf-16le") + r.bom).toBe(raw.length);
  });

  it("decodes UTF-16BE and BOM-less UTF-16 and strips a UTF-8 BOM", async () => {
    const xml = "<mediawiki><page><title>Ж</title></page></mediawiki>";
    const le = Buffer.from(xml, "utf16le");
    const be = Buffer.from(le).swap16();
    expect((await decodeAll([Buffer.concat([Buffer.from([0xfe, 0xff]), be])])).text).toBe(xml);
    expect((await decodeAll([le])).text).toBe(xml);
    expect((await decodeAll([be])).encoding).toBe("utf-16be");
    const bom8 = await decodeAll([Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(xml)])]);
    expect(bom8).toMatchObject({ text: xml, encoding: "utf-8", bom: 3 });
  });

  it("handles inputs shorter than the sniffing window", async () => {
    expect((await decodeAll([Buffer.from("<a")])).text).toBe("<a");
    expect((await decodeAll([])).text).toBe("");
  });
});
