/**
 * Wikitext markup on UTF-8 bytes seen as a latin1 string (one char per byte), for the page scanner's
 * byte path: the tag patterns of markup-tags.ts rewritten so that they match exactly where the
 * originals match on the decoded text. `\s` differs: on the decoded text it also matches non-ASCII
 * spaces (U+00A0, U+2000–U+200A, …), which are multi-byte sequences here, and on latin1 it would
 * match byte 0xA0, which here is only ever a continuation byte.
 */
import { CloserFinder } from "./markup-tags.ts";

/** ASCII whitespace as JS `\s` has it. */
const ASCII_SPACE = "[\\t\\n\\v\\f\\r ]";
/** The UTF-8 bytes (as latin1 chars) of every non-ASCII character JS `\s` matches. */
const UTF8_SPACE = "\\xc2\\xa0|\\xe1\\x9a\\x80|\\xe2\\x80[\\x80-\\x8a\\xa8\\xa9\\xaf]|\\xe2\\x81\\x9f|\\xe3\\x80\\x80|\\xef\\xbb\\xbf";
const SPACE = `(?:${ASCII_SPACE}|${UTF8_SPACE})`;

/**
 * TAG_AT on the byte view; the lookahead after the name admits any non-ASCII byte, which the caller
 * confirms with isWhitespaceAt (one look at one character instead of a longer pattern on every `<`).
 */
export const TAG_AT_BYTES = /<(\/?)([A-Za-z][A-Za-z0-9]*)(?=[\t\n\v\f\r />\u0080-\u00ff])[^<>]*?(\/?)>/y;

const SPACE_AT = new RegExp(`^${SPACE}`);

/** Is the character at byte `at` whitespace, "/" or ">" (what TAG_AT's lookahead asks of it)? */
export function isWhitespaceAt(bytes: Buffer, at: number): boolean {
  const c = bytes[at];
  if (c === undefined) return false;
  if (c < 0x80) return c === 0x2f || c === 0x3e || /\s/.test(String.fromCharCode(c));
  return SPACE_AT.test(bytes.toString("latin1", at, Math.min(bytes.length, at + 3)));
}

/** `</name\s*>`, any case, on the byte view (the name's letters as [xX] classes: a case-insensitive flag would fold latin1 bytes). */
function closerPattern(name: string): RegExp {
  const letters = [...name].map((ch) => (/[a-z]/i.test(ch) ? `[${ch.toLowerCase()}${ch.toUpperCase()}]` : ch)).join("");
  return new RegExp(`</${letters}${SPACE}*>`, "g");
}

/** CloserFinder on the byte view (made on the first search). */
export class ByteCloserFinder extends CloserFinder {
  constructor(bytes: Buffer) {
    super(() => bytes.toString("latin1"), closerPattern);
  }
}
