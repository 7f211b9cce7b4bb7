/**
 * Streaming WARC reading (WARC/1.0 and 1.1, `.warc` and per-record `.warc.gz`) with webrecorder's
 * warcio for record and HTTP header parsing. A gzip member of plainly written records (nearly every
 * member of a real crawl) is parsed synchronously instead by member-records.ts, which gives exactly
 * what warcio gives or declines; warcio stays the reference and reads every other member and every
 * uncompressed file (`parser: "warcio"` reads everything with it). What this layer adds is what a crawl of the open web
 * needs: file offsets for every record, bounds on what a record may make us hold (headers,
 * payload), and recovery: a damaged record is counted with its offset and reading resumes at the
 * next record (the next `WARC/1.x` line that checks out, in a plain file or inside a gzip member; after
 * damaged gzip data, the next member that decodes to a WARC record).
 *
 * Only `response` and `resource` records are content; `revisit` records never are (their payload,
 * if any, is a copy of an earlier capture), but a reader may ask for them (`revisits`) with what
 * names the capture they repeat; request, metadata, warcinfo and conversion records are counted and
 * skipped.
 */
import type { WARCRecord } from "warcio";
import type { Counters } from "../../core/counters.ts";
import { WARC_DAMAGE_SAMPLE, warcCounter, warcSkippedCounter } from "../../core/counter-names.ts";
import { ByteCursor, ByteSourceError } from "./byte-cursor.ts";
import { GzipMemberError, continuingMember, fromInflated, inflateHeldMember, inflateMember, inflateWholeMember, isGzipMagic, seekGzipMember } from "./gzip-member.ts";
import { InflatedFile } from "./inflated-file.ts";
import { claimedNext, overrunRecord, probeBytes, seekPlainRecord, swallowedRecord, type ProbeBytes } from "./plain-record-seek.ts";
import { forEachMap, httpStatus, parseMemberRecords, type ParsedRecord } from "./member-records.ts";

/** warcio (~70 ms of CPU to load) loads at the first WARC read: a Wikipedia run never reads one. */
let warcioLoading: Promise<{ warcio: typeof import("warcio"); Parser: ReturnType<typeof quietParser> }> | null = null;
const loadWarcio = () => (warcioLoading ??= import("warcio").then((warcio) => ({ warcio, Parser: quietParser(warcio) })));

const EMPTY = new Uint8Array(0);
const utf8 = new TextDecoder();

/**
 * warcio's WARCParser, saying nothing on the console and never spinning: the one thing it prints
 * (bytes left after a record where a blank line should be: its Content-Length too small,
 * "Content-Length Too Small" on stderr) is told to `onRemainder` with the raw offset of those bytes,
 * so the reader counts it as damage with its file offset. `readToNextRecord` is warcio 2.4's own
 * (src/lib/warcparser.ts) with three changes: the console.warn replaced; the rest of the previous
 * record skipped by `skipRest` (warcio's skipFully loops forever on a record cut short); and blank
 * lines of any kind (a stray LF, a space, CR CR LF) before a record, including the first, are
 * passed over, where warcio takes the first one that is not CRLF for the end of the file and drops
 * every record after it without a word.
 *
 * A header block (WARC's or HTTP's) whose first line ends in LF alone is read line by line to its
 * blank line, as Python's warcio reads every block: warcio's own reader looks for CRLF CRLF and runs
 * on into the body or the next record. Such a record sets `lfHeaders`.
 */
