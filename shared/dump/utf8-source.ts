/**
 * Decompressed dump input → UTF-8 bytes for the page scanner, with the map back to input offsets.
 * MediaWiki exports are UTF-8 and pass through untouched (a BOM is dropped); UTF-16 samples exist
 * (the bgwiki test file) and are transcoded, the encoding taken from the byte order mark or the
 * UTF-16 pattern of a leading "<" (see detectXmlEncoding). Text chunks are encoded as UTF-8.
 */
import { TextDecoder } from "node:util";
import { detectXmlEncoding, type XmlEncoding } from "./xml-text.ts";

export interface Utf8Chunk {
  /** UTF-8 bytes of the next part of the document */
  bytes: Buffer;
  /** input bytes consumed to produce them (for the dump.bytes counter) */
  raw: number;
}

export interface Utf8Source {
  chunks: AsyncGenerator<Utf8Chunk>;
  /** known once the first chunk has been read */
  encoding(): XmlEncoding;
  /** Input byte offset of a UTF-8 offset (counted from the first byte of the first chunk). */
  originalOffset(utf8Offset: number): number;
  /** Offsets before this one will not be asked for again (lets a UTF-16 source drop its map). */
  forget(utf8Offset: number): void;
}

const EMPTY = Buffer.alloc(0);

/** A transcoded UTF-16 chunk: where it starts in both encodings, and its text to map within it. */
interface Segment {
  u8: number;
  units: number;
  text: string;
}

export function utf8Source(input: AsyncIterable<Buffer | Uint8Array | string> | Iterable<Buffer | Uint8Array | string>): Utf8Source {
  let encoding: XmlEncoding = "utf-8";
  let bom = 0;
  let u8Total = 0;
  let unitsTotal = 0;
  const segments: Segment[] = [];

  async function* chunks(): AsyncGenerator<Utf8Chunk> {
    let decoder: TextDecoder | null = null; // UTF-16 only
    let started = false;
    let head: Buffer | null = null;
    let carry = ""; // a high surrogate that ended a string chunk
    for await (const chunk of input) {
      if (typeof chunk === "string") {
        if (chunk.length === 0) continue;
        let text = carry + chunk;
        carry = "";
        const last = text.charCodeAt(text.length - 1);
        if (last >= 0xd800 && last <= 0xdbff) {
          carry = text.slice(-1);
          text = text.slice(0, -1);
        }
        const bytes = Buffer.from(text, "utf8");
        u8Total += bytes.length;
        yield { bytes, raw: Buffer.byteLength(chunk, "utf8") };
        continue;
      }
      let bytes: Buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      if (!started) {
        // Wait for 4 bytes so a BOM split across chunks is still seen.
        head = head === null ? bytes : Buffer.concat([head, bytes]);
        if (head.length < 4) continue;
        bytes = head;
        head = null;
        started = true;
        decoder = start(bytes);
        if (decoder === null) {
          yield { bytes: bytes.subarray(bom), raw: bytes.length };
          u8Total += bytes.length - bom;
          continue;
        }
      }
      if (decoder === null) {
        u8Total += bytes.length;
        yield { bytes, raw: bytes.length };
      } else {
        yield { bytes: transcode(decoder.decode(bytes, { stream: true })), raw: bytes.length };
      }
    }
    if (carry !== "") {
      const bytes = Buffer.from(carry, "utf8");
      u8Total += bytes.length;
      yield { bytes, raw: 0 };
    }
    if (!started && head !== null) {
      decoder = start(head);
      if (decoder === null) {
        u8Total += head.length - bom;
        yield { bytes: head.subarray(bom), raw: head.length };
        return;
      }
    }
    if (decoder !== null) {
      const rest = decoder.decode(head ?? EMPTY);
      yield { bytes: transcode(rest), raw: head?.length ?? 0 };
    }
  }

  /** Detects the encoding; returns a decoder for UTF-16 input, null for UTF-8. */
  function start(first: Buffer): TextDecoder | null {
    encoding = detectXmlEncoding(first);
    const [a, b, c] = first;
    if (encoding === "utf-8") {
      bom = a === 0xef && b === 0xbb && c === 0xbf ? 3 : 0;
      return null;
    }
    bom = (a === 0xff && b === 0xfe) || (a === 0xfe && b === 0xff) ? 2 : 0;
    // TextDecoder drops the BOM itself (ignoreBOM: false).
    return new TextDecoder(encoding);
  }

  function transcode(text: string): Buffer {
    if (text.length === 0) return EMPTY;
    const bytes = Buffer.from(text, "utf8");
    segments.push({ u8: u8Total, units: unitsTotal, text });
    u8Total += bytes.length;
    unitsTotal += text.length;
    return bytes;
  }

  function originalOffset(p: number): number {
    if (encoding === "utf-8") return bom + p;
    let i = segments.length - 1;
    while (i > 0 && segments[i]!.u8 > p) i--;
    const seg = segments[i];
    if (seg === undefined) return bom + 2 * unitsTotal;
    const within = Buffer.from(seg.text, "utf8").subarray(0, Math.max(0, p - seg.u8)).toString("utf8").length;
    return bom + 2 * (seg.units + Math.min(within, seg.text.length));
  }

  function forget(p: number): void {
    let drop = 0;
    while (drop + 1 < segments.length && segments[drop + 1]!.u8 <= p) drop++;
    if (drop > 0) segments.splice(0, drop);
  }

  return { chunks: chunks(), encoding: () => encoding, originalOffset, forget };
}
