import { describe, expect, it } from "vitest";
import { spawnChunked } from "../../shared/dump/decoder-output.ts";

const KiB = 1024;

/** A child writing `n` blocks of 1 KiB, block i filled with byte i % 251, then exiting. */
const WRITER = (n: number) => `
let i = 0;
const next = () => {
  while (i < ${n}) {
    const ok = process.stdout.write(Buffer.alloc(${KiB}, i % 251));
    i++;
    if (!ok) return process.stdout.once("drain", next);
  }
};
next();`;

async function start(blocks: number, chunkBytes: number, maxAhead: number, onData?: (n: number) => void) {
  const spawned = await spawnChunked(process.execPath, ["-e", WRITER(blocks)], { chunkBytes, maxAhead, onData });
  if (spawned === null) throw new Error("no Unix-domain socket here");
  const exited = new Promise<number | null>((resolve) => spawned.child.once("close", (code) => resolve(code)));
  return { ...spawned, exited };
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 1));
};

describe.skipIf(process.platform === "win32")("spawnChunked", () => {
  it("delivers the child's output in order, in chunks filled to within one read of chunkBytes", async () => {
    const blocks = 3000;
    let told = 0;
    const { output, exited } = await start(blocks, 256 * KiB, 4 << 20, (n) => (told += n));
    const sizes: number[] = [];
    const firsts: number[] = [];
    let at = 0;
    for await (const chunk of output) {
      sizes.push(chunk.length);
      // every byte in order: block k holds k % 251
      for (let i = 0; i < chunk.length; i++) if (chunk[i] !== Math.floor((at + i) / KiB) % 251) throw new Error(`byte ${at + i} is wrong`);
      firsts.push(chunk[0]!);
      at += chunk.length;
    }
    expect(at).toBe(blocks * KiB);
    expect(told).toBe(blocks * KiB);
    expect(sizes.slice(0, -1).every((n) => n > 192 * KiB && n <= 256 * KiB)).toBe(true);
    expect(await exited).toBe(0);
  });

  it("stops reading while maxAhead bytes wait for the consumer, and reads on when they are taken", async () => {
    const blocks = 8192; // 8 MiB
    let told = 0;
    const { output, exited } = await start(blocks, 128 * KiB, 1 << 20, (n) => (told += n));
    const it = output[Symbol.asyncIterator]();
    let total = (await it.next()).value!.length;
    // the consumer is busy: the child's output is read on until the bound, and no further
    while (told < 1 << 20) await turns(1);
    await turns(50);
    // queued reaches at most maxAhead + one chunk before reading stops; the chunk being filled holds less than one more
    expect(told).toBeLessThanOrEqual(total + (1 << 20) + 2 * 128 * KiB);
    for (let r = await it.next(); !r.done; r = await it.next()) total += r.value.length;
    expect(total).toBe(blocks * KiB);
    expect(await exited).toBe(0);
  });

  it("closes its end when the consumer stops early: the child's writes fail and it ends", async () => {
    const { output, exited, child } = await start(1 << 20, 128 * KiB, 1 << 20);
    for await (const _ of output) break;
    expect(await exited).not.toBe(0);
    expect(child.exitCode !== 0 || child.signalCode !== null).toBe(true);
  });
});
