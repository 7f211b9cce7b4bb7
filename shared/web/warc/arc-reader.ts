/**
 * ARC files, the Internet Archive's crawl format before WARC (Alexa, Heritrix 1.x; most web
 * archives' holdings before ~2009): `.arc` and `.arc.gz` (a gzip member per record). A file starts
 * with its version block (`filedesc://…`, whose body says version 1 or 2); then each record is one
 * header line, `<url> <ip> <yyyyMMddhhmmss> <content-type> <length>` (version 2 adds result code,
 * checksum, location, offset and filename before the length), exactly <length> bytes (the HTTP
 * response as received) and a newline. A URL may hold spaces: the fields after it are fixed, so the
 * URL is the rest of the line.
 *
 * Only the framing is read here: each HTTP response is read as the WARC response record holding it
 * would be (framedResponse), so an ARC and a WARC of one crawl give the same documents and the same
 * counters. Damage is handled as in a WARC: a record that cannot be read is counted with its offset
 * (`warc.records.damaged`, `warc.skipped.damaged.<reason>`, a `file@offset` sample) and reading goes
 * on at the next header line that checks out (its claimed length ends where a record ends), in a
 * plain file or inside a gzip member; after damaged gzip data, at the next member that decodes to an
 * ARC header line. A large file splits into shards as a WARC does (by verified gzip members, or by
 * checked header lines in a plain file). ARC has no record ids: a record is named by its file and
 * offset (`<name>@<offset>`, `+<offset in its member>` for a member of several records), its date
 * is the capture date as ISO 8601.
 */
import { basename } from "node:path";
import { warcCounter, warcSkippedCounter, WARC_DAMAGE_SAMPLE } from "../../core/counter-names.ts";
import { Counters } from "../../core/counters.ts";
import { ByteCursor, ByteSourceError } from "./byte-cursor.ts";
import { fromInflated, GzipMemberError, inflateMember, inflatedStart, isGzipMagic, seekGzipMember } from "./gzip-member.ts";
import { InflatedFile } from "./inflated-file.ts";
import { probeBytes } from "./plain-record-seek.ts";
import { isArcName } from "./warc-kind.ts";
import { DEFAULT_MAX_HEADER_BYTES, framedResponse, type WarcContentRecord, type WarcReadOptions } from "./warc-reader.ts";

/** A longer line is no header line. */
const MAX_LINE = 64 * 1024;
/** Bytes looked at after a record's claimed end for the next header line. */
const NEXT_LINE = 8 * 1024;

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\S/;
const DATE = /^\d{14}$/;
const LENGTH = /^\d{1,15}$/;

export interface ArcHeader {
  url: string;
  /** the capture date as ISO 8601 (WARC-Date's form) */
  date: string;
  length: number;
}

/**
 * A header line (without its newline) read in `version`'s layout, else in the other one (a file
 * without its version block, or one that mixes them); "bad_length" when it is a header line whose
 * length is not a number, null when it is none.
 */
export function parseArcLine(text: string, version: 1 | 2 = 1): ArcHeader | "bad_length" | null {
  const parts = text.replace(/[ \r]+$/, "").split(" ");
  for (const fields of version === 2 ? [10, 5] : [5, 10]) {
    const urlParts = parts.length - fields + 1;
    if (urlParts < 1) continue;
    const url = parts.slice(0, urlParts).join(" ");
    const date = parts[urlParts + 1]!;
    if (!SCHEME.test(url) || !DATE.test(date)) continue;
    const length = parts[parts.length - 1]!;
    if (!LENGTH.test(length)) return "bad_length";
    return { url, date: `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(8, 10)}:${date.slice(10, 12)}:${date.slice(12)}Z`, length: Number(length) };
  }
  return null;
}

/** The version a version block's body declares (`1 0 <org>` or `2 0 <org>`, then the field names). */
function declaredVersion(body: Buffer): 1 | 2 {
  const [first = "", names = ""] = body.toString("latin1", 0, Math.min(body.length, 4096)).split("\n");
  return /^2\s/.test(first) || names.trim().split(/\s+/).length >= 10 ? 2 : 1;
}

/** Whether `bytes` (a candidate gzip member) decode to an ARC header line. */
export function decodesToArc(bytes: Buffer): boolean {
  const start = inflatedStart(bytes);
  if (start === null) return false;
  const nl = start.indexOf(10);
  return nl > 0 && parseArcLine(start.toString("utf8", 0, nl)) !== null;
}

