/**
 * Text files and streams as users hand them over: UTF-8 with or without a byte-order mark, or UTF-16
 * with one (what Windows tools write as "Unicode"), and lines ended by LF or CRLF. A lone CR is not a
 * line end (a caption may hold one): the line-per-line commands promise one output line per input
 * line, and readline would split there.
 */

import { TextDecoder } from "node:util";

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

/** The lines of a byte stream, decoded as decodeText does; LF or CRLF ends a line, a last line without one is a line. */
export async function* textLines(input: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  let decoder: TextDecoder | null = null;
  let head = Buffer.alloc(0);
  let rest = "";
  const split = function* (text: string, end: boolean): Generator<string> {
    rest += text;
    let at = 0;
    for (let nl = rest.indexOf("\n", at); nl >= 0; nl = rest.indexOf("\n", at)) {
      yield rest.charCodeAt(nl - 1) === 0x0d && nl > at ? rest.slice(at, nl - 1) : rest.slice(at, nl);
      at = nl + 1;
    }
    rest = rest.slice(at);
    if (end && rest !== "") {
      yield rest.endsWith("\r") ? rest.slice(0, -1) : rest;
      rest = "";
    }
  };
  for await (const chunk of input) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    if (decoder === null) {
      // the mark is read from the first three bytes, however the stream is cut
      head = Buffer.concat([head, bytes]);
      if (head.length < 3) continue;
      const { encoding, bom } = sniffTextEncoding(head);
      decoder = new TextDecoder(encoding, { ignoreBOM: true });
      yield* split(decoder.decode(head.subarray(bom), { stream: true }), false);
      continue;
    }
    yield* split(decoder.decode(bytes, { stream: true }), false);
  }
  if (decoder === null) {
    const { encoding, bom } = sniffTextEncoding(head);
    decoder = new TextDecoder(encoding, { ignoreBOM: true });
    yield* split(decoder.decode(head.subarray(bom), { stream: true }), false);
  }
  yield* split(decoder.decode(), true);
}
