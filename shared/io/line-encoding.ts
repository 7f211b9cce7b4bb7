/**
 * An encoding a user names for line-per-line text (a caption list, `score`'s stdin): any WHATWG label
 * the runtime's TextDecoder accepts ("mac", "latin1", "shift_jis"), by its canonical name. The lines
 * are split at LF bytes before they are decoded, so UTF-16 (whose LF is two bytes, one of them NUL)
 * is refused; every other WHATWG encoding keeps 0x0A for LF alone.
 */
import { TextDecoder } from "node:util";
import { decodeWindows1252 } from "./windows-1252.ts";

/** The canonical name of `label` (`macintosh` for "mac"), or why it cannot name a line encoding. */
export function lineEncoding(label: string): { encoding: string } | { error: string } {
  let encoding: string;
  try {
    encoding = new TextDecoder(label).encoding;
  } catch {
    return { error: `"${label}" is not an encoding paracap can read (a WHATWG label TextDecoder accepts, e.g. macintosh, windows-1252, iso-8859-2, shift_jis)` };
  }
  if (encoding === "utf-16le" || encoding === "utf-16be") return { error: `"${label}" is UTF-16, whose lines are not split at LF bytes: convert it to UTF-8 (e.g. iconv -f ${encoding} -t utf-8)` };
  return { encoding };
}

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
