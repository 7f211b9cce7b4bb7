import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { MAX_LINE_BYTES, tsvLines, tsvReadStart, type TsvLine } from "../../../shared/sources/caption-tsv/tsv-lines.ts";

const CC = join(import.meta.dirname, "../../fixtures/data/conceptual-captions/gcc-validation-lines00001-00500.tsv");

async function collect(it: AsyncIterable<TsvLine>): Promise<TsvLine[]> {
  const out: TsvLine[] = [];
  for await (const l of it) out.push(l);
  return out;
}
/** The file's bytes from `from` on, in pieces of `chunk` bytes, as a file read delivers them. */
const chunked = (buf: Buffer, from: number, chunk = 64 * 1024) =>
  Readable.from((function* () {
    for (let i = from; i < buf.length; i += chunk) yield buf.subarray(i, i + chunk);
  })());
const shard = (buf: Buffer, start: number, end: number) => collect(tsvLines(chunked(buf, tsvReadStart(start)), start, end));
const label = (l: TsvLine) => ("drop" in l ? `${l.offset}:${l.drop}` : `${l.offset}:${l.caption}`);

// Real Conceptual Captions lines around one line with no break for 3 MiB (a file that is not a
// caption list, a runaway field): it must cost neither memory nor time, and be counted.
const real = readFileSync(CC).subarray(0, 2000);
const head = real.subarray(0, real.indexOf(0x0a, 1000) + 1);
const huge = Buffer.concat([Buffer.from("a runaway caption "), Buffer.alloc(3 * MAX_LINE_BYTES, "w"), Buffer.from("\thttp://example.org/x.jpg\n")]);
const tail = readFileSync(CC).subarray(head.length, head.length + 1500);
const file = Buffer.concat([head, huge, tail.subarray(0, tail.lastIndexOf(0x0a) + 1)]);

describe("caption TSV lines over the line bound", () => {
  it("drops a line over MAX_LINE_BYTES as line_too_long with its offset, and reads the lines around it", async () => {
    const lines = await shard(file, 0, Infinity);
    const drops = lines.filter((l) => "drop" in l);
    expect(drops).toEqual([{ offset: head.length, drop: "line_too_long" }]);
    const before = await collect(tsvLines(Readable.from([head])));
    expect(lines.slice(0, before.length)).toEqual(before);
    expect(lines.length).toBe(before.length + 1 + tail.subarray(0, tail.lastIndexOf(0x0a) + 1).toString().split("\n").length - 1);
    expect(lines.every((l) => "drop" in l || l.caption.length < 1000)).toBe(true);
  });

  it("counts the long line once however the file is cut into shards, a cut inside it included", async () => {
    const whole = (await shard(file, 0, Infinity)).map(label);
    const inside = head.length + MAX_LINE_BYTES + 12345;
    for (const cuts of [[inside], [head.length], [head.length + 1], [100, inside, inside + MAX_LINE_BYTES + 7]]) {
      const bounds = [0, ...cuts, Infinity];
      const got: string[] = [];
      for (let i = 0; i + 1 < bounds.length; i++) got.push(...(await shard(file, bounds[i]!, bounds[i + 1]!)).map(label));
      expect(got, `cuts ${cuts.join(",")}`).toEqual(whole);
    }
  });

  it("a long last line without a final newline is one drop", async () => {
    const lines = await collect(tsvLines(chunked(Buffer.concat([head, huge.subarray(0, huge.length - 1)]), 0)));
    expect(lines.at(-1)).toEqual({ offset: head.length, drop: "line_too_long" });
    expect(lines.filter((l) => "drop" in l)).toHaveLength(1);
  });

  it("a line just over the bound is a drop however the chunks fall (one chunk holding all of it, or pieces)", async () => {
    const over = Buffer.concat([Buffer.from("a caption just too long "), Buffer.alloc(MAX_LINE_BYTES, "w"), Buffer.from("\thttp://example.org/y.jpg\n")]);
    const bytes = Buffer.concat([head, over, tail.subarray(0, tail.lastIndexOf(0x0a) + 1)]);
    const expected = (await collect(tsvLines(chunked(bytes, 0, 64)))).map(label);
    expect(expected.filter((l) => l.endsWith("line_too_long"))).toEqual([`${head.length}:line_too_long`]);
    for (const chunk of [64 * 1024, over.length + 5, bytes.length]) expect((await collect(tsvLines(chunked(bytes, 0, chunk)))).map(label), `chunks of ${chunk}`).toEqual(expected);
    // without a final line break too
    const last = Buffer.concat([head, over.subarray(0, over.length - 1)]);
    expect((await collect(tsvLines(chunked(last, 0, last.length)))).at(-1)).toEqual({ offset: head.length, drop: "line_too_long" });
  });
});