function quietParser(warcio: typeof import("warcio")) {
  return class QuietParser extends warcio.WARCParser {
    onRemainder: ((rawOffset: number) => Promise<void>) | null = null;
    /** whether the record parsed last had a header block of LF-ended lines */
    lfHeaders = false;
    /** where the parser is, for the members that may go on with a record (see `joinMembers`) */
    frame: RecordFrame = { inRecord: false, joined: false };

    /** warcio 2.4's parse, its header blocks read by `headerBlock` */
    override async parse(): Promise<WARCRecord | null> {
      this.lfHeaders = false;
      const first = await this.readToNextRecord();
      const headersParser = new warcio.StatusAndHeadersParser();
      const warcHeaders = await this.headerBlock(headersParser, first);
      if (!warcHeaders) return null;
      this._warcHeadersLength = this._reader.getReadOffset();
      const record = new warcio.WARCRecord({ warcHeaders, reader: this._initRecordReader(warcHeaders) });
      this._record = record;
      const type = record.warcType;
      if (this._parseHttp && (type === "response" || type === "request" || (type === "revisit" && record.warcContentLength > 0))) {
        await this._addHttpHeaders(record, headersParser);
      }
      return record;
    }

    override async _addHttpHeaders(record: WARCRecord, headersParser: InstanceType<typeof warcio.StatusAndHeadersParser>): Promise<void> {
      record.httpHeaders = await this.headerBlock(headersParser, await this._reader.readlineRaw());
      const headersLen = this._reader.getReadOffset() - this._warcHeadersLength;
      if (record.reader instanceof warcio.LimitReader) record.reader.setLimitSkip(record.warcContentLength - headersLen);
    }

    /** The header block whose first line is `first`: warcio's read, or line by line when that line ends in LF alone. */
    async headerBlock(headersParser: InstanceType<typeof warcio.StatusAndHeadersParser>, first: Uint8Array | null) {
      const firstLine = first ? utf8.decode(first) : "";
      if (!first || !isLfOnlyLine(first) || !firstLine.trim()) return headersParser.parse(this._reader, { firstLine, headersClass: this._headersClass });
      this.lfHeaders = true;
      // the block's lines with CRLF ends, parsed by warcio from them: its header semantics (folded
      // lines, Latin-1 values) stay warcio's
      const lines: Uint8Array[] = [];
      for (let line = await this._reader.readlineRaw(); line && !isLineEnd(line); line = await this._reader.readlineRaw()) {
        lines.push(withCrlf(line));
      }
      lines.push(CRLF);
      return headersParser.parse(new warcio.AsyncIterReader([Buffer.concat(lines)], null), { firstLine, headersClass: this._headersClass });
    }
    override async readToNextRecord(): Promise<Uint8Array | null> {
      if (!this._reader) return EMPTY;
      if (this._record) {
        await skipRest(this._record);
        this.frame.inRecord = false;
        const rest = await this._reader.readlineRaw();
        if (rest) {
          let lineLen = rest.byteLength - 1;
          // a line that starts with WARC/: already the next record (its line ended by CRLF or LF)
          if ((lineLen === 9 || (lineLen === 8 && isLfOnlyLine(rest))) && utf8.decode(rest).startsWith("WARC/")) return rest;
          while (lineLen > 0) {
            const value = rest[lineLen - 1];
            if (value !== 10 && value !== 13) break;
            lineLen--;
          }
          if (lineLen && !isBlankLine(rest)) await this.onRemainder?.(this._reader.getRawOffset() - rest.byteLength);
        }
      }
      let nextline = await this._reader.readlineRaw();
      while (nextline && isBlankLine(nextline)) nextline = await this._reader.readlineRaw();
      this._offset = this._reader.getRawOffset() - (nextline?.length ?? 0);
      this.frame.inRecord = nextline !== null;
      this.frame.joined = false;
      return nextline ?? EMPTY;
    }
  };
}

const CRLF = Buffer.from("\r\n");

/** Whether the parser is inside a record (its first line read, its content not all read), and whether that record was joined across members. */
interface RecordFrame {
  inRecord: boolean;
  joined: boolean;
}

/** A line ended by an LF without its CR. */
function isLfOnlyLine(line: Uint8Array): boolean {
  return line[line.length - 1] === 10 && line[line.length - 2] !== 13;
}

/** A line of nothing but its end (CRs and the LF): the end of a header block. */
function isLineEnd(line: Uint8Array): boolean {
  for (let i = 0; i < line.length; i++) if (line[i] !== 10 && line[i] !== 13) return false;
  return true;
}

/** The line with CRLF for its end (LF, CRLF or none). */
function withCrlf(line: Uint8Array): Buffer {
  let end = line.length;
  if (line[end - 1] === 10) end--;
  if (line[end - 1] === 13) end--;
  return Buffer.concat([line.subarray(0, end), CRLF]);
}

/** A line of nothing but spaces, tabs, CRs and its LF. */
function isBlankLine(line: Uint8Array): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c !== 10 && c !== 13 && c !== 32 && c !== 9) return false;
  }
  return true;
}

/**
 * What is left of a record's content, skipped: warcio's skipFully, except that a record cut short
 * (its bytes end before its Content-Length) is damage, where warcio's loop asks for more forever.
 */
async function skipRest(record: WARCRecord): Promise<void> {
  if (record.consumed) return;
  const reader = (record as unknown as { _reader: { limit: number; sourceIter: { skipSize(n: number): Promise<number> } } })._reader;
  while (reader.limit > 0) {
    const skipped = await reader.sourceIter.skipSize(reader.limit);
    if (skipped === 0) throw new RecordDamage("truncated");
    reader.limit -= skipped;
  }
  record.consumed = "skipped";
}

/** A content record: its place in the file, its WARC identity and its (still encoded) HTTP body. */
export interface WarcContentRecord {
  /** file offset of the record (of its gzip member in a .warc.gz) */
  offset: number;
  type: "response" | "resource";
  recordId: string;
  targetUri: string | null;
  date: string | null;
  /** HTTP status; null for a resource record */
  status: number | null;
  /** lower-cased HTTP header names (or, for a resource record, Content-Type from the WARC header) */
  headers: ReadonlyMap<string, string>;
  /** the HTTP body as stored: possibly chunked and content-encoded (see http-body.ts) */
  body: Buffer;
  /** WARC-Payload-Digest (e.g. `sha1:…`), null when absent */
  payloadDigest: string | null;
}

