/**
 * RFC 4180 CSV records with their byte offsets: fields split at commas, a field in double quotes
 * may hold commas, doubled quotes and line breaks; CRLF or LF ends a record. Lenient where writers
 * are: a quote inside an unquoted field is a character, text after a closing quote joins the field.
 * A quote left open (at the end of the file, or past MAX_LINE_BYTES) is one counted record and the
 * reading goes on at the line after that record's first, so a stray quote costs one record, not the
 * rest of the file. Records are only found by reading from the start: a CSV file is one shard.
 */
import { MAX_LINE_BYTES } from "./tsv-lines.ts";

export type CsvRecord = { offset: number; fields: string[] } | { offset: number; drop: "unterminated_quote" | "line_too_long" };

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

type Parsed = { fields: string[]; next: number } | "more" | "unterminated";

/** The unquoted text of buf[from, to), less a CR ending the record (before its LF, or at the end of the file). */
function plain(buf: Buffer, from: number, to: number): string {
  return buf.toString("utf8", from, to > from && (to === buf.length || buf[to] === LF) && buf[to - 1] === CR ? to - 1 : to);
}

/** The record starting at buf[at]: its fields and where the next starts; "more" when the bytes end first (final: the file does). */
export function recordAt(buf: Buffer, at: number, final: boolean): Parsed {
  const fields: string[] = [];
  let pos = at;
  for (;;) {
    let value = "";
    if (buf[pos] === QUOTE) {
      const pieces: Buffer[] = [];
      let seg = pos + 1;
      for (let j = seg; ; ) {
        const q = buf.indexOf(QUOTE, j);
        if (q < 0) return final ? "unterminated" : "more";
        if (q + 1 >= buf.length && !final) return "more"; // a doubled quote may be cut
        if (buf[q + 1] === QUOTE) {
          pieces.push(buf.subarray(seg, q + 1));
          j = seg = q + 2;
          continue;
        }
        pieces.push(buf.subarray(seg, q));
        pos = q + 1;
        break;
      }
      value = Buffer.concat(pieces).toString("utf8");
    }
    let k = pos;
    while (k < buf.length && buf[k] !== COMMA && buf[k] !== LF) k++;
    if (k === buf.length && !final) return "more";
    value += plain(buf, pos, k);
    fields.push(value);
    if (k === buf.length) return { fields, next: k };
    if (buf[k] === LF) return { fields, next: k + 1 };
    pos = k + 1;
    if (pos === buf.length && final) {
      fields.push(""); // a comma ending the file: an empty last field
      return { fields, next: pos };
    }
  }
}

/** The complete records of `buf` (a file's head: the last record is left out unless `final`). */
export function recordsOf(buf: Buffer, final: boolean, max = Infinity): CsvRecord[] {
  const out: CsvRecord[] = [];
  let from = 0;
  while (from < buf.length && out.length < max) {
    const r = recordAt(buf, from, final);
    if (r === "more") break;
    if (r === "unterminated") {
      out.push({ offset: from, drop: "unterminated_quote" });
      const nl = buf.indexOf(LF, from);
      if (nl < 0) break;
      from = nl + 1;
      continue;
    }
    out.push({ offset: from, fields: r.fields });
    from = r.next;
  }
  return out;
}

/** Every record of a file, from its bytes read from the start. */
export async function* csvRecords(chunks: AsyncIterable<Buffer>, maxRecordBytes = MAX_LINE_BYTES): AsyncGenerator<CsvRecord> {
  let pending: Buffer = Buffer.alloc(0);
  let pos = 0; // file offset of pending[0]
  // the offset of a line over the bound whose rest is being passed over (up to its LF)
  let skipping: number | null = null;
  for await (const chunk of chunks) {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let from = 0;
    if (skipping !== null) {
      const nl = pending.indexOf(LF);
      if (nl < 0) {
        pos += pending.length;
        pending = Buffer.alloc(0);
        continue;
      }
      yield { offset: skipping, drop: "line_too_long" };
      skipping = null;
      from = nl + 1;
    }
    for (;;) {
      if (from >= pending.length) break;
      const r = recordAt(pending, from, false);
      if (r === "unterminated") throw new Error("unreachable: not final");
      if (r !== "more") {
        yield { offset: pos + from, fields: r.fields };
        from = r.next;
        continue;
      }
      if (pending.length - from <= maxRecordBytes) break;
      // over the bound: a quote left open over many lines, or one line without an end
      const nl = pending.indexOf(LF, from);
      if (nl >= 0 && nl - from <= maxRecordBytes) {
        yield { offset: pos + from, drop: "unterminated_quote" };
        from = nl + 1;
        continue;
      }
      skipping = pos + from;
      if (nl >= 0) {
        yield { offset: skipping, drop: "line_too_long" };
        skipping = null;
        from = nl + 1;
        continue;
      }
      from = pending.length;
      break;
    }
    pos += from;
    pending = pending.subarray(from);
  }
  if (skipping !== null) {
    yield { offset: skipping, drop: "line_too_long" };
    return;
  }
  for (const r of recordsOf(pending, true)) yield { ...r, offset: pos + r.offset };
}
