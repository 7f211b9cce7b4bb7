import { describe, expect, it } from "vitest";
import { decoderThreads, DecoderShares } from "../../shared/runner/decoder-shares.ts";

describe("decoderThreads", () => {
  it("leaves a decoder that runs alone the default (all cores)", () => {
    expect(decoderThreads(8, 100, [], 0)).toBeUndefined();
  });

  it("shares the cores by bytes, within what is free, one at least", () => {
    // equal shards: equal shares
    expect(decoderThreads(8, 100, [100], 0)).toBe(4);
    expect(decoderThreads(8, 100, [100, 100, 100], 0)).toBe(2);
    expect(decoderThreads(2, 100, [100], 0)).toBe(1);
    // a large shard beside small ones takes most cores; a small one beside a large one, one
    expect(decoderThreads(8, 10_000, [1000, 1000, 1000], 0)).toBe(6);
    expect(decoderThreads(8, 1000, [10_000, 1000, 1000], 6)).toBe(1);
    // no more than the running decoders left free, however large
    expect(decoderThreads(8, 10_000, [100], 6)).toBe(2);
    expect(decoderThreads(8, 10_000, [100], 8)).toBe(1);
    // a 152 MB history beside a 26 MB one on 2 cores: both cores (1.71 rounded), and one for the small one
    expect(decoderThreads(2, 152, [26], 0)).toBe(2);
    expect(decoderThreads(2, 26, [152], 2)).toBe(1);
    // more shards than cores: one each
    expect(decoderThreads(2, 100, [100, 100, 100], 0)).toBe(1);
    // sizes unknown (0): equal shares
    expect(decoderThreads(8, 0, [0, 0, 0], 0)).toBe(2);
  });
});

describe("DecoderShares", () => {
  const GB = 1 << 30;

  it("gives every decoder all cores when shards are decoded one at a time", () => {
    const shares = new DecoderShares(8, 1, [{ id: "a", size: GB }, { id: "b", size: GB }]);
    expect(shares.start("a", GB).threads).toBeUndefined();
    shares.end("a");
    expect(shares.start("b", GB).threads).toBeUndefined();
  });

  it("shares the cores among the shards started together and the running ones, by bytes", () => {
    // a 10 GB history beside three 1 GB ones on 8 cores, 4 at a time (largest first)
    const shards = [{ id: "big", size: 10 * GB }, ...["b", "c", "d", "e"].map((id) => ({ id, size: GB }))];
    const shares = new DecoderShares(8, 4, shards);
    const big = shares.start("big", 10 * GB);
    expect(big.threads).toBe(6); // 8 × 10 / 13
    expect(shares.start("b", GB).threads).toBe(1);
    expect(shares.start("c", GB).threads).toBe(1);
    expect(shares.start("d", GB).threads).toBe(1); // the last core but one: at least one each
    // b ends; e starts beside big (6 cores), c and d (1 each): no core is free, so one
    shares.end("b");
    expect(shares.start("e", GB).threads).toBe(1);
    // once the others are done, a 4 GB shard started beside big (1 GB still to read) would have 6
    // cores by bytes, but big holds 6 of the 8: it gets the 2 left free
    for (const id of ["c", "d", "e"]) shares.end(id);
    big.onRead(9 * GB);
    expect(shares.start("f", 4 * GB).threads).toBe(2);
  });

  it("counts what the running decoders still have to read", () => {
    const shares = new DecoderShares(8, 2, ["a", "b", "c"].map((id) => ({ id, size: 100 })));
    const a = shares.start("a", 100);
    expect(a.threads).toBe(4); // beside b, next to start
    const b = shares.start("b", 100);
    expect(b.threads).toBe(4);
    // a is done; c starts beside b, which has read 90 of its 100 bytes: c's share is 7, but b holds 4
    shares.end("a");
    b.onRead(90);
    expect(shares.start("c", 100).threads).toBe(4);
  });

  it("counts a shard read again once, and forgets resumed ones", () => {
    const shares = new DecoderShares(4, 2, ["a", "b", "c"].map((id) => ({ id, size: 100 })));
    shares.end("a"); // resumed: done in an earlier run
    expect(shares.start("b", 100).threads).toBe(2); // beside c
    expect(shares.start("b", 100).threads).toBe(2); // a retry of b does not count b twice
    expect(shares.start("c", 100).threads).toBe(2);
  });
});