/** A revisit record: a capture whose payload repeats an earlier one, and what names that one. */
export interface WarcRevisitRecord {
  offset: number;
  type: "revisit";
  recordId: string;
  targetUri: string | null;
  date: string | null;
  status: number | null;
  /** the revisit's own HTTP headers (lower-cased names) */
  headers: ReadonlyMap<string, string>;
  payloadDigest: string | null;
  /** WARC-Refers-To (the original's record id), WARC-Refers-To-Target-URI and -Date; null when absent */
  refersTo: { recordId: string | null; targetUri: string | null; date: string | null };
}

/** What a reader of content records needs before the body is read, to skip what it has no use for. */
export interface WarcRecordHead {
  type: "response" | "resource";
  status: number | null;
  headers: ReadonlyMap<string, string>;
}

export interface WarcReadOptions {
  /** bytes of the file from `start` to its end (a range read: local file, bucket object, HTTP) */
  open(start: number): AsyncIterable<Buffer>;
  /** names the file in damage samples */
  file: string;
  /** the shard owns the records whose (member) offset is in [start, end) */
  start?: number;
  end?: number | null;
  counters: Counters;
  /** the largest HTTP body kept; a larger record is skipped and counted */
  maxBodyBytes: number;
  /** the largest WARC + HTTP header block; a larger one is counted as damage */
  maxHeaderBytes?: number;
  /** told of each damaged record (after it is counted), with its file offset and reason */
  onDamage?(offset: number, reason: string): void;
  /** null to read the body, or the reason the record is skipped (counted as warc.skipped.<reason>) */
  accept?(head: WarcRecordHead): string | null;
  /** whether a revisit record with these HTTP headers is yielded (never, by default: they are counted and skipped) */
  revisits?(head: { status: number | null; headers: ReadonlyMap<string, string> }): boolean;
  /**
   * "sync" (the default): a gzip member of plainly written records is parsed synchronously from its
   * inflated bytes (member-records.ts), any other by warcio; "warcio": every record by warcio, the
   * reference (the equivalence test and the benchmark compare the two).
   */
  parser?: "sync" | "warcio";
}

export const DEFAULT_MAX_HEADER_BYTES = 1024 * 1024;

/** A record that cannot be read; reading resumes at the next record. */
class RecordDamage extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/**
 * An uncompressed record that claims more than the body bound: its length cannot be trusted to
 * find the next record (a false 2 GB claim would swallow the file), so the reader resyncs past it.
 */
class SkipAndResync extends Error {}

/**
 * A plain record's Content-Length ran over the start of the next record (`at`): the record at `record`
 * is damage, and the reader resumes at the next one.
 */
class ResumeAt extends Error {
  constructor(readonly at: number, readonly record: number) {
    super("content_length_too_large");
  }
}

/** Pieces handed to warcio at most this long, so the header bound is checked finely. */
const PIECE = 64 * 1024;

/**
 * Feeds warcio and bounds what a header read may pull: warcio reads a header block to its blank
 * line however long it is, so bytes pulled while headers are being parsed are counted.
 */
class HeaderGuard {
  inHeaders = false;
  pulled = 0;
  constructor(private readonly limit: number) {}

  async *wrap(src: AsyncIterable<Buffer>): AsyncGenerator<Uint8Array> {
    for await (const chunk of src) {
      for (let i = 0; i < chunk.length; i += PIECE) {
        if (this.inHeaders) {
          this.pulled += Math.min(PIECE, chunk.length - i);
          if (this.pulled > this.limit + PIECE) throw new RecordDamage("header_too_large");
        }
        yield chunk.subarray(i, i + PIECE);
      }
    }
  }
}

function headerMap(h: { headers: Headers | Map<string, string> } | null | undefined): Map<string, string> {
  const m = new Map<string, string>();
  if (!h) return m;
  (h.headers as Headers).forEach((v, k) => m.set(k.toLowerCase(), v));
  return m;
}

const WARC_VERSION = /^WARC\/1\.[01]$/;
const SKIPPED_TYPES = new Set(["request", "metadata", "warcinfo", "conversion", "continuation"]);
/** Counter names of the per-record counts, built once (the sync path counts every record of a crawl). */
const RECORDS = warcCounter("records");
const REVISITS = warcCounter("records.revisit");
const LF_HEADERS = warcCounter("records.lf_headers");
const SPLIT_ACROSS_MEMBERS = warcCounter("records.split_across_members");
const SKIPPED_TYPE_COUNTERS = new Map([...SKIPPED_TYPES].map((t) => [t, warcSkippedCounter(t)]));
const OTHER_TYPE = warcSkippedCounter("other_type");

