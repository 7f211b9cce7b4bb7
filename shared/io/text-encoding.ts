/**
 * Text files and streams as users hand them over: UTF-8 with or without a byte-order mark, or UTF-16
 * with one (what Windows tools write as "Unicode"), and lines ended by LF or CRLF. A lone CR is not a
 * line end (a caption may hold one): the line-per-line commands promise one output line per input
 * line, and readline would split there.
 */

import { isAscii, isUtf8 } from "node:buffer";
import { TextDecoder } from "node:util";
import { lineDecoder } from "./line-encoding.ts";

export type TextEncodingName = "utf-8" | "utf-16le" | "utf-16be";

/** The encoding a byte-order mark at the start names, and the mark's length; UTF-8 without one. */
export function sniffTextEncoding(head: Uint8Array): { encoding: TextEncodingName; bom: number } {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: "utf-8", bom: 3 };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: "utf-16le", bom: 2 };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: "utf-16be", bom: 2 };
  return { encoding: "utf-8", bom: 0 };
}

/** A whole file's text (its byte-order mark, if any, decides the encoding and is dropped). */
export function decodeText(bytes: Uint8Array, opts: { fatal?: boolean } = {}): string {
  const { encoding, bom } = sniffTextEncoding(bytes);
  return new TextDecoder(encoding, { fatal: opts.fatal ?? false, ignoreBOM: true }).decode(bytes.subarray(bom));
}

/**
 * A line of a UTF-8 stream that is not UTF-8 (a line cut inside a character, a legacy byte): the
 * lines stop there rather than hand on text with U+FFFD, and `line` (1-based) tells the user where.
 */
export class NotUtf8Error extends Error {
  override readonly name = "NotUtf8Error";
  constructor(readonly line: number) {
    super(`line ${line} is not UTF-8 (a line cut inside a character, or text in a legacy encoding: convert it, e.g. iconv -f windows-1252 -t utf-8)`);
  }
}

/** A line of a stream in a named encoding holding a byte that encoding has no character for: the lines stop there, as at a line that is not UTF-8. */
export class NotInEncodingError extends Error {
  override readonly name = "NotInEncodingError";
  constructor(readonly line: number, readonly encoding: string) {
    super(`line ${line} holds a byte ${encoding} has no character for (another encoding, or damage)`);
  }
}

/**
 * The lines of a byte stream, decoded as decodeText does; LF or CRLF ends a line, a last line without
 * one is a line. A UTF-8 stream's lines are checked one by one (NotUtf8Error): a stream is read as it
 * comes, line by line, so it is not guessed from a head the way a file is. `encoding` (a canonical
 * name, line-encoding.ts; not UTF-16): the user's word for it, each line decoded with it
 * (NotInEncodingError), no mark looked for; "utf-8" reads as without it. A string chunk is taken as UTF-8 bytes.
 */
export async function* textLines(input: AsyncIterable<Buffer | string>, named?: string): AsyncGenerator<string> {
  if (named !== undefined && named !== "utf-8") {
    const decode = lineDecoder(named);
    yield* byteLines(Buffer.alloc(0), input, (b, n) => {
      const text = decode(b);
      if (text === null) throw new NotInEncodingError(n, named);
      return text;
    });
    return;
  }
  let head = Buffer.alloc(0);
  const it = input[Symbol.asyncIterator]();
  // the mark is read from the first three bytes, however the stream is cut
  while (head.length < 3) {
    const next = await it.next();
    if (next.done) break;
    const v = next.value;
    head = Buffer.concat([head, typeof v === "string" ? Buffer.from(v, "utf8") : v]);
  }
  const body: AsyncIterable<Buffer | string> = { [Symbol.asyncIterator]: () => it };
  const { encoding, bom } = sniffTextEncoding(head);
  if (encoding === "utf-8") yield* utf8Lines(head.subarray(bom), body);
  else yield* decodedLines(encoding, head.subarray(bom), body);
}

/** A line's bytes less a CR ending it. */
const lessCr = (b: Buffer): Buffer => (b.length > 0 && b[b.length - 1] === 0x0d ? b.subarray(0, -1) : b);

function utf8Lines(first: Buffer, rest: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  return byteLines(first, rest, (b, n) => {
    if (!isUtf8(b)) throw new NotUtf8Error(n);
    return b.toString("utf8");
  });
}

/** Lines split at LF bytes, less a CR ending them, each decoded by `decode` (given its 1-based number). */
async function* byteLines(first: Buffer, rest: AsyncIterable<Buffer | string>, decode: (bytes: Buffer, n: number) => string): AsyncGenerator<string> {
  let pending = first;
  let n = 0;
  const line = (b: Buffer): string => decode(b, ++n);
  const split = function* (): Generator<string> {
    let from = 0;
    for (let nl = pending.indexOf(0x0a); nl >= 0; nl = pending.indexOf(0x0a, from)) {
      yield line(lessCr(pending.subarray(from, nl)));
      from = nl + 1;
    }
    pending = pending.subarray(from);
  };
  yield* split();
  for await (const chunk of rest) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    pending = pending.length === 0 ? bytes : Buffer.concat([pending, bytes]);
    yield* split();
  }
  if (pending.length > 0) yield line(lessCr(pending));
}

