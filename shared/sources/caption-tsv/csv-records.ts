/**
 * RFC 4180 CSV records with their byte offsets: fields split at commas, a field in double quotes
 * may hold commas, doubled quotes and line breaks; CRLF or LF ends a record. Lenient where writers
 * are: a quote inside an unquoted field is a character, text after a closing quote joins the field.
 * A record longer than MAX_LINE_BYTES (a quote left open over many lines, a line without an end), or
 * a quote left open at the end of the file, is one counted record and the reading goes on at the line
 * after that record's first, so a stray quote costs one record, not the rest of the file.
 * Records are found by reading from a record start. The planner finds them once (csvCuts: the same
 * reading, only the records' ends, at the speed of Buffer.indexOf) to cut a file into shards at record
 * starts; a shard reads exactly its range from there, the records and drops the whole file's reading
 * has there.
 */
import { MAX_LINE_BYTES } from "./tsv-lines.ts";

export type CsvDrop = { offset: number; drop: "unterminated_quote" | "line_too_long" };
export type CsvRecord = { offset: number; fields: string[] } | CsvDrop;

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

/** A record read from `at`: where the next starts, or "more" when the bytes end first (final: the file does). */
type Parsed<R extends { next: number }> = R | "more" | "unterminated";
type RecordParser<R extends { next: number }> = (buf: Buffer, at: number, final: boolean) => Parsed<R>;

/** The unquoted text of buf[from, to), less a CR ending the record (before its LF, or at the end of the file). */
function plain(buf: Buffer, from: number, to: number, charset: FieldCharset): string {
  return buf.toString(charset, from, to > from && (to === buf.length || buf[to] === LF) && buf[to - 1] === CR ? to - 1 : to);
}

/** How fields are decoded: UTF-8, or Latin-1 (a character a byte) for a reader that decodes them itself (line-parsers.ts's csvLine). */
export type FieldCharset = "utf8" | "latin1";

/** The record starting at buf[at]: its fields and where the next starts. */
export function recordAt(buf: Buffer, at: number, final: boolean, charset: FieldCharset = "utf8"): Parsed<{ fields: string[]; next: number }> {
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
      value = Buffer.concat(pieces).toString(charset);
    }
    let k = pos;
    while (k < buf.length && buf[k] !== COMMA && buf[k] !== LF) k++;
    if (k === buf.length && !final) return "more";
    value += plain(buf, pos, k, charset);
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

/** buf.indexOf of a quote, the last answer remembered: a file with few quotes costs one search per buffer, not per record. */
function quoteFinder(): (buf: Buffer, at: number) => number {
  let cached: Buffer | null = null;
  let from = 0;
  let found = -1;
  return (buf, at) => {
    if (buf !== cached || at < from || (found >= 0 && at > found)) {
      cached = buf;
      from = at;
      found = buf.indexOf(QUOTE, at);
    }
    return found;
  };
}

/**
 * recordAt's record ends (the same `next`, "more" and "unterminated" for any bytes) without its
 * fields: a quote opens a field only right after a comma or at the record's start, so a record's end
 * is its first line break outside such fields, found with indexOf.
 */
export function recordEnds(quoteFrom = quoteFinder()): RecordParser<{ next: number }> {
  return (buf, at, final) => {
    let pos = at;
    let quoted = buf[pos] === QUOTE;
    for (;;) {
      if (quoted) {
        for (let j = pos + 1; ; ) {
          const q = quoteFrom(buf, j);
          if (q < 0) return final ? "unterminated" : "more";
          if (q + 1 >= buf.length && !final) return "more";
          if (buf[q + 1] === QUOTE) {
            j = q + 2;
            continue;
          }
          pos = q + 1;
          break;
        }
      }
      // the unquoted rest of the record, unless a field after a comma opens with a quote before its line break
      const lf = buf.indexOf(LF, pos);
      let q = quoteFrom(buf, pos);
      while (q >= 0 && (lf < 0 || q < lf) && buf[q - 1] !== COMMA) q = quoteFrom(buf, q + 1);
      if (q >= 0 && (lf < 0 || q < lf)) {
        pos = q;
        quoted = true;
        continue;
      }
      if (lf >= 0) return { next: lf + 1 };
      return final ? { next: buf.length } : "more";
    }
  };
}