/** The file's first bytes decide the framing: a gzip magic means per-record gzip members. */
export function readWarc(opts: Omit<WarcReadOptions, "revisits">): AsyncGenerator<WarcContentRecord> {
  // without `revisits` no revisit record is yielded
  return readWarcWithRevisits(opts) as AsyncGenerator<WarcContentRecord>;
}

/** readWarc, plus the revisit records `opts.revisits` asks for. */
export async function* readWarcWithRevisits(opts: WarcReadOptions): AsyncGenerator<WarcContentRecord | WarcRevisitRecord> {
  // blank bytes before the first record or member (a stray newline) do not decide the framing: the
  // first three bytes after them do (only those are held, however much padding comes first)
  let head: Buffer = Buffer.alloc(0);
  for await (const c of opts.open(0)) {
    head = Buffer.concat([head, head.length === 0 ? c.subarray(padding(c, 0)) : c]);
    if (head.length >= 3) break;
  }
  // a file split into shards is one file: the shard that starts it counts it
  if ((opts.start ?? 0) === 0) opts.counters.inc(warcCounter("files"));
  try {
    yield* isGzipMagic(head) ? readMembers(opts) : readPlain(opts);
  } catch (e) {
    // a failed read of the bytes is the reader's caller's to handle (retry, count), with its own error
    throw e instanceof ByteSourceError ? e.cause : e;
  }
}

/** What names a response framed by another format (an ARC record, arc-reader.ts): its place and identity. */
export interface FramedResponseMeta {
  /** file offset of the record (of its gzip member), where its damage is reported */
  offset: number;
  recordId: string;
  targetUri: string;
  date: string | null;
}

/**
 * One HTTP response framed by another format (an ARC record, arc-reader.ts), read as the WARC
 * response record holding it: the same HTTP header parsing, skips, bounds, counters and damage
 * reasons as a WARC capture's, so a crawl gives the same documents in either format. `content`: its
 * `length` bytes held, or streamed (a record too large to hold, which may end short: `cutShort` says why).
 * Yields the record if it is content; returns whether it was damaged (counted, reported at its offset).
 */
export async function* framedResponse(meta: FramedResponseMeta, length: number, content: Buffer | AsyncIterable<Buffer>, opts: WarcReadOptions, cutShort = "truncated"): AsyncGenerator<WarcContentRecord, boolean> {
  const head = Buffer.from(`WARC/1.0\r\nWARC-Type: response\r\nContent-Length: ${length}\r\n\r\n`, "latin1");
  const named = (rec: WarcContentRecord): WarcContentRecord => ({ ...rec, offset: meta.offset, recordId: meta.recordId, targetUri: cleanUri(meta.targetUri), date: meta.date });
  let data: AsyncIterable<Buffer>;
  if (Buffer.isBuffer(content)) {
    const whole = Buffer.concat([head, content, RECORD_END]);
    const parsed = opts.parser !== "warcio" && (opts.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES) >= 2 * PIECE ? parseMemberRecords(whole, PIECE) : null;
    if (parsed !== null) {
      for (const rec of parsedRecords(whole, parsed, meta.offset, opts)) yield named(rec as WarcContentRecord);
      return false;
    }
    data = once(whole);
  } else {
    data = (async function* () {
      yield head;
      yield* content;
      yield RECORD_END;
    })();
  }
  try {
    for await (const rec of records(data, 0, meta.offset, opts)) yield named(rec as WarcContentRecord);
    return false;
  } catch (err) {
    if (err instanceof RecordDamage) {
      damage(opts, meta.offset, err.reason === "truncated" ? cutShort : err.reason);
      return true;
    }
    // a body over the bound, counted as skipped
    if (err instanceof SkipAndResync) return false;
    throw err;
  }
}

/** Whether a byte is padding between records or members: whitespace or NUL. */
const isPadByte = (c: number) => c === 10 || c === 13 || c === 32 || c === 9 || c === 0;

/** The number of padding bytes in `b` from `at`. */
function padding(b: Buffer, at: number): number {
  let i = at;
  while (i < b.length && isPadByte(b[i]!)) i++;
  return i - at;
}

/** Skips the padding bytes at the cursor (however many); returns how many. */
async function skipPadding(cur: ByteCursor): Promise<number> {
  let skipped = 0;
  for (;;) {
    const n = padding(cur.buffered, 0);
    cur.skip(n);
    skipped += n;
    if (cur.buffered.length > 0 || !(await cur.fill(1))) return skipped;
  }
}

function damage(opts: WarcReadOptions, offset: number, reason: string): void {
  opts.counters.inc(warcCounter("records.damaged"));
  opts.counters.inc(warcSkippedCounter(`damaged.${reason}`));
  opts.counters.samples.add(WARC_DAMAGE_SAMPLE, `${opts.file}@${offset}: ${reason}`);
  opts.onDamage?.(offset, reason);
}