/** Whether a file's first bytes are an ARC's (its version block, plain or in a gzip member). */
export function startsAsArc(head: Buffer): boolean {
  const text = isGzipMagic(head) ? inflatedStart(head)?.toString("latin1", 0, 16) : head.toString("latin1", 0, 16);
  return text?.startsWith("filedesc://") ?? false;
}

/** An ARC by name, else by its first bytes (a file named otherwise): `open` reads the file. */
export async function isArcInput(name: string, open: (start: number) => AsyncIterable<Buffer>): Promise<boolean> {
  if (isArcName(name)) return true;
  const cur = new ByteCursor(open(0), 0);
  try {
    await cur.fill(4096);
    return startsAsArc(cur.buffered);
  } finally {
    await cur.close();
  }
}

/** What the reader knows of the file across its members. */
interface ArcState {
  /** the header line layout, from the last version block */
  version: 1 | 2;
  /** a record was read (the first must be the version block) */
  started: boolean;
  /** names the file in record ids */
  name: string;
  /** records held whole up to this length; a larger one is streamed (it is skipped as too large in any case) */
  hold: number;
  opts: WarcReadOptions;
}

/**
 * How a length claimed past the body bound is checked before it is trusted (a false 2 GB claim would
 * swallow the file, or a member of many records: a file gzipped whole): in a plain file, by reading
 * `n` bytes at its claimed end (`probe`, a ranged read); in a member's inflated bytes, by reading
 * through to it and, when no record ends there, reading them again from after its header line
 * (`reopen`: reading ahead would inflate a true record twice).
 */
type ClaimCheck = { probe: (offset: number, n: number) => Promise<Buffer> } | { reopen: (at: number) => AsyncIterable<Buffer> };

function probeOf(open: (start: number) => AsyncIterable<Buffer>): ClaimCheck {
  return { probe: probeBytes(open) };
}

const isPad = (c: number) => c === 10 || c === 13 || c === 32 || c === 9 || c === 0;

function damage(opts: WarcReadOptions, offset: number, reason: string): void {
  opts.counters.inc(warcCounter("records.damaged"));
  opts.counters.inc(warcSkippedCounter(`damaged.${reason}`));
  opts.counters.samples.add(WARC_DAMAGE_SAMPLE, `${opts.file}@${offset}: ${reason}`);
  opts.onDamage?.(offset, reason);
}

const skippedBytes = (opts: WarcReadOptions, n: number) => {
  if (n > 0) opts.counters.inc(warcCounter("bytes.skipped"), n);
};

/** The line at `at` of the cursor's bytes, newline included, read on as needed; null when none ends within MAX_LINE (or before the input's end). */
async function lineAt(cur: ByteCursor, at: number): Promise<Buffer | null> {
  for (let from = at; ; ) {
    const nl = cur.buffered.indexOf(10, from);
    if (nl >= 0) return nl - at < MAX_LINE ? cur.buffered.subarray(at, nl + 1) : null;
    if (cur.buffered.length - at >= MAX_LINE) return null;
    from = cur.buffered.length;
    if (!(await cur.more())) return null;
  }
}

const lineText = (line: Buffer) => line.toString("utf8", 0, line.length - 1);

/** Whether the bytes of `b` from `i` (all there are up to NEXT_LINE after it) are blank bytes, then a header line or the end. */
function isRecordEnd(b: Buffer, i: number, version: 1 | 2): boolean {
  while (i < b.length && isPad(b[i]!)) i++;
  if (i >= b.length) return true;
  const nl = b.indexOf(10, i);
  if (nl < 0) return SCHEME.test(b.toString("latin1", i, i + 64));
  return parseArcLine(b.toString("utf8", i, nl), version) !== null;
}

/**
 * Whether the bytes at `end` of the cursor's end a record. A record cut by the input's end (`end`
 * past it) is taken: its reader counts it truncated.
 */
async function endsRecord(cur: ByteCursor, end: number, version: 1 | 2): Promise<boolean> {
  await cur.fill(end + NEXT_LINE);
  return isRecordEnd(cur.buffered, end, version);
}

