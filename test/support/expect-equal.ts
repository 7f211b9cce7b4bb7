/**
 * `expect(actual).toEqual(expected)` with a fast path. Vitest's generic equality walks typed arrays
 * and large arrays element by element through its matcher machinery: on hundreds of thousands of
 * elements that costs tens of CPU seconds. node:util's isDeepStrictEqual is native-speed and
 * stricter (prototypes, undefined properties, -0), so when it holds toEqual would hold too; when it
 * does not, toEqual decides and reports as before.
 */
import { isDeepStrictEqual } from "node:util";
import { expect } from "vitest";

export function expectEqual(actual: unknown, expected: unknown, message?: string): void {
  if (isDeepStrictEqual(actual, expected)) return;
  expect(actual, message).toEqual(expected);
}
