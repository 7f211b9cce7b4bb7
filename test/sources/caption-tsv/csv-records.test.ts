/** CSV records (RFC 4180) from a stream cut anywhere: the same records, offsets and counted damage as from the whole file. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { csvCuts, csvRecords, recordAt, recordEnds, recordsOf, type CsvRecord } from "../../../shared/sources/caption-tsv/csv-records.ts";

const CC = join(import.meta.dirname, "../../fixtures/data/conceptual-captions/gcc-validation-lines00001-00500.tsv");
const lines = readFileSync(CC, "utf8").split("\n").slice(0, 40).map((l) => l.split("\t") as [string, string]);
const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;

async function collect(buf: Buffer, chunk: number, max?: number, start = 0, end = buf.length): Promise<CsvRecord[]> {
  const chunks = Readable.from((function* () {
    for (let i = start; i < end; i += chunk) yield buf.subarray(i, Math.min(end, i + chunk));
  })());
  const out: CsvRecord[] = [];
  for await (const r of csvRecords(chunks, max, start)) out.push(r);
  return out;
}

/** The cuts the planner must make: the first record start (of the whole file's reading) at or past each step after the last cut. */
function expectedCuts(records: CsvRecord[], step: number): number[] {
  const cuts: number[] = [];
  for (const { offset } of records) if (offset >= (cuts.at(-1) ?? 0) + step) cuts.push(offset);
  return cuts;
}

/** The records of `buf` read as shards cut where csvCuts says (the planner reading `chunk` bytes at a time). */
async function sharded(buf: Buffer, step: number, chunk: number, max?: number): Promise<{ cuts: number[]; records: CsvRecord[] }> {
  const cuts = await csvCuts(async (from, to) => buf.subarray(from, to), buf.length, step, chunk, max);
  const starts = [0, ...cuts];
  const records: CsvRecord[] = [];
  for (const [i, start] of starts.entries()) records.push(...(await collect(buf, 7, max, start, starts[i + 1] ?? buf.length)));
  return { cuts, records };
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

  it("a record just over the bound is a drop however the chunks fall (it was read whole when one chunk held its end)", async () => {
    const [a, b] = lines;
    const long = `${a![1]},"${"a long caption, ".repeat(70)}"\n`;
    const bad = Buffer.from(`${long}${b![1]},${b![0]}\n`);
    const max = long.length - 10;
    for (const chunk of [64, long.length + 5, 1 << 20]) {
      expect(await collect(bad, chunk, max), `chunks of ${chunk}`).toEqual([{ offset: 0, drop: "line_too_long" }, { offset: long.length, fields: [b![1], b![0]] }]);
    }
  });
});

