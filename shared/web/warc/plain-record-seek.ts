/**
 * Finding the next record of an uncompressed WARC from an arbitrary byte (a shard's start, or past a
 * damaged record). A record starts at a line `WARC/1.0` or `WARC/1.1`, but such a line also occurs
 * inside payloads (a page about the WARC format, an archived WARC), and taking one for a record
 * reads a phantom page and reports false damage. So a candidate is trusted only when it reads as a
 * record whose claimed length ends where a record ends: its header block parses with a
 * Content-Length, and at that length come the blank line and the next record (or the file's end).
 */
import { ByteCursor } from "./byte-cursor.ts";

const VERSION_LINE = /^WARC\/1\.[01]\r?\n/;
/** The longest header block a candidate may have (the reader's own bound is larger; a resync need not be). */
const MAX_CANDIDATE_HEADER = 64 * 1024;
/** What must follow a record's content: its blank line, then the next record's first bytes. */
const AFTER = 4 + 7;

/** Reads `n` bytes of the file at `offset` (fewer at its end). */
export type ProbeBytes = (offset: number, n: number) => Promise<Buffer>;

/** A ProbeBytes over `open` (the bytes from an offset): each probe a cursor of its own, closed after it. */
export function probeBytes(open: (start: number) => AsyncIterable<Buffer>): ProbeBytes {
  return async (offset, n) => {
    const at = new ByteCursor(open(offset), offset);
    try {
      await at.fill(n);
      return Buffer.from(at.buffered.subarray(0, n));
    } finally {
      await at.close();
    }
  };
}

/** The candidate's content end relative to its first byte, or null when its header block is not a WARC record's. */
function contentEnd(b: Buffer): number | null {
  const frame = recordFrame(b);
  return frame && frame.contentStart + frame.length;
}

/** Where the candidate's content starts (relative to its first byte) and its claimed length, or null when its header block is not a WARC record's. */
function recordFrame(b: Buffer): { contentStart: number; length: number } | null {
  const blank = b.indexOf("\r\n\r\n");
  const lfBlank = b.indexOf("\n\n");
  const end = blank >= 0 && (lfBlank < 0 || blank < lfBlank) ? blank + 4 : lfBlank >= 0 ? lfBlank + 2 : -1;
  if (end < 0) return null;
  const head = b.toString("latin1", 0, end);
  const length = /(?:^|\n)content-length[ \t]*:[ \t]*(\d{1,15})[ \t]*\r?\n/i.exec(head);
  if (!length || !/(?:^|\n)warc-(?:type|record-id)[ \t]*:/i.test(head)) return null;
  return { contentStart: end, length: Number(length[1]) };
}

/** Whether the bytes after a record's content are its end: blank lines, then a record or the file's end. */
function endsRecord(after: Buffer): boolean {
  let i = 0;
  while (i < after.length && (after[i] === 13 || after[i] === 10)) i++;
  const rest = after.toString("latin1", i);
  return rest.length === 0 || "WARC/1.".startsWith(rest) || rest.startsWith("WARC/1.");
}

/**
 * Moves the cursor to the next record start that checks out (see above); returns the bytes skipped.
 * `atLineStart`: the cursor is at the start of a line. A candidate whose content would run past
 * the file's end is taken (the reader then counts it as truncated and resyncs past it), so a cut
 * last record is counted, not skipped unseen.
 */
export async function seekPlainRecord(cur: ByteCursor, atLineStart: boolean, probe: ProbeBytes): Promise<number> {
  let skipped = 0;
  let lineStart = atLineStart;
  const drop = (n: number) => {
    skipped += n;
    cur.skip(n);
  };
  for (;;) {
    if (!(await cur.fill(12))) {
      drop(cur.buffered.length);
      return skipped;
    }
    const text = cur.buffered.toString("latin1");
    let at = lineStart && text.startsWith("WARC/1.") ? 0 : -1;
    if (at < 0) {
      const nl = text.indexOf("\nWARC/1.");
      at = nl >= 0 ? nl + 1 : -1;
    }
    if (at >= 0) {
      await cur.fill(at + 11);
      if (VERSION_LINE.test(cur.buffered.subarray(at, at + 11).toString("latin1")) && (await checksOut(cur, at, probe))) {
        drop(at);
        return skipped;
      }
      drop(at + 1);
      lineStart = false;
      continue;
    }
    // keep a tail that may hold the start of a record line cut by the chunk edge
    const n = cur.buffered.length - 8;
    lineStart = cur.buffered[n - 1] === 0x0a;
    drop(n);
    if (!(await cur.more())) {
      drop(cur.buffered.length);
      return skipped;
    }
  }
}

/** Whether the candidate at `at` of the cursor's bytes is a record whose length ends at a record's end. */
async function checksOut(cur: ByteCursor, at: number, probe: ProbeBytes): Promise<boolean> {
  let end: number | null = null;
  for (let span = 4096; end === null; span *= 2) {
    const more = await cur.fill(at + span);
    end = contentEnd(cur.buffered.subarray(at, Math.min(cur.buffered.length, at + MAX_CANDIDATE_HEADER)));
    if (end === null && (!more || span >= MAX_CANDIDATE_HEADER)) return false;
  }
  const from = at + end;
  const after = from + AFTER <= cur.buffered.length ? cur.buffered.subarray(from, from + AFTER) : await probe(cur.position + from, AFTER);
  // the file ends inside the content: a cut record, for the reader to count
  if (after.length === 0) return true;
  return endsRecord(after);
}