/** Whether the line at `at` of the cursor's bytes is a header line that checks out. */
async function checksOut(cur: ByteCursor, at: number, state: ArcState): Promise<boolean> {
  await cur.fill(at + 32);
  if (!SCHEME.test(cur.buffered.toString("latin1", at, at + 32))) return false;
  const line = await lineAt(cur, at);
  const h = line && parseArcLine(lineText(line), state.version);
  if (!h || h === "bad_length") return false;
  return h.length > state.hold || endsRecord(cur, at + line.length + h.length, state.version);
}

/** The first header line that checks out after a newline in the cursor's bytes [from, to), as an index of them; null when none. */
async function recordWithin(cur: ByteCursor, from: number, to: number, state: ArcState): Promise<number | null> {
  for (let nl = cur.buffered.indexOf(10, from); nl >= 0 && nl + 1 < to; nl = cur.buffered.indexOf(10, nl + 1)) {
    if (await checksOut(cur, nl + 1, state)) return nl + 1;
  }
  return null;
}

/** Moves the cursor to the next header line after a newline that checks out, or to the input's end; returns the bytes skipped. */
async function seekRecord(cur: ByteCursor, state: ArcState): Promise<number> {
  let skipped = 0;
  for (;;) {
    const at = await recordWithin(cur, 0, Infinity, state);
    if (at !== null) {
      cur.skip(at);
      return skipped + at;
    }
    skipped += cur.buffered.length;
    cur.skip(cur.buffered.length);
    if (!(await cur.more())) return skipped;
  }
}

/** Exactly `n` bytes of the cursor (fewer at its end), as they come; `taken` says how many it gave. */
function take(cur: ByteCursor, n: number): { chunks: AsyncGenerator<Buffer>; taken: () => number } {
  let taken = 0;
  const chunks = (async function* () {
    while (taken < n) {
      if (cur.buffered.length === 0 && !(await cur.more())) return;
      const k = Math.min(n - taken, cur.buffered.length);
      const chunk = cur.buffered.subarray(0, k);
      cur.skip(k);
      taken += k;
      yield chunk;
    }
  })();
  return { chunks, taken: () => taken };
}

/** Skips `n` bytes of the cursor (fewer at its end); returns how many. */
async function skipBytes(cur: ByteCursor, n: number): Promise<number> {
  let left = n;
  while (left > 0 && (cur.buffered.length > 0 || (await cur.more()))) {
    const k = Math.min(left, cur.buffered.length);
    cur.skip(k);
    left -= k;
  }
  return n - left;
}

/** One record's content: the version block read, a record that is no HTTP response counted, a response read as a WARC one. */
async function* content(h: ArcHeader, meta: { offset: number; recordId: string }, body: Buffer | AsyncIterable<Buffer>, state: ArcState, cutShort?: string): AsyncGenerator<WarcContentRecord, boolean> {
  const c = state.opts.counters;
  if (h.url.startsWith("filedesc:")) {
    c.inc(warcCounter("records"));
    c.inc(warcSkippedCounter("filedesc"));
    if (Buffer.isBuffer(body)) state.version = declaredVersion(body);
    return false;
  }
  if (!/^https?:/i.test(h.url)) {
    // dns: lookups and the like: no page
    c.inc(warcCounter("records"));
    c.inc(warcSkippedCounter("non_http"));
    return false;
  }
  return yield* framedResponse({ ...meta, targetUri: h.url, date: h.date }, h.length, body, state.opts, cutShort);
}

/**
 * The records of ARC bytes at the cursor: a plain file (`member` null: records are reported at
 * their own offsets, up to the shard's `end`) or a gzip member's inflated bytes (reported at the
 * member's offset). `check` checks a length too large to hold before it is trusted.
 */