/**
 * recordEnds, but the lines before the next quote (each a record of its own, all within
 * `maxRecordBytes` of `at`) are one step: `run` holds their bytes, where a record starts after each
 * line break. A file's quoted records cost a step each, the rest about one search per run.
 */
export function recordRuns(maxRecordBytes = MAX_LINE_BYTES): RecordParser<{ next: number; run?: Buffer }> {
  const quoteFrom = quoteFinder();
  const one = recordEnds(quoteFrom);
  return (buf, at, final) => {
    if (buf[at] !== QUOTE) {
      const q = quoteFrom(buf, at);
      const limit = Math.min(q < 0 ? buf.length : q, at + maxRecordBytes);
      const lf = limit > at ? buf.lastIndexOf(LF, limit - 1) : -1;
      if (lf >= at) return { next: lf + 1, run: buf.subarray(at, lf + 1) };
    }
    return one(buf, at, final);
  };
}

/** The complete records of `buf` from `parse`, each handed to `emit` with its offset in `buf` (the last left out unless `final`); where the reading stopped. */
function eachRecord<R extends { next: number }>(buf: Buffer, final: boolean, parse: RecordParser<R>, emit: (offset: number, r: R | null) => void, max = Infinity): number {
  let from = 0;
  for (let n = 0; from < buf.length && n < max; n++) {
    const r = parse(buf, from, final);
    if (r === "more") break;
    if (r === "unterminated") {
      emit(from, null);
      const nl = buf.indexOf(LF, from);
      if (nl < 0) return buf.length;
      from = nl + 1;
      continue;
    }
    emit(from, r);
    from = r.next;
  }
  return from;
}

/** The complete records of `buf` (a file's head: the last record is left out unless `final`). */
export function recordsOf(buf: Buffer, final: boolean, max = Infinity): CsvRecord[] {
  const out: CsvRecord[] = [];
  eachRecord(buf, final, recordAt, (offset, r) => out.push(r ? { offset, fields: r.fields } : { offset, drop: "unterminated_quote" }), max);
  return out;
}

/**
 * A file's records as its bytes arrive, from a record start (`start`, the file offset of the first
 * byte): each handed to `emit` with its file offset (null: a counted drop). A record is judged on
 * itself, whatever the chunks: one longer than `maxRecordBytes` is a drop wherever its end falls.
 */
export class RecordSplitter<R extends { next: number }> {
  private pending: Buffer = Buffer.alloc(0);
  /** the offset of a line over the bound whose rest is being passed over (up to its LF) */
  private skipping: number | null = null;

  constructor(
    private readonly parse: RecordParser<R>,
    private readonly emit: (offset: number, r: R | CsvDrop) => void,
    private pos = 0, // file offset of pending[0]
    private readonly maxRecordBytes = MAX_LINE_BYTES,
  ) {}

  /** The file offset the bytes held start at, and how many are held (a record not finished yet). */
  get offset(): number {
    return this.pos;
  }
  get held(): number {
    return this.pending.length;
  }

