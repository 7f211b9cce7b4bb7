import { createReadStream, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { imageUrlKey } from "../../shared/sources/caption-tsv/image-url.ts";
import { tsvLines, tsvReadStart, tsvShardBytes, type TsvLine } from "../../shared/sources/caption-tsv/tsv-lines.ts";

const CC = join(import.meta.dirname, "../fixtures/data/conceptual-captions/gcc-validation-lines00001-00500.tsv");

async function collect(it: AsyncIterable<TsvLine>): Promise<TsvLine[]> {
  const out: TsvLine[] = [];
  for await (const l of it) out.push(l);
  return out;
}
const shard = (path: string, start: number, end: number, chunk = 4096) =>
  tsvLines(createReadStream(path, { start: tsvReadStart(start), highWaterMark: chunk }), start, end);
const bytes = (s: string) => Readable.from([Buffer.from(s)]);

describe("caption TSV shards", () => {
  it("reads every line of the real Conceptual Captions excerpt as caption and URL", async () => {
    const lines = await collect(shard(CC, 0, Infinity));
    expect(lines).toHaveLength(500);
    expect(lines[0]).toEqual({
      offset: 0,
      caption: "author : a life in photography -- in pictures",
      url: "https://i.pinimg.com/736x/66/01/6c/66016c3ba27c0e04f39e2bd81a934e3e--anita-ekberg-bob-hope.jpg",
    });
    const file = readFileSync(CC);
    for (const l of lines) if ("caption" in l) expect(file.subarray(l.offset).toString().startsWith(`${l.caption}\t${l.url}\n`)).toBe(true);
  });

  it("covers every line exactly once however the file is cut into shards", async () => {
    const whole = await collect(shard(CC, 0, Infinity));
    const size = statSync(CC).size;
    // cut points on, just before and just after line starts, and at arbitrary bytes
    const starts = whole.map((l) => l.offset);
    const cuts = [starts[7]!, starts[8]! - 1, starts[20]! + 1, 12_345, 50_000, starts[300]!, size - 3];
    for (const k of [2, 3, 5, 8]) {
      const bounds = [0, ...cuts.slice(0, k - 1).sort((a, b) => a - b), size];
      const parts: TsvLine[] = [];
      for (let i = 0; i + 1 < bounds.length; i++) parts.push(...(await collect(shard(CC, bounds[i]!, bounds[i + 1]!, 1000))));
      expect(parts).toEqual(whole);
    }
  });

  it("reads a shard in bounded reads, each consumed to its end, none at or past the end of the file", async () => {
    const file = readFileSync(CC);
    const whole = await collect(shard(CC, 0, Infinity));
    const reads: { start: number; end: number | undefined; requested: number; delivered: number }[] = [];
    // a Cloud Storage-like reader: a read starting at the end of the object is an error (416)
    const reader = (start: number, end?: number) => {
      if (start >= file.length) throw new Error(`read at ${start} of ${file.length} bytes`);
      const body = file.subarray(start, end);
      const r = { start, end, requested: body.length, delivered: 0 };
      reads.push(r);
      return (async function* () {
        for (let i = 0; i < body.length; i += 7) {
          const chunk = body.subarray(i, i + 7);
          r.delivered += chunk.length;
          yield chunk;
        }
      })();
    };
    const starts = whole.map((l) => l.offset);
    // the last cut falls inside the last line: its shard's tail reaches the end of the file
    const bounds = [0, starts[7]! + 3, starts[8]!, 50_000, file.length - 3, file.length];
    for (const window of [3, 5, 64, 65_536]) {
      const parts: TsvLine[] = [];
      for (let i = 0; i + 1 < bounds.length; i++) {
        const end = i + 2 === bounds.length ? null : bounds[i + 1]!;
        parts.push(...(await collect(tsvLines(tsvShardBytes(reader, bounds[i]!, end, window), bounds[i]!, end ?? Infinity))));
      }
      expect(parts).toEqual(whole);
    }
    expect(reads.length).toBeGreaterThan(15);
    for (const r of reads) expect(r.delivered, `read ${r.start}..${r.end}`).toBe(r.requested);
  });

  it("counts malformed lines instead of dropping them silently, and takes CRLF and a missing final newline", async () => {
    const lines = await collect(tsvLines(bytes("a dog on a beach\thttp://x.org/a.jpg\r\nno tab here\n\thttp://x.org/b.jpg\nthree\tfields\there\ncaption\t \nlast line\thttp://x.org/c.jpg")));
    expect(lines.map((l) => ("drop" in l ? l.drop : l.caption))).toEqual(["a dog on a beach", "malformed_line", "empty_caption", "malformed_line", "empty_url", "last line"]);
  });
});

describe("image URL key", () => {
  it("joins spellings of one address and keeps different addresses apart", () => {
    expect(imageUrlKey("HTTP://Example.COM:80/a/./b/../c.jpg#top")).toEqual({ key: "http://example.com/a/c.jpg" });
    expect(imageUrlKey("https://example.com/a%7ec.jpg?size=2")).not.toEqual(imageUrlKey("https://example.com/a%7ec.jpg?size=3"));
    expect(imageUrlKey("ftp://example.com/a.jpg")).toEqual({ drop: "not_http_url" });
    expect(imageUrlKey("not a url")).toEqual({ drop: "invalid_url" });
  });
});