async function* arcRecords(first: ByteCursor, member: number | null, end: number, state: ArcState, check: ClaimCheck): AsyncGenerator<WarcContentRecord> {
  const opts = state.opts;
  // (the first cursor is its caller's to close; one opened again here is closed here)
  let cur = first;
  try {
    for (;;) {
      while ((cur.buffered.length > 0 || (await cur.more())) && isPad(cur.buffered[0]!)) {
        let n = 0;
        while (n < cur.buffered.length && isPad(cur.buffered[n]!)) n++;
        cur.skip(n);
      }
      if (cur.done || (member === null && cur.position >= end)) return;
      const at = cur.position;
      const offset = member ?? at;
      const line = await lineAt(cur, 0);
      const h = line && parseArcLine(lineText(line), state.version);
      if (!h || h === "bad_length") {
        // a line cut by the input's end is a cut record; any other is garbage, or a record whose length is no number
        damage(opts, offset, h ?? (line === null && cur.buffered.length < MAX_LINE ? "truncated" : "not_an_arc_record"));
        opts.counters.inc(warcCounter("resyncs"));
        cur.skip(1);
        skippedBytes(opts, 1 + (await seekRecord(cur, state)));
        continue;
      }
      if (!state.started && !h.url.startsWith("filedesc:")) opts.counters.inc(warcCounter("files.arc_no_version_block"));
      state.started = true;
      const meta = { offset, recordId: `${state.name}@${offset}${member !== null && at > 0 ? `+${at}` : ""}` };
      const total = line.length + h.length;
      if (h.length > state.hold && "reopen" in check) {
        // larger than any page kept, in a member: read through to its claim, counted aside until a record ends there
        const damages: [number, string][] = [];
        const aside = { ...opts, counters: new Counters(), onDamage: (where: number, reason: string) => void damages.push([where, reason]) };
        cur.skip(line.length);
        const body = take(cur, h.length);
        try {
          // (never content: its body is over the bound)
          for await (const _ of content(h, meta, body.chunks, { ...state, opts: aside })) void _;
        } finally {
          await body.chunks.return(undefined);
        }
        const got = body.taken() + (await skipBytes(cur, h.length - body.taken()));
        if (got === h.length && (await endsRecord(cur, 0, state.version))) {
          opts.counters.merge(aside.counters);
          for (const [where, reason] of damages) opts.onDamage?.(where, reason);
          continue;
        }
        // a false claim: reading goes on at the next record after its header line, as in a plain file
        const from = at + line.length - 1;
        if (cur !== first) await cur.close();
        cur = new ByteCursor(check.reopen(from), from);
        const skipped = await seekRecord(cur, state);
        damage(opts, offset, "length_too_large");
        opts.counters.inc(warcCounter("resyncs"));
        skippedBytes(opts, line.length - 1 + skipped);
        continue;
      }
      if (h.length > state.hold && "probe" in check) {
        // larger than any page kept, in a plain file: trusted when a record ends where it claims, else
        // reading goes on at the next record after its header line
        const after = await check.probe(at + total - 1, 1 + NEXT_LINE);
        if (after.length === 0 || !isRecordEnd(after, 1, state.version)) {
          cur.skip(line.length - 1);
          const skipped = await seekRecord(cur, state);
          damage(opts, offset, after.length === 0 && cur.done ? "truncated" : "length_too_large");
          opts.counters.inc(warcCounter("resyncs"));
          skippedBytes(opts, line.length - 1 + skipped);
          continue;
        }
      }
      if (h.length > state.hold) {
        // larger than any page kept, in a plain file, its claim checked: streamed through (it is skipped as too large)
        cur.skip(line.length);
        const body = take(cur, h.length);
        let damaged: boolean;
        try {
          damaged = yield* content(h, meta, body.chunks, state);
        } finally {
          await body.chunks.return(undefined);
        }
        const got = body.taken() + (await skipBytes(cur, h.length - body.taken()));
        if (got < h.length) {
          if (!damaged) damage(opts, offset, "truncated");
          return;
        }
        continue;
      }
      const whole = await cur.fill(total);
      if (!whole || !(await endsRecord(cur, total, state.version))) {
        // a length too large runs over the next record: reading goes on there
        const next = await recordWithin(cur, line.length - 1, Math.min(total, cur.buffered.length), state);
        if (next !== null) {
          damage(opts, offset, "length_too_large");
          opts.counters.inc(warcCounter("resyncs"));
          skippedBytes(opts, next);
          cur.skip(next);
          continue;
        }
        if (!whole) {
          // the input ends inside the record (in a member, which bounds it: its length is false)
          damage(opts, offset, member === null ? "truncated" : "length_too_large");
          skippedBytes(opts, cur.buffered.length);
          cur.skip(cur.buffered.length);
          return;
        }
        // else a length too small, or garbage after the record: the record is read as its length says, and what follows is the next line's damage
      }
      const body = cur.buffered.subarray(line.length, total);
      cur.skip(total);
      yield* content(h, meta, body, state);
    }
  } finally {
    if (cur !== first) await cur.close();
  }
}

