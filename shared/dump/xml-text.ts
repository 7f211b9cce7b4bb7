/**
 * Decompressed dump bytes → text for the XML parser. MediaWiki exports are UTF-8, but real
 * samples exist in UTF-16 (the bgwiki test file), so the encoding is taken from the byte order
 * mark (or the UTF-16 pattern of a leading "<") instead of being assumed.
 */

import { TextDecoder } from "node:util";

export type XmlEncoding = "utf-8" | "utf-16le" | "utf-16be";

export interface TextChunk {
  text: string;
  /** raw input bytes consumed to produce this chunk (for the dump.bytes counter) */
  bytes: number;
}

/** Encoding from the first bytes; at least 4 bytes should be given when the input has them. */
export function detectXmlEncoding(head: Uint8Array): XmlEncoding {
  const [a, b] = head;
  if (a === 0xff && b === 0xfe) return "utf-16le";
  if (a === 0xfe && b === 0xff) return "utf-16be";
  // No BOM: "<" followed / preceded by a zero byte is UTF-16 in the other order.
  if (a === 0x3c && b === 0x00) return "utf-16le";
  if (a === 0x00 && b === 0x3c) return "utf-16be";
  return "utf-8";
}

/** Encoded length of a decoded string prefix, to turn parser positions into byte offsets. */
export function encodedLength(text: string, encoding: XmlEncoding): number {
  return encoding === "utf-8" ? Buffer.byteLength(text, "utf8") : text.length * 2;
}

export interface XmlTextSource {
  /** known once the first chunk has been read */
  encoding(): XmlEncoding;
  /** bytes taken by a byte order mark at the start (it is not part of any text chunk) */
  bomBytes(): number;
  chunks: AsyncGenerator<TextChunk>;
}

/** Streams text decoded with the detected encoding; string inputs pass through unchanged. */
export function decodeXmlText(input: AsyncIterable<Buffer | Uint8Array | string> | Iterable<Buffer | Uint8Array | string>): XmlTextSource {
  let encoding: XmlEncoding = "utf-8";
  let bom = 0;
  async function* chunks(): AsyncGenerator<TextChunk> {
    let decoder: TextDecoder | null = null;
    let head: Uint8Array | null = null;
    for await (const chunk of input) {
      if (typeof chunk === "string") {
        if (chunk.length > 0) yield { text: chunk, bytes: Buffer.byteLength(chunk, "utf8") };
        continue;
      }
      let bytes: Uint8Array = chunk;
      if (decoder === null) {
        // Wait for 4 bytes so a BOM split across chunks is still seen.
        head = head === null ? bytes : Buffer.concat([head, bytes]);
        if (head.length < 4) continue;
        bytes = head;
        head = null;
        decoder = startDecoder(bytes);
      }
      const text = decoder.decode(bytes, { stream: true });
      if (text.length > 0 || bytes.length > 0) yield { text, bytes: bytes.length };
    }
    if (decoder === null && head !== null) decoder = startDecoder(head);
    if (decoder !== null) {
      const text = decoder.decode(head ?? new Uint8Array(0));
      if (text.length > 0 || head !== null) yield { text, bytes: head?.length ?? 0 };
    }
  }
  function startDecoder(first: Uint8Array): TextDecoder {
    encoding = detectXmlEncoding(first);
    const [a, b, c] = first;
    bom = encoding === "utf-8" ? (a === 0xef && b === 0xbb && c === 0xbf ? 3 : 0) : (a === 0xff && b === 0xfe) || (a === 0xfe && b === 0xff) ? 2 : 0;
    // TextDecoder drops the BOM itself (ignoreBOM: false).
    return new TextDecoder(encoding);
  }
  return { encoding: () => encoding, bomBytes: () => bom, chunks: chunks() };
}
