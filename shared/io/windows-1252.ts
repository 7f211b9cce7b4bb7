/**
 * windows-1252 as WHATWG (and so every browser) decodes it: Latin-1 but for 0x80–0x9F, which hold
 * curly quotes, dashes, € and more. Node's TextDecoder("windows-1252") decodes those bytes as
 * Latin-1's C1 controls since 20.18.3 and 22.13.0 (nodejs/node#60888), so "Tom’s" came out as
 * "Tom\u0092s": windows-1252 is decoded here, whatever the runtime's decoder does.
 */
import { isAscii } from "node:buffer";

const WINDOWS_1252_HIGH = "\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178";

export function decodeWindows1252(bytes: Uint8Array): string {
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const latin1 = b.toString("latin1");
  if (isAscii(b)) return latin1;
  // eslint-disable-next-line no-control-regex
  return latin1.replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80]!);
}
