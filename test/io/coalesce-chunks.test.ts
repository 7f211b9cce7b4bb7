import { describe, expect, it } from "vitest";
import { coalesceChunks } from "../../shared/io/coalesce-chunks.ts";
import { readPages } from "../../shared/dump/page-reader.ts";
import { Counters } from "../../shared/core/counters.ts";

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe("coalesceChunks", () => {
  it("joins runs of small chunks to at least the minimum, passes large ones and text through, keeps every byte in order", async () => {
    const big = Buffer.alloc(10, "B");
    const input = [Buffer.from("ab"), Buffer.from("cd"), Buffer.from("e"), big, Buffer.from("f"), "text", Buffer.from(""), Buffer.from("gh"), Buffer.from("ij")];
    const out = await collect(coalesceChunks(input, 4));
    expect(out.map((c) => (typeof c === "string" ? `s:${c}` : Buffer.from(c).toString()))).toEqual(["abcd", "e", "BBBBBBBBBB", "f", "s:text", "ghij"]);
    // the original chunks are passed through, not copied, when no joining is needed
    expect(out[2]).toBe(big);
  });

  it("0 passes every chunk as it comes", async () => {
    const input = [Buffer.from("a"), Buffer.from("b")];
    expect(await collect(coalesceChunks(input, 0))).toEqual(input);
  });

  it("a page with a 1 MiB attribute fed in 42-byte pieces reads like one chunk (readPages joins them)", async () => {
    const head = '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10">\n<siteinfo><namespaces><namespace key="0" case="first-letter" /></namespaces></siteinfo>\n';
    const page = (t: string, extra = "") => `<page>\n<title>${t}</title>\n<ns>0</ns>\n<id>1</id>\n<revision${extra}>\n<id>10</id>\n<text>[[File:${t}.jpg|thumb|Caption ${t}.]]</text>\n</revision>\n</page>\n`;
    const xml = Buffer.from(head + page("A") + page("B", ` a="${"v".repeat((1 << 20) - 100)}"`) + page("C") + "</mediawiki>\n");
    const read = async (chunks: Buffer[]) => {
      const counters = new Counters();
      const titles = (await collect(readPages(chunks, { counters }))).map((r) => r.title);
      return { titles, counters: counters.toJSON() };
    };
    const pieces: Buffer[] = [];
    for (let i = 0; i < xml.length; i += 42) pieces.push(xml.subarray(i, i + 42));
    const whole = await read([xml]);
    expect(whole.titles).toEqual(["A", "B", "C"]);
    expect(await read(pieces)).toEqual(whole);
  });
});