describe("CSV cuts (the planner's scan)", () => {
  it("finds recordAt's record ends for any bytes: quotes open a field only at its start, doubled quotes, a cut buffer, the file's end", () => {
    // a seeded generator over the bytes that matter
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const alphabet = ['"', '"', ",", "\n", "\r", "a", "b"];
    const ends = recordEnds();
    for (let t = 0; t < 3000; t++) {
      const buf = Buffer.from(Array.from({ length: 1 + rand(24) }, () => alphabet[rand(alphabet.length)]).join(""));
      for (let at = 0; at < buf.length; at++) {
        for (const final of [false, true]) {
          const want = recordAt(buf, at, final);
          const got = ends(buf, at, final);
          expect(typeof got === "string" ? got : got.next, `${JSON.stringify(buf.toString())} at ${at}${final ? ", final" : ""}`).toEqual(typeof want === "string" ? want : want.next);
        }
      }
    }
  });

  it("cuts where the whole file's reading has its record starts, for any bytes, bound, shard size and read size", async () => {
    let seed = 11;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let t = 0; t < 300; t++) {
      // quotes and line breaks from frequent to rare: long runs of lines without a quote, lines over the bound
      const alphabet = ['"', ",", "\n", ...Array(t % 5 === 0 ? 40 : t % 2 ? 8 : 2).fill("a"), ...Array(t % 3 ? 1 : 8).fill("\n")];
      const buf = Buffer.from(Array.from({ length: 1 + rand(400) }, () => alphabet[rand(alphabet.length)]).join(""));
      const max = 8 + rand(40);
      const whole = await collect(buf, 1 << 20, max);
      for (const step of [1, 7, 40]) {
        for (const chunk of [3, 50, 1000]) {
          const cuts = await csvCuts(async (from, to) => buf.subarray(from, to), buf.length, step, chunk, max);
          expect(cuts, `${JSON.stringify(buf.toString())}, bound ${max}, step ${step}, reads of ${chunk}`).toEqual(expectedCuts(whole, step));
        }
      }
    }
  });

  // real captions as CSV: quoted line breaks, doubled quotes, commas, a quote inside an unquoted field, and quoted
  // fields holding a line that is itself a whole record (what defeats any guess made from a shard's own bytes)
  const rows = readFileSync(CC, "utf8").split("\n").slice(0, 300).map((l) => l.split("\t") as [string, string]);
  const body = rows.map(([caption, url], i) => {
    if (i % 11 === 1) return `${url},${quote(`${caption}\n"http://x/y.jpg","a caption"`)}\n`;
    if (i % 11 === 4) return `${url},${quote(`${caption},\nhttp://x/y.jpg,a caption\n${url},${caption}`)}\n`;
    if (i % 11 === 7) return `${url},${quote(`"${caption}", she said`)}\r\n`;
    if (i % 11 === 9) return `${url},the 5" ${caption.replace(/,/g, " ")}\n`;
    return `${url},${caption.replace(/,/g, " ")}\n`;
  });
  const text = Buffer.from("url,caption\n" + body.join(""));

  it("cuts only at record starts: every shard read from its cut gives the whole file's records and offsets", async () => {
    const whole = await collect(text, 1 << 20);
    expect(whole).toHaveLength(301);
    const starts = new Set(whole.map((r) => r.offset));
    for (const [step, chunk] of [[2000, 1 << 20], [997, 333], [5000, 64]] as const) {
      const { cuts, records } = await sharded(text, step, chunk);
      expect(cuts.length, `${step}-byte shards`).toBeGreaterThanOrEqual(3);
      for (const c of cuts) expect(starts.has(c), `cut at ${c}`).toBe(true);
      expect(cuts).toEqual(expectedCuts(whole, step));
      expect(records, `${step}-byte shards`).toEqual(whole);
    }
  });

  it("a quote left open (past the bound, or to the end) is recovered from where the whole file's reading recovers", async () => {
    const [a, b] = rows;
    const open = Buffer.from(`url,caption\n${a![1]},"${a![0]}\n`);
    const tail = Buffer.from(`${b![1]},"${b![0]} and a quote never closed\n`);
    // lines without a quote: an open quote before 20 of them is not closed within the bound, before 3 not before the end
    const plainLines = (n: number) => Buffer.from(rows.slice(20, 20 + n).map(([c, u]) => `${u},${c.replace(/[",]/g, " ")}\n`).join(""));
    for (const bad of [Buffer.concat([open, plainLines(20), text.subarray(12)]), Buffer.concat([text, tail, plainLines(3)])]) {
      // (the bound: 600 bytes, so the open quote is dropped past it, before any other quote closes it)
      const whole = await collect(bad, 1 << 20, 600);
      expect(whole.filter((r) => "drop" in r).map((r) => ("drop" in r ? r.drop : "")), "the whole file's reading").toContain("unterminated_quote");
      const starts = new Set(whole.map((r) => r.offset));
      for (const [step, chunk] of [[1500, 1 << 20], [700, 100]] as const) {
        const { cuts, records } = await sharded(bad, step, chunk, 600);
        expect(cuts.length).toBeGreaterThanOrEqual(3);
        for (const c of cuts) expect(starts.has(c), `cut at ${c}`).toBe(true);
        expect(cuts).toEqual(expectedCuts(whole, step));
        expect(records).toEqual(whole);
      }
    }
  });
});