function reasonOf(err: unknown): string {
  if (err instanceof RecordDamage) return err.reason;
  if (err instanceof GzipMemberError) return "gzip";
  return "unparsable";
}

/** Gzip members, one at a time (a record each, a few, or the whole file); damaged gzip data is counted and the next verified member read. */
async function* readMembers(opts: WarcReadOptions): AsyncGenerator<WarcContentRecord | WarcRevisitRecord> {
  const start = opts.start ?? 0;
  const end = opts.end ?? Infinity;
  // the header guard cannot stop warcio inside a member the sync parser takes (headers in one piece) unless its bound is below two pieces
  const sync = opts.parser !== "warcio" && (opts.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES) >= 2 * PIECE;
  let cur = new ByteCursor(opts.open(start), start);
  try {
    if (start > 0) opts.counters.inc(warcCounter("bytes.skipped"), await seekGzipMember(cur, end));
    for (;;) {
      if (cur.buffered.length < 3) await cur.fill(3);
      if (cur.done || cur.position >= end) return;
      const at = cur.position;
      if (!isGzipMagic(cur.buffered)) {
        // blank bytes between members (a newline after each, NULs of a block-padded file) are no damage
        const blank = await skipPadding(cur);
        if (blank > 0) {
          opts.counters.inc(warcCounter("bytes.skipped"), blank);
          continue;
        }
        // bytes that start no member: garbage, a cut member's tail
        damage(opts, at, "not_a_gzip_member");
        opts.counters.inc(warcCounter("resyncs"));
        cur.skip(1);
        opts.counters.inc(warcCounter("bytes.skipped"), 1 + (await seekGzipMember(cur, end)));
        continue;
      }
      let member: AsyncGenerator<Buffer>;
      if (sync) {
        const held = inflateHeldMember(cur);
        const whole = held !== undefined ? held : await inflateWholeMember(cur);
        if (whole !== null) {
          const parsed = parseMemberRecords(whole, PIECE);
          if (parsed !== null) {
            yield* parsedRecords(whole, parsed, at, opts);
            continue;
          }
        }
        // not the plain case: warcio reads it (from the bytes inflated already, if they were)
        member = whole === null ? inflateMember(cur) : once(whole);
      } else {
        member = inflateMember(cur);
      }
      // the member read as a plain file of its inflated bytes: after a damaged record the reader
      // resyncs inside it, so a member of many records (a file gzipped whole) loses none after it
      const frame: RecordFrame = { inRecord: false, joined: false };
      const inflated = new InflatedFile(joinMembers(member, cur, frame, opts), () => inflateFrom(opts.open, at));
      try {
        yield* readPlainBytes((s) => inflated.open(s), 0, Infinity, opts, { offset: at, frame });
        if (cur.position > at) continue;
      } catch (caught) {
        // the member's data is damaged (or the input cannot be read): the records after the damage are lost to it
        const err = fromInflated(caught);
        if (err instanceof ByteSourceError) throw err;
        damage(opts, at, reasonOf(err));
      } finally {
        await inflated.close();
      }
      await cur.close();
      opts.counters.inc(warcCounter("resyncs"));
      cur = new ByteCursor(opts.open(at + 1), at + 1);
      opts.counters.inc(warcCounter("bytes.skipped"), 1 + (await seekGzipMember(cur, end)));
    }
  } finally {
    await cur.close();
  }
}


/** The inflated bytes of the members from file offset `at` on, as read before (members one after another, padding between them skipped). */
async function* inflateFrom(open: WarcReadOptions["open"], at: number): AsyncGenerator<Buffer> {
  const cur = new ByteCursor(open(at), at);
  try {
    for (;;) {
      yield* inflateMember(cur);
      await skipPadding(cur);
      if (!(await cur.fill(3)) || !isGzipMagic(cur.buffered)) return;
    }
  } finally {
    await cur.close();
  }
}

/**
 * A member's bytes, then, while the parser is inside a record when they end, those of each next
 * member that goes on with it (headers in one member, the body in the next: warcio's
 * wrong-chunks file). Python's warcio reads such a file as one stream in `recompress`; the record is
 * read whole and counted `records.split_across_members`. A next member that starts a record is not
 * joined: the record before it was cut (`truncated`).
 */
async function* joinMembers(member: AsyncIterable<Buffer>, cur: ByteCursor, frame: RecordFrame, opts: WarcReadOptions): AsyncGenerator<Buffer> {
  yield* member;
  while (frame.inRecord) {
    const pad = await continuingMember(cur);
    if (pad === null) return;
    if (!frame.joined) opts.counters.inc(SPLIT_ACROSS_MEMBERS);
    frame.joined = true;
    cur.skip(pad);
    if (pad > 0) opts.counters.inc(warcCounter("bytes.skipped"), pad);
    yield* inflateMember(cur);
  }
}

