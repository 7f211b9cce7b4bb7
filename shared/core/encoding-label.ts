/**
 * The encoding a user names for line-per-line text (a caption list, `score`'s stdin): any WHATWG label
 * the runtime's TextDecoder accepts ("mac", "latin1", "shift_jis"), by its canonical name. The lines
 * are split at LF bytes before they are decoded, so UTF-16 (whose LF is two bytes, one of them NUL)
 * is refused; every other WHATWG encoding keeps 0x0A for LF alone. Here, below the config that checks
 * it; the decoders are io/line-encoding.ts's.
 */
import { TextDecoder } from "node:util";

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