/** At most `n` bytes of `src`. */
async function* bounded(src: AsyncIterable<Buffer>, n: number): AsyncGenerator<Buffer> {
  for await (const chunk of src) {
    if (chunk.length >= n) {
      yield chunk.subarray(0, n);
      return;
    }
    n -= chunk.length;
    yield chunk;
  }
}

/** Records followed from a candidate to see whether they reach a claimed end. */
const MAX_CHAIN = 64;

/**
 * Where a record whose Content-Length is too large swallowed the start of the next: the first
 * record start in [from, claimedEnd) (from: the record's content) that checks out and from which the
 * records, each's claimed length followed by blank lines and the next, reach past `claimedEnd`; null
 * when there is none (its Content-Length was too small instead). A record quoted whole inside the
 * payload ends before the payload does, so its records do not reach past the claimed end.
 */
export async function swallowedRecord(open: (start: number) => AsyncIterable<Buffer>, probe: ProbeBytes, from: number, claimedEnd: number): Promise<number | null> {
  const cur = new ByteCursor(bounded(open(from), claimedEnd - from + MAX_CANDIDATE_HEADER), from);
  try {
    for (let lineStart = true; ; lineStart = false) {
      await seekPlainRecord(cur, lineStart, probe);
      if (!(await cur.fill(1)) || cur.position >= claimedEnd) return null;
      if (await reachesPast(probe, cur.position, claimedEnd)) return cur.position;
      cur.skip(1);
    }
  } finally {
    await cur.close();
  }
}

/** Whether the records from `at` on reach past `limit` (one of them holds it). */
async function reachesPast(probe: ProbeBytes, at: number, limit: number): Promise<boolean> {
  for (let n = 0; n < MAX_CHAIN; n++) {
    const end = contentEnd(await probe(at, MAX_CANDIDATE_HEADER));
    if (end === null) return false;
    if (at + end >= limit) return true;
    const after = await probe(at + end, 64);
    let i = 0;
    while (i < after.length && (after[i] === 13 || after[i] === 10)) i++;
    if (!after.toString("latin1", i).startsWith("WARC/1.")) return false;
    at += end + i;
  }
  return false;
}

/**
 * Where a record whose claimed length runs past the file's end (at `record`) ran over the records
 * after it: the first record start in its content that checks out and from which the records, each's
 * claimed length followed by blank lines and the next, end at the file's end (or go on for MAX_CHAIN
 * records); null when there is none: the file was cut in that record, or its record line is quoted
 * in the last record's payload (the rest of that payload holds no records ending the file).
 */
export async function overrunRecord(open: (start: number) => AsyncIterable<Buffer>, probe: ProbeBytes, record: number): Promise<number | null> {
  const frame = recordFrame(await probe(record, MAX_CANDIDATE_HEADER));
  if (!frame) return null;
  const cur = new ByteCursor(open(record + frame.contentStart), record + frame.contentStart);
  try {
    for (let lineStart = true; ; lineStart = false) {
      await seekPlainRecord(cur, lineStart, probe);
      if (!(await cur.fill(1))) return null;
      if (await endsFile(probe, cur.position)) return cur.position;
      cur.skip(1);
    }
  } finally {
    await cur.close();
  }
}

/** Whether the records from `at` on end at the file's end (the last followed by blank lines only), or go on for MAX_CHAIN records. */
async function endsFile(probe: ProbeBytes, at: number): Promise<boolean> {
  for (let n = 0; n < MAX_CHAIN; n++) {
    const end = contentEnd(await probe(at, MAX_CANDIDATE_HEADER));
    if (end === null) return false;
    // from the content's last byte: none means the record runs past the end
    const after = await probe(at + end - 1, 65);
    if (after.length === 0) return false;
    let i = 1;
    while (i < after.length && (after[i] === 13 || after[i] === 10)) i++;
    if (i === after.length) return after.length < 65;
    if (!after.toString("latin1", i).startsWith("WARC/1.")) return false;
    at += end - 1 + i;
  }
  return true;
}

/**
 * Where the next record starts by the claimed length of the record at `at` (past its blank lines),
 * or null when its header block is not a WARC record's: a record a resync finds there follows a
 * record's end, so it is no record line quoted in a payload.
 */
export async function claimedNext(probe: ProbeBytes, at: number): Promise<number | null> {
  const frame = recordFrame(await probe(at, MAX_CANDIDATE_HEADER));
  if (!frame) return null;
  const end = at + frame.contentStart + frame.length;
  const after = await probe(end, 64);
  let i = 0;
  while (i < after.length && (after[i] === 13 || after[i] === 10 || after[i] === 32 || after[i] === 9)) i++;
  return end + i;
}
