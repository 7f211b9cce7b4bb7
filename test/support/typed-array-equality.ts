/**
 * A vitest setup file: typed arrays with equal bytes are equal at native speed. Vitest's generic
 * equality walks a Uint8Array key by key through its matcher machinery (~1 CPU-s for 2 × 100 KB on a
 * 2-core VM), and the suite compares images, decoded blocks and buffers of that size often. Only the
 * equal case is answered: when the bytes differ, vitest's own comparison decides and reports the diff.
 * Same prototype only, so toStrictEqual still tells a Buffer from a Uint8Array.
 */
import { expect } from "vitest";

function paracapSameBytes(a: unknown, b: unknown): true | undefined {
  if (!ArrayBuffer.isView(a) || !ArrayBuffer.isView(b) || a instanceof DataView || b instanceof DataView) return undefined;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b) || a.byteLength !== b.byteLength) return undefined;
  const x = Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const y = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  return x.equals(y) ? true : undefined;
}

// Files sharing a worker run this setup once each: register once. The testers live in vitest's
// matcher state on globalThis (its internal symbol); if that is not where they are, a flag stands in.
const state = (globalThis as Record<symbol, { customEqualityTesters?: { name: string }[] } | undefined>)[Symbol.for("$$jest-matchers-object")];
const MARK = Symbol.for("paracap.test.typedArrayEquality");
const registered = state?.customEqualityTesters
  ? state.customEqualityTesters.some((t) => t.name === paracapSameBytes.name)
  : (globalThis as Record<symbol, unknown>)[MARK] === true;
if (!registered) {
  (globalThis as Record<symbol, unknown>)[MARK] = true;
  expect.addEqualityTesters([paracapSameBytes]);
}