/** Uncompressed WARC: records one after another; a damaged one sends the reader to the next `WARC/1.x` line. */
function readPlain(opts: WarcReadOptions): AsyncGenerator<WarcContentRecord | WarcRevisitRecord> {
  return readPlainBytes(opts.open, opts.start ?? 0, opts.end ?? Infinity, opts, null);
}

/** A gzip member read as plain bytes: its file offset (every record and damage in it is reported there) and the parser's frame for joinMembers. */
interface MemberOf {
  offset: number;
  frame: RecordFrame;
}

/**
 * The records of uncompressed WARC bytes from `start` (`open`: the bytes from an offset): a plain
 * file, or the inflated bytes of a gzip `member`. A damaged record sends the reader to the next
 * `WARC/1.x` line that checks out (seekPlainRecord), in either.
 */
async function* readPlainBytes(open: WarcReadOptions["open"], start: number, end: number, opts: WarcReadOptions, member: MemberOf | null): AsyncGenerator<WarcContentRecord | WarcRevisitRecord> {
  const probe = probeBytes(open);
  let cur = new ByteCursor(open(start), start);
  // where the last resync (or the shard's start) found a record, the record it resynced past (null
  // at the shard's start), and the last bytes of the file read
  let seekedTo: number | null = null;
  let resyncedPast: number | null = null;
  let tail: Buffer = Buffer.alloc(0);
  try {
    if (start > 0) {
      opts.counters.inc(warcCounter("bytes.skipped"), await seekPlainRecord(cur, false, probe));
      seekedTo = cur.position;
    }
    for (;;) {
      await cur.fill(1);
      if (cur.done || cur.position >= end) return;
      const base = cur.position;
      const pos = { offset: base, counted: false };
      const chunks = (async function* () {
        for (let c = await cur.next(); c; c = await cur.next()) {
          tail = c.length >= 4 ? c.subarray(c.length - 4) : Buffer.concat([tail, c]).subarray(-4);
          yield c;
        }
      })();
      try {
        const swallowed = (contentStart: number, claimedEnd: number) => swallowedRecord(open, probe, contentStart, claimedEnd);
        for await (const rec of records(chunks, base, member?.offset ?? null, opts, { pos, end, frame: member?.frame, swallowed })) yield rec;
        return;
      } catch (err) {
        // a failed read, or a member's damaged gzip data: nothing to resync in
        if (err instanceof ByteSourceError || err instanceof GzipMemberError) throw err;
        await cur.close();
        // (a record left unfinished: no member after this one goes on with it)
        if (member) member.frame.inRecord = false;
        opts.counters.inc(warcCounter("resyncs"));
        // a record a resync found where the record it passed claims to end follows a record's end: no quote
        const resynced = pos.offset === seekedTo && (resyncedPast === null || (await claimedNext(probe, resyncedPast)) !== seekedTo);
        const quoted = isQuotedAtEnd(err, resynced, tail);
        // a claim past the end that ran over whole records lied (the file was not cut there)
        const overrun = !quoted && isTruncated(err) ? await overrunRecord(open, probe, pos.offset) : null;
        const resume = err instanceof ResumeAt ? err : overrun !== null ? new ResumeAt(overrun, pos.offset) : null;
        if (resume) {
          damage(opts, member?.offset ?? resume.record, "content_length_too_large");
          cur = new ByteCursor(open(resume.at), resume.at);
          continue;
        }
        if (quoted) {
          // a record line quoted in the last record's payload, its claimed length past the end: no record
          if (pos.counted) opts.counters.inc(RECORDS, -1);
        } else if (!(err instanceof SkipAndResync)) {
          damage(opts, member?.offset ?? pos.offset, reasonOf(err));
        }
        cur = new ByteCursor(open(pos.offset + 1), pos.offset + 1);
        opts.counters.inc(warcCounter("bytes.skipped"), 1 + (await seekPlainRecord(cur, false, probe)));
        seekedTo = cur.position;
        resyncedPast = pos.offset;
      }
    }
  } finally {
    await cur.close();
  }
}

const RECORD_END = Buffer.from("\r\n\r\n");

/**
 * Whether a record the reader found by a resync (`resynced`: not where the record it passed claims
 * to end) and cut by the file's end is a quote: a resync may take a `WARC/1.x` line in a payload whose
 * claimed length runs past the end for a cut record (seekPlainRecord cannot tell them apart), but a
 * file whose last bytes end a record (CRLF CRLF) was not cut, so the record line was inside a record:
 * the file's last, or one before records its claim runs over (a liar there is not told from it).
 */
function isQuotedAtEnd(err: unknown, resynced: boolean, tail: Buffer): boolean {
  return resynced && isTruncated(err) && tail.equals(RECORD_END);
}

/** A record whose content ends before its claimed length: cut by the file's (or its member's) end, or its Content-Length too large. */
function isTruncated(err: unknown): boolean {
  return err instanceof RecordDamage && err.reason === "truncated";
}

