/**
 * Decoders of line-per-line text in an encoding a user names (core/encoding-label.ts checks the name).
 */
import { TextDecoder } from "node:util";
import { decodeWindows1252 } from "./windows-1252.ts";

export { lineEncoding } from "../core/encoding-label.ts";

/**
 * A decoder of one line's bytes in `encoding` (a canonical name): its text, or null where a byte has
 * no character in it (never U+FFFD, which would be silent loss). windows-1252 as WHATWG decodes it
 * (windows-1252.ts: Node's decoder gives C1 controls for 0x80–0x9F); UTF-8 strictly.
 */
export function lineDecoder(encoding: string): (bytes: Uint8Array) => string | null {
  if (encoding === "windows-1252") return decodeWindows1252;
  const decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: true });
  return (bytes) => {
    try {
      return decoder.decode(bytes);
    } catch {
      return null;
    }
  };
}
