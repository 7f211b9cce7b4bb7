/**
 * Repairs for kept XML fields that a dump should never hold but a damaged or hostile one can: bad
 * entities and invalid UTF-8. Only called once a cheap check (checkCharBytes, isUtf8) has found
 * something, so well-formed dumps never pay for them. Each repair is local: one entity or one byte
 * sequence, never the rest of the shard.
 */
import { checkCharBytes } from "./revision-text.ts";

/** U+FFFD REPLACEMENT CHARACTER in UTF-8. */
const REPLACEMENT = Buffer.from([0xef, 0xbf, 0xbd]);
const AMP = 0x26;

/**
 * Every entity checkCharBytes rejects (NUL, a surrogate, out of range, a name XML does not define, a
 * bare "&") becomes one U+FFFD; the caption filters drop text holding one (`replacement_character`),
 * so a repaired caption is counted, never paired. Returns the bytes and how many entities were replaced.
 */
export function replaceBadEntities(raw: Buffer): { bytes: Buffer; replaced: number } {
  const out: Buffer[] = [];
  let replaced = 0;
  let rest = raw;
  for (;;) {
    const problem = checkCharBytes(rest);
    if (problem === null) break;
    const at = problem.index;
    // the bad entity runs to its ";" when one closes it nearby, else it is the "&" alone
    const semi = rest.indexOf(0x3b, at + 1);
    const next = rest.indexOf(AMP, at + 1);
    const end = semi >= 0 && semi - at < 32 && (next < 0 || semi < next) ? semi + 1 : at + 1;
    out.push(rest.subarray(0, at), REPLACEMENT);
    rest = rest.subarray(end);
    replaced++;
  }
  if (replaced === 0) return { bytes: raw, replaced };
  out.push(rest);
  return { bytes: Buffer.concat(out), replaced };
}

/**
 * Bytes that are not valid UTF-8, percent-encoded ("%E9"): the text stays readable and its bytes
 * recoverable. Unambiguous in a page title: MediaWiki refuses titles holding a "%XX" sequence.
 */
export function percentEncodeInvalidUtf8(b: Buffer): Buffer {
  const out: number[] = [];
  let i = 0;
  while (i < b.length) {
    const len = validSequenceLength(b, i);
    if (len > 0) {
      for (let k = 0; k < len; k++) out.push(b[i + k]!);
      i += len;
    } else {
      for (const c of `%${b[i]!.toString(16).toUpperCase().padStart(2, "0")}`) out.push(c.charCodeAt(0));
      i++;
    }
  }
  return Buffer.from(out);
}

/** Length of the well-formed UTF-8 sequence at b[i] (Unicode Table 3-7), or 0. */
function validSequenceLength(b: Buffer, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((c >= 0xe1 && c <= 0xec) || c === 0xee || c === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}