/**
 * The content records of a stream of WARC bytes from `base` (of a plain file, or of a gzip member's
 * inflated bytes: `member` is then the member's file offset, where its records and damage are
 * reported). Throws RecordDamage (or the member's GzipMemberError) at the first record it cannot
 * read; `pos.offset` then names that record (its offset in the stream).
 */
async function* records(
  data: AsyncIterable<Buffer>,
  base: number,
  member: number | null,
  opts: WarcReadOptions,
  at: {
    /** names the record being read (its offset in the stream), and whether it was counted in `records` */
    pos?: { offset: number; counted?: boolean };
    /** a plain shard's end */
    end?: number;
    /** the member frame (readMembers) */
    frame?: RecordFrame;
    /** the record start a Content-Length too large ran over (swallowedRecord), or null */
    swallowed?: (contentStart: number, claimedEnd: number) => Promise<number | null>;
  } = {},
): AsyncGenerator<WarcContentRecord | WarcRevisitRecord> {
  const { pos = { offset: base }, end = Infinity, frame, swallowed } = at;
  const c = opts.counters;
  const guard = new HeaderGuard(opts.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES);
  const { warcio, Parser } = await loadWarcio();
  const parser = new Parser(new warcio.AsyncIterReader(guard.wrap(data), null), { parseHttp: true });
  if (frame) parser.frame = frame;
  // a record too large for the body bound, skipped to its claimed end in a member (which bounds the
  // claim): when that is no record's end, the claim is not trusted, as in a plain file (SkipAndResync)
  let skippedTooLarge = false;
  // bytes after a record where a blank line belongs: its Content-Length was too small (the bytes are
  // skipped), or too large: it ran over the start of the next record, where reading resumes
  parser.onRemainder = async (rawOffset) => {
    if (skippedTooLarge) throw new SkipAndResync();
    if (swallowed) {
      const next = await swallowed(base + parser._warcHeadersLength, base + rawOffset);
      if (next !== null) throw new ResumeAt(next, base + parser.offset);
    }
    damage(opts, member ?? base + rawOffset, "content_length_too_small");
  };
  for (;;) {
    guard.inHeaders = true;
    guard.pulled = 0;
    let record: WARCRecord | null;
    try {
      record = await parser.parse();
    } catch (err) {
      const at = base + parser.offset;
      if (at !== pos.offset) {
        pos.offset = at;
        pos.counted = false;
      }
      throw err instanceof RecordDamage || err instanceof GzipMemberError || err instanceof ByteSourceError || err instanceof ResumeAt || err instanceof SkipAndResync ? err : new RecordDamage("unparsable_headers");
    } finally {
      guard.inHeaders = false;
    }
    if (record === null) return;
    skippedTooLarge = false;
    pos.offset = base + parser.offset;
    pos.counted = false;
    if (pos.offset >= end) return;
    const offset = member ?? pos.offset;
    if (!WARC_VERSION.test(record.warcHeaders.statusline.trim())) throw new RecordDamage("not_a_warc_record");
    const length = Number(record.warcHeaders.headers.get("Content-Length") ?? "");
    if (!Number.isInteger(length) || length < 0) throw new RecordDamage("bad_content_length");
    c.inc(RECORDS);
    pos.counted = true;
    if (parser.lfHeaders) c.inc(LF_HEADERS);
    const type = record.warcType ?? "";
    if (type === "revisit") {
      const http = record.httpHeaders;
      const head = { status: http ? Number(http.statusCode) || null : null, headers: headerMap(http) };
      await skipRest(record);
      c.inc(warcCounter("records.revisit"));
      if (opts.revisits?.(head)) {
        const w = record.warcHeaders.headers;
        yield {
          offset,
          type: "revisit",
          recordId: w.get("WARC-Record-ID") ?? `${opts.file}@${offset}`,
          targetUri: cleanUri(record.warcTargetURI),
          date: record.warcDate ?? null,
          ...head,
          payloadDigest: w.get("WARC-Payload-Digest") ?? null,
          refersTo: { recordId: w.get("WARC-Refers-To") ?? null, targetUri: cleanUri(w.get("WARC-Refers-To-Target-URI")), date: w.get("WARC-Refers-To-Date") ?? null },
        };
      }
      continue;
    }
    if (type !== "response" && type !== "resource") {
      // (counted once skipped: a record cut short is damage instead)
      await skipRest(record);
      c.inc(warcSkippedCounter(SKIPPED_TYPES.has(type) ? type : "other_type"));
      continue;
    }
    const http = type === "response" ? record.httpHeaders : null;
    if (type === "response" && !http) {
      await skipRest(record);
      throw new RecordDamage("no_http_headers");
    }
    const headers = http ? headerMap(http) : new Map([["content-type", record.warcContentType ?? ""]]);
    const status = http ? Number(http.statusCode) || null : null;
    const head: WarcRecordHead = { type, status, headers };
    const skip = opts.accept?.(head) ?? null;
    if (skip !== null) {
      await skipRest(record);
      c.inc(warcSkippedCounter(skip));
      continue;
    }
    const reader = record.reader as AsyncIterable<Uint8Array> & { limit?: number };
    const parts: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    for await (const chunk of reader) {
      size += chunk.length;
      if (size > opts.maxBodyBytes) {
        tooLarge = true;
        break;
      }
      parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    }
    if (tooLarge) {
      c.inc(warcSkippedCounter("body_too_large"));
      if (member === null) throw new SkipAndResync();
      skippedTooLarge = true;
      try {
        await skipRest(record);
      } catch (err) {
        throw err instanceof RecordDamage ? new SkipAndResync() : err;
      }
      continue;
    }
    if ((reader.limit ?? 0) > 0) throw new RecordDamage("truncated");
    await skipRest(record);
    yield {
      offset,
      type,
      recordId: record.warcHeaders.headers.get("WARC-Record-ID") ?? `${opts.file}@${offset}`,
      targetUri: cleanUri(record.warcTargetURI),
      date: record.warcDate ?? null,
      status,
      headers,
      body: Buffer.concat(parts, size),
      payloadDigest: record.warcHeaders.headers.get("WARC-Payload-Digest") ?? null,
    };
  }
}

