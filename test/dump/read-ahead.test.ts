import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readAhead } from "../../shared/dump/read-ahead.ts";

const CHUNK = 1024;

/** A stream of `n` chunks that records how many the producer has handed out. */
function counted(n: number) {
  const state = { produced: 0 };
  const stream = new Readable({
    highWaterMark: CHUNK,
    read() {
      if (state.produced === n) this.push(null);
      else {
        state.produced++;
        this.push(Buffer.alloc(CHUNK, state.produced % 256));
      }
    },
  });
  return { stream, state };
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe("readAhead", () => {
  it("keeps draining the producer while the consumer is busy, up to the bound", async () => {
    const { stream, state } = counted(1000);
    const it = readAhead(stream, 64 * CHUNK)[Symbol.asyncIterator]();
    await it.next();
    await turns(200); // the consumer does something else; the producer is not held up by it
    expect(state.produced).toBeGreaterThan(32);
    expect(state.produced).toBeLessThanOrEqual(1 + 64 + 4); // bounded: paused near maxBytes
    let total = 1;
    for (let r = await it.next(); !r.done; r = await it.next()) total++;
    expect(total).toBe(1000);
  });

  it("delivers every byte in order", async () => {
    const { stream } = counted(300);
    const seen: number[] = [];
    for await (const chunk of readAhead(stream, 8 * CHUNK)) seen.push(chunk[0]!);
    expect(seen).toEqual(Array.from({ length: 300 }, (_, i) => (i + 1) % 256));
  });

  it("joins chunks to at least minChunk bytes (but the last), every byte in order", async () => {
    const { stream } = counted(300);
    const sizes: number[] = [];
    const bytes: number[] = [];
    for await (const chunk of readAhead(stream, 64 * CHUNK, undefined, 10 * CHUNK)) {
      sizes.push(chunk.length);
      for (let i = 0; i < chunk.length; i += CHUNK) bytes.push(chunk[i]!);
    }
    expect(bytes).toEqual(Array.from({ length: 300 }, (_, i) => (i + 1) % 256));
    expect(sizes.slice(0, -1).every((n) => n >= 10 * CHUNK)).toBe(true);
    expect(sizes.length).toBeLessThanOrEqual(30);
  });

  it("reports the stream's error after the data before it", async () => {
    const stream = new Readable({ read() {} });
    stream.push(Buffer.from("good"));
    setImmediate(() => stream.destroy(new Error("decoder died")));
    const got: string[] = [];
    await expect(async () => {
      for await (const c of readAhead(stream, 1 << 20)) got.push(c.toString());
    }).rejects.toThrow("decoder died");
    expect(got).toEqual(["good"]);
  });

  it("detaches from the stream when the consumer stops early", async () => {
    const { stream } = counted(100);
    for await (const _ of readAhead(stream, 4 * CHUNK)) break;
    expect(stream.listenerCount("data")).toBe(0);
  });
});
