/** CSV records (RFC 4180) from a stream cut anywhere: the same records, offsets and counted damage as from the whole file. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { csvRecords, recordsOf, type CsvRecord } from "../../../shared/sources/caption-tsv/csv-records.ts";

const CC = join(import.meta.dirname, "../../fixtures/data/conceptual-captions/gcc-validation-lines00001-00500.tsv");
const lines = readFileSync(CC, "utf8").split("\n").slice(0, 40).map((l) => l.split("\t") as [string, string]);
const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;

async function collect(buf: Buffer, chunk: number, max?: number): Promise<CsvRecord[]> {
  const chunks = Readable.from((function* () {
    for (let i = 0; i < buf.length; i += chunk) yield buf.subarray(i, i + chunk);
  })());
  const out: CsvRecord[] = [];
  for await (const r of csvRecords(chunks, max)) out.push(r);
  return out;
}

describe("CSV records", () => {
  // real captions, some quoted with a doubled quote and a line break, CRLF and LF endings, no final line break
  const text = "url,caption\r\n" + lines.map(([caption, url], i) => `${url},${i % 3 === 0 ? quote(`${caption} "${i}"\nsecond line`) : caption.replace(/,/g, ";")}${i % 2 ? "\r\n" : "\n"}`).join("").replace(/\r?\n$/, "");
  const buf = Buffer.from(text);

  it("reads quoted commas, doubled quotes and line breaks in fields, with each record's byte offset, however the bytes arrive", async () => {
    const whole = recordsOf(buf, true);
    expect(whole).toHaveLength(41);
    expect(whole[1]).toEqual({ offset: 13, fields: [lines[0]![1], `${lines[0]![0]} "0"\nsecond line`] });
    for (const r of whole.slice(1)) expect("fields" in r && r.fields.length, `record at ${r.offset}`).toBe(2);
    for (const r of whole) expect(buf.toString("latin1", r.offset, r.offset + 4), `record at ${r.offset}`).toMatch(/^(url,|http)/);
    for (const chunk of [1, 2, 3, 7, 64, 1000, 1 << 20]) expect(await collect(buf, chunk), `chunks of ${chunk}`).toEqual(whole);
  });

  it("a quote left open to the end costs its record only: reading goes on at the line after its first", async () => {
    const [a, b, c] = lines;
    const bad = Buffer.from(`${a![1]},${a![0]}\n${b![1]},"${b![0]}\n${c![1]},${c![0]}\n`);
    for (const chunk of [5, 1 << 20]) {
      expect(await collect(bad, chunk)).toEqual([
        { offset: 0, fields: [a![1], a![0]] },
        { offset: a![1].length + a![0].length + 2, drop: "unterminated_quote" },
        { offset: bad.indexOf(c![1]), fields: [c![1], c![0]] },
      ]);
    }
  });

  it("a quote open past the record bound, or a line longer than it, is counted without holding the file", async () => {
    const [a, b] = lines;
    const openQuote = `"${"an open quote\n".repeat(100)}`;
    const longLine = `${"w".repeat(3000)},x`;
    const bad = Buffer.from(`${a![1]},${a![0]}\n${openQuote}\n${longLine}\n${b![1]},${b![0]}\n`);
    const got = await collect(bad, 64, 1000);
    expect(got.map((r) => ("drop" in r ? r.drop : r.fields[0]))).toEqual([a![1], "unterminated_quote", ...Array(99).fill("an open quote"), "", "line_too_long", b![1]]);
  });
});