/**
 * A body as a view of its inflated member when it is most of the member's memory (no copy), else a
 * copy: a kept body never holds more than twice its size (revisit originals are bounded by body size).
 */
function keptBody(member: Buffer, start: number, end: number): Buffer {
  const body = member.subarray(start, end);
  return 2 * body.length >= member.buffer.byteLength ? body : Buffer.from(body);
}

async function* once(b: Buffer): AsyncGenerator<Buffer> {
  if (b.length > 0) yield b;
}

/**
 * What `records` does with warcio's records, for the records member-records.ts parsed from an
 * inflated member: the same counters, skips, callbacks and records, in the same order.
 */
function* parsedRecords(member: Buffer, parsed: ParsedRecord[], offset: number, opts: WarcReadOptions): Generator<WarcContentRecord | WarcRevisitRecord> {
  const c = opts.counters;
  for (const rec of parsed) {
    const w = rec.warc;
    c.inc(RECORDS);
    const type = w.get("warc-type") ?? "";
    if (type === "revisit") {
      c.inc(REVISITS);
      // (its headers are read only for a reader that may want it)
      if (!opts.revisits) continue;
      const http = rec.http;
      const head = { status: http ? httpStatus(http.statusline) : null, headers: http ? forEachMap(http) : new Map<string, string>() };
      if (opts.revisits(head)) {
        yield {
          offset,
          type: "revisit",
          recordId: w.get("warc-record-id") ?? `${opts.file}@${offset}`,
          targetUri: cleanUri(w.get("warc-target-uri")),
          date: w.get("warc-date") ?? null,
          ...head,
          payloadDigest: w.get("warc-payload-digest") ?? null,
          refersTo: { recordId: w.get("warc-refers-to") ?? null, targetUri: cleanUri(w.get("warc-refers-to-target-uri")), date: w.get("warc-refers-to-date") ?? null },
        };
      }
      continue;
    }
    if (type !== "response" && type !== "resource") {
      c.inc(SKIPPED_TYPE_COUNTERS.get(type) ?? OTHER_TYPE);
      continue;
    }
    // a response always has its HTTP headers here (the parser leaves one without to warcio)
    const http = type === "response" ? rec.http! : null;
    const headers = http ? forEachMap(http) : new Map([["content-type", w.get("content-type") ?? ""]]);
    const status = http ? httpStatus(http.statusline) : null;
    const skip = opts.accept?.({ type, status, headers }) ?? null;
    if (skip !== null) {
      c.inc(warcSkippedCounter(skip));
      continue;
    }
    if (rec.bodyEnd - rec.bodyStart > opts.maxBodyBytes) {
      c.inc(warcSkippedCounter("body_too_large"));
      continue;
    }
    yield {
      offset,
      type,
      recordId: w.get("warc-record-id") ?? `${opts.file}@${offset}`,
      targetUri: cleanUri(w.get("warc-target-uri")),
      date: w.get("warc-date") ?? null,
      status,
      headers,
      body: keptBody(member, rec.bodyStart, rec.bodyEnd),
      payloadDigest: w.get("warc-payload-digest") ?? null,
    };
  }
}

/** wget writes `<https://…>` (WARC/1.0 drafts); a space inside a URI is kept as %20. */
function cleanUri(uri: string | null | undefined): string | null {
  if (!uri) return null;
  let u = uri.trim();
  if (u.startsWith("<") && u.endsWith(">")) u = u.slice(1, -1).trim();
  return u.replace(/ /g, "%20") || null;
}
