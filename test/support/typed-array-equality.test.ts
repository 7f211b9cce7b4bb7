/** The setup file's fast path for typed arrays keeps toEqual's answers. */
import { describe, expect, it } from "vitest";

describe("typed arrays in toEqual (test/support/typed-array-equality.ts)", () => {
  const bytes = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 7) & 255);
  it("equal bytes are equal, nested too, at native speed", () => {
    const cpu = process.cpuUsage();
    expect([{ image: bytes, buf: Buffer.from(bytes) }]).toEqual([{ image: new Uint8Array(bytes), buf: Buffer.from(bytes) }]);
    // vitest's own walk takes seconds here; the tester well under one (a loose bound: a missing tester costs ~1000×)
    const used = process.cpuUsage(cpu);
    expect(used.user + used.system).toBeLessThan(5_000_000);
  });
  it("one differing byte, a different length or a different kind still fails", () => {
    const other = new Uint8Array(bytes);
    other[123_456]! ^= 1;
    expect(() => expect({ b: bytes.subarray(0, 1000) }).toEqual({ b: other.subarray(0, 1000) })).not.toThrow();
    expect(() => expect(bytes.subarray(123_000, 124_000)).toEqual(other.subarray(123_000, 124_000))).toThrow();
    expect(() => expect(bytes.subarray(0, 10)).toEqual(bytes.subarray(0, 11))).toThrow();
    expect(() => expect(Buffer.from(bytes.subarray(0, 10))).toStrictEqual(bytes.subarray(0, 10))).toThrow();
    expect(() => expect(new Float64Array([0])).toEqual(new Float64Array([-0]))).toThrow();
    expect(new Float64Array([NaN])).toEqual(new Float64Array([NaN]));
  });
});