/** An uncompressed ARC (or the shard [start, end) of one): the records whose header line starts in it. */
async function* readPlain(state: ArcState): AsyncGenerator<WarcContentRecord> {
  const { opts } = state;
  const start = opts.start ?? 0;
  // from the byte before the shard: a record starting at its first byte follows a newline there
  const from = Math.max(0, start - 1);
  const cur = new ByteCursor(opts.open(from), from);
  try {
    if (start > 0) skippedBytes(opts, Math.max(0, (await seekRecord(cur, state)) - 1));
    yield* arcRecords(cur, null, opts.end ?? Infinity, state, probeOf(opts.open));
  } finally {
    await cur.close();
  }
}


/** The inflated bytes of the member at file offset `at`, read again. */
async function* inflateOne(open: WarcReadOptions["open"], at: number): AsyncGenerator<Buffer> {
  const cur = new ByteCursor(open(at), at);
  try {
    yield* inflateMember(cur);
  } finally {
    await cur.close();
  }
}

/** A per-record `.arc.gz` (or any gzipped ARC: a member is read as plain ARC bytes), the members that start in the shard. */
async function* readMembers(state: ArcState): AsyncGenerator<WarcContentRecord> {
  const { opts } = state;
  const start = opts.start ?? 0;
  const end = opts.end ?? Infinity;
  let cur = new ByteCursor(opts.open(start), start);
  try {
    if (start > 0) skippedBytes(opts, await seekGzipMember(cur, end, decodesToArc));
    for (;;) {
      if (cur.buffered.length < 3) await cur.fill(3);
      if (cur.done || cur.position >= end) return;
      const at = cur.position;
      if (!isGzipMagic(cur.buffered)) {
        let blank = 0;
        while (blank < cur.buffered.length && isPad(cur.buffered[blank]!)) blank++;
        if (blank > 0) {
          // blank bytes between members are no damage
          skippedBytes(opts, blank);
          cur.skip(blank);
          continue;
        }
        damage(opts, at, "not_a_gzip_member");
        opts.counters.inc(warcCounter("resyncs"));
        cur.skip(1);
        skippedBytes(opts, 1 + (await seekGzipMember(cur, end, decodesToArc)));
        continue;
      }
      // the member read as a plain file of its inflated bytes: after a length claimed past the body bound
      // that lies, reading goes back to its header line (bounded: bytes behind the window are inflated again)
      const file = new InflatedFile(inflateMember(cur), () => inflateOne(opts.open, at));
      const inflated = new ByteCursor(file.open(0), 0);
      try {
        yield* arcRecords(inflated, at, Infinity, state, { reopen: (s) => file.open(s) });
        continue;
      } catch (caught) {
        const err = fromInflated(caught);
        if (!(err instanceof GzipMemberError)) throw caught;
        // damaged gzip data: the records after the damage are lost to it
        damage(opts, at, "gzip");
      } finally {
        await inflated.close();
        await file.close();
      }
      await cur.close();
      opts.counters.inc(warcCounter("resyncs"));
      cur = new ByteCursor(opts.open(at + 1), at + 1);
      skippedBytes(opts, 1 + (await seekGzipMember(cur, end, decodesToArc)));
    }
  } finally {
    await cur.close();
  }
}

/** The content records of an ARC (`.arc`, `.arc.gz`), as readWarc gives a WARC's. */
export async function* readArc(opts: WarcReadOptions): AsyncGenerator<WarcContentRecord> {
  const head = new ByteCursor(opts.open(0), 0);
  let gzip: boolean;
  try {
    // blank bytes before the first member do not decide the framing
    for (let pad = 0; ; pad++) {
      if (!(await head.fill(pad + 3))) {
        gzip = false;
        break;
      }
      if (!isPad(head.buffered[pad]!)) {
        gzip = isGzipMagic(head.buffered, pad);
        break;
      }
    }
  } catch (e) {
    throw e instanceof ByteSourceError ? e.cause : e;
  } finally {
    await head.close();
  }
  if ((opts.start ?? 0) === 0) {
    opts.counters.inc(warcCounter("files"));
    opts.counters.inc(warcCounter("files.arc"));
  }
  const state: ArcState = { version: 1, started: (opts.start ?? 0) > 0, name: basename(opts.file), hold: opts.maxBodyBytes + (opts.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES), opts };
  try {
    yield* gzip ? readMembers(state) : readPlain(state);
  } catch (e) {
    throw e instanceof ByteSourceError ? e.cause : e;
  }
}