  /** The file's next bytes. */
  push(chunk: Buffer): void {
    this.refill(this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]));
  }

  /** The file's bytes from `offset` on, those held and more (a ranged read from there spares joining them). */
  refill(bytes: Buffer): void {
    if (bytes.length < this.pending.length) throw new Error("a refill holds fewer bytes than are held");
    let pending = bytes;
    let from = 0;
    if (this.skipping !== null) {
      const nl = pending.indexOf(LF);
      if (nl < 0) {
        this.pos += pending.length;
        this.pending = Buffer.alloc(0);
        return;
      }
      this.emit(this.skipping, { offset: this.skipping, drop: "line_too_long" });
      this.skipping = null;
      from = nl + 1;
    }
    const max = this.maxRecordBytes;
    while (from < pending.length) {
      const r = this.parse(pending, from, false);
      if (r === "unterminated") throw new Error("unreachable: not final");
      if (r !== "more" && r.next - from <= max) {
        this.emit(this.pos + from, r);
        from = r.next;
        continue;
      }
      if (r === "more" && pending.length - from <= max) break;
      // over the bound: a quote left open over many lines, or one line without an end
      const nl = pending.indexOf(LF, from);
      if (nl >= 0 && nl - from <= max) {
        this.emit(this.pos + from, { offset: this.pos + from, drop: "unterminated_quote" });
        from = nl + 1;
        continue;
      }
      if (nl >= 0) {
        this.emit(this.pos + from, { offset: this.pos + from, drop: "line_too_long" });
        from = nl + 1;
        continue;
      }
      this.skipping = this.pos + from;
      from = pending.length;
    }
    this.pos += from;
    pending = pending.subarray(from);
    this.pending = pending;
  }

  /** The file's end: its last records (at most the bound's bytes are left). */
  end(): void {
    if (this.skipping !== null) {
      this.emit(this.skipping, { offset: this.skipping, drop: "line_too_long" });
      this.skipping = null;
      return;
    }
    const pos = this.pos;
    eachRecord(this.pending, true, this.parse, (offset, r) => this.emit(pos + offset, r ?? { offset: pos + offset, drop: "unterminated_quote" }));
    this.pos += this.pending.length;
    this.pending = Buffer.alloc(0);
  }
}

/** Every record of a file's bytes read from a record start (`start`: the file offset of the first chunk's first byte). */
export async function* csvRecords(chunks: AsyncIterable<Buffer>, maxRecordBytes = MAX_LINE_BYTES, start = 0, charset: FieldCharset = "utf8"): AsyncGenerator<CsvRecord> {
  const out: CsvRecord[] = [];
  const splitter = new RecordSplitter((buf: Buffer, at: number, final: boolean) => recordAt(buf, at, final, charset), (offset, r) => out.push("drop" in r ? r : { offset, fields: r.fields }), start, maxRecordBytes);
  for await (const chunk of chunks) {
    splitter.push(chunk);
    yield* out.splice(0);
  }
  splitter.end();
  yield* out.splice(0);
}

/** Reads bytes [start, end) of a file (a local file, a bucket's ranged read). */
export type RangeRead = (start: number, end: number) => Promise<Buffer>;

/** The bytes of one read of the planner's scan for shards of `step` bytes: about a shard, at most 8 MiB (a bucket's ranged read each). */
export const csvScanBytes = (step: number): number => Math.min(8 << 20, Math.max(64 << 10, step));

/**
 * Where a CSV file of `size` bytes is cut into shards of about `step` bytes: the first record start at
 * or after each step past the last cut, found by reading the file once in ranges of `chunkBytes` (never
 * the whole file held) as the shards read it. Empty: one shard.
 */
export async function csvCuts(read: RangeRead, size: number, step: number, chunkBytes = csvScanBytes(step), maxRecordBytes = MAX_LINE_BYTES): Promise<number[]> {
  const cuts: number[] = [];
  const stride = Math.max(1, step);
  let next = stride;
  const splitter = new RecordSplitter(recordRuns(maxRecordBytes), (offset, r) => {
    if (offset >= next) {
      cuts.push(offset);
      next = offset + stride;
    }
    if ("drop" in r || !r.run) return;
    // the run's records: the first starting at or past each target
    for (let lf = r.run.indexOf(LF, next - offset - 1); lf >= 0 && lf + 1 < r.run.length; lf = r.run.indexOf(LF, next - offset - 1)) {
      cuts.push(offset + lf + 1);
      next = offset + lf + 1 + stride;
    }
  }, 0, maxRecordBytes);
  // each read from where the unfinished record starts: the bytes are not copied to join a record cut by a read
  for (let end = 0; end < size; ) {
    const to = Math.min(size, splitter.offset + splitter.held + chunkBytes);
    const buf = await read(splitter.offset, to);
    if (buf.length <= splitter.held) break; // the file is shorter than planned: its shards say so when they read it
    splitter.refill(buf);
    end = splitter.offset + splitter.held;
  }
  splitter.end();
  return cuts;
}
