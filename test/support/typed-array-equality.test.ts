/** The setup file's fast path for typed arrays keeps toEqual's answers. */
import { describe, expect, it } from "vitest";

describe("typed arrays in toEqual (test/support/typed-array-equality.ts)", () => {
  const bytes = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 7) & 255);
  it("equal bytes are equal, nested too, through the registered tester", () => {
    expect([{ image: bytes, buf: Buffer.from(bytes) }]).toEqual([{ image: new Uint8Array(bytes), buf: Buffer.from(bytes) }]);
    // the tester is what answered (no CPU bound: tests do not measure speed)
    const state = (globalThis as Record<symbol, { customEqualityTesters?: { name: string }[] } | undefined>)[Symbol.for("$$jest-matchers-object")];
    if (state?.customEqualityTesters) expect(state.customEqualityTesters.map((t) => t.name)).toContain("paracapSameBytes");
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