async function* decodedLines(encoding: TextEncodingName, first: Buffer, rest: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder(encoding, { ignoreBOM: true });
  let text = "";
  const split = function* (more: string, end: boolean): Generator<string> {
    text += more;
    let at = 0;
    for (let nl = text.indexOf("\n", at); nl >= 0; nl = text.indexOf("\n", at)) {
      yield text.charCodeAt(nl - 1) === 0x0d && nl > at ? text.slice(at, nl - 1) : text.slice(at, nl);
      at = nl + 1;
    }
    text = text.slice(at);
    if (end && text !== "") {
      yield text.endsWith("\r") ? text.slice(0, -1) : text;
      text = "";
    }
  };
  yield* split(decoder.decode(first, { stream: true }), false);
  for await (const chunk of rest) yield* split(decoder.decode(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk, { stream: true }), false);
  yield* split(decoder.decode(), true);
}

/** What a file's bytes are, as far as its head tells: guessTextEncoding's answer. */
export type GuessedEncoding = TextEncodingName | "windows-1252";

/**
 * A file's encoding from its first bytes (the same bytes give the same answer: a caption list's every
 * shard decides from the file's head). A byte-order mark says; without one, NULs in every other byte
 * are UTF-16 (Windows' "Unicode" saved without its mark); bytes that are not UTF-8 and not one
 * well-formed UTF-8 character of two or more bytes among them are a single-byte legacy file, read as
 * windows-1252 (WHATWG's reading of Latin-1 too, as browsers read them: Excel's "CSV" and older
 * corpora are that). A few bad sequences among well-formed ones are damage in a UTF-8 file (a line
 * cut inside a character): "utf-8", the reader dropping those lines. `whole`: the head is the whole
 * file (else a character cut at its end is not held against it).
 */
export function guessTextEncoding(head: Uint8Array, whole: boolean): { encoding: GuessedEncoding; bom: number } {
  const marked = sniffTextEncoding(head);
  if (marked.bom > 0) return marked;
  const utf16 = unmarkedUtf16(head);
  if (utf16) return { encoding: utf16, bom: 0 };
  const { multibyte, invalid } = utf8Evidence(head, whole);
  return { encoding: invalid > 0 && multibyte === 0 ? "windows-1252" : "utf-8", bom: 0 };
}

/** UTF-16 without a mark: text whose every other byte (of the first 1,024) is mostly NUL, and the others never. */
function unmarkedUtf16(head: Uint8Array): "utf-16le" | "utf-16be" | null {
  const n = Math.min(head.length, 1024) & ~1;
  if (n < 8) return null;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (head[i] === 0) even++;
    if (head[i + 1] === 0) odd++;
  }
  const pairs = n / 2;
  if (odd >= pairs * 0.3 && even === 0) return "utf-16le";
  if (even >= pairs * 0.3 && odd === 0) return "utf-16be";
  return null;
}

/** How many well-formed UTF-8 characters of two to four bytes, and how many bytes that start none, `b` holds. */
export function utf8Evidence(b: Uint8Array, whole = true): { multibyte: number; invalid: number } {
  let multibyte = 0;
  let invalid = 0;
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    const len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    // the second byte's range (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF)
    const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
    let ok = len > 0;
    let k = 1;
    for (; ok && k < len && i + k < b.length; k++) {
      const t = b[i + k]!;
      ok = k === 1 ? t >= lo && t <= hi : t >= 0x80 && t <= 0xbf;
    }
    if (ok && k < len) {
      // the bytes end inside the character: damage only where they are the whole file
      if (whole) invalid++;
      break;
    }
    if (ok) {
      multibyte++;
      i += len;
    } else {
      invalid++;
      i++;
    }
  }
  return { multibyte, invalid };
}

/**
 * guessTextEncoding's UTF-8 rule over a whole stream, for a file whose head holds no evidence (plain
 * ASCII): windows-1252 when some byte starts no UTF-8 character and no well-formed character of two
 * or more bytes occurs, else UTF-8. Chunks that are ASCII or UTF-8 are checked at memory speed
 * (buffer.isAscii/isUtf8); the first well-formed multibyte character ends the read. A character cut
 * between chunks is carried to the next one, so the answer does not depend on where they are cut.
 */
export async function wholeFileEncoding(chunks: AsyncIterable<Uint8Array>): Promise<"utf-8" | "windows-1252"> {
  let carry: Uint8Array = new Uint8Array(0);
  let invalid = false;
  const look = (b: Uint8Array): boolean => {
    if (b.length === 0 || isAscii(b)) return false;
    // not ASCII but UTF-8: it holds a multibyte character
    if (isUtf8(b)) return true;
    const evidence = utf8Evidence(b, true);
    if (evidence.invalid > 0) invalid = true;
    return evidence.multibyte > 0;
  };
  for await (const chunk of chunks) {
    const b = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
    const cut = cutCharacterAt(b);
    carry = Uint8Array.from(b.subarray(cut));
    if (look(b.subarray(0, cut))) return "utf-8";
  }
  if (look(carry)) return "utf-8";
  return invalid ? "windows-1252" : "utf-8";
}

/** Where a UTF-8 character that `b` ends inside starts (b.length when none): a lead byte in its last three bytes whose length runs past the end. */
function cutCharacterAt(b: Uint8Array): number {
  for (let i = b.length - 1; i >= Math.max(0, b.length - 3); i--) {
    const c = b[i]!;
    if (c < 0x80) return b.length;
    if (c < 0xc0) continue;
    const len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 1;
    return i + len > b.length ? i : b.length;
  }
  return b.length;
}
