/**
 * The records of one inflated gzip member, parsed synchronously from its bytes: the fast path of the
 * WARC reader for the common case (a member holding whole, plainly written records, as crawlers
 * write them). warcio reads the same bytes through an async chain (a reader, a parser, a generator
 * per record, a Headers object per header block), which costs about as much CPU as all the rest of
 * reading a crawl; this reads them with a few indexOf calls over one Buffer.
 *
 * It gives exactly what warcio gives, or nothing: anything it does not recognise as the plain case
 * (a header block that is not printable ASCII, a header name that is not an HTTP token, a folded
 * line, a content length that runs past the member, bytes between records other than blank lines, a
 * header block that crosses a 64 KiB piece of what warcio is fed, …) returns null, and the caller
 * hands the member to warcio, the reference. `test/web/warc/member-records.test.ts` reads every real
 * WARC and every hostile input both ways and compares.
 */

/**
 * A header block as warcio's Headers shows it: names lower-cased, repeated names joined with ", ".
 * Its lines are kept as offsets into the member's bytes and read when asked for: most records are
 * skipped after a look at two or three headers (requests, images), so most values are never made
 * into strings.
 */
export class ParsedHeaders {
  constructor(
    /** the status line, trailing whitespace removed */
    readonly statusline: string,
    private readonly b: Buffer,
    /** per line with a value: name start, name end, value start, value end */
    private readonly lines: number[],
  ) {}

  /** `get(name)` of a Headers: the values of the lines named `name` (lower-case), joined; undefined when none */
  get(name: string): string | undefined {
    let out: string | undefined;
    const { b, lines } = this;
    for (let i = 0; i < lines.length; i += 4) {
      const start = lines[i]!;
      if (lines[i + 1]! - start !== name.length || !this.named(start, name)) continue;
      const value = b.toString("latin1", lines[i + 2]!, lines[i + 3]!);
      out = out === undefined ? value : `${out}, ${value}`;
    }
    return out;
  }

  /** the lines' names as Headers lower-cases them, each value as `get` gives it */
  byName(): Map<string, string> {
    const byName = new Map<string, string>();
    const { b, lines } = this;
    for (let i = 0; i < lines.length; i += 4) {
      const key = b.toString("latin1", lines[i]!, lines[i + 1]!).toLowerCase();
      const value = b.toString("latin1", lines[i + 2]!, lines[i + 3]!);
      const had = byName.get(key);
      byName.set(key, had === undefined ? value : `${had}, ${value}`);
    }
    return byName;
  }

  /** the last Set-Cookie value (Headers.forEach gives each on its own), null when none */
  lastCookie(): string | null {
    const { b, lines } = this;
    for (let i = lines.length - 4; i >= 0; i -= 4) {
      if (lines[i + 1]! - lines[i]! === 10 && this.named(lines[i]!, "set-cookie")) return b.toString("latin1", lines[i + 2]!, lines[i + 3]!);
    }
    return null;
  }

  /** whether the name at `start` (as long as `name`) is `name` (lower-case) but for ASCII case */
  private named(start: number, name: string): boolean {
    const b = this.b;
    for (let k = 0; k < name.length; k++) {
      const c = b[start + k]!;
      if ((c >= 0x41 && c <= 0x5a ? c + 0x20 : c) !== name.charCodeAt(k)) return false;
    }
    return true;
  }
}

/** Headers.forEach's view, as our reader keeps it in a Map: names sorted, a set-cookie's last value. */
export function forEachMap(h: ParsedHeaders): Map<string, string> {
  const byName = h.byName();
  const out = new Map<string, string>();
  for (const key of [...byName.keys()].sort()) out.set(key, key === "set-cookie" ? h.lastCookie()! : byName.get(key)!);
  return out;
}

export interface ParsedRecord {
  warc: ParsedHeaders;
  /** Content-Length of the record */
  length: number;
  /** the HTTP header block warcio parses (response, request, revisit with content); null otherwise */
  http: ParsedHeaders | null;
  /** the record's payload after any HTTP headers: [bodyStart, bodyEnd) of the member's bytes */
  bodyStart: number;
  bodyEnd: number;
}

const CR = 13;
const LF = 10;
const CRLFCRLF = Buffer.from("\r\n\r\n", "latin1");

/** A WARC record's first line, as the fast path takes it. */
function isWarcLine(b: Buffer, at: number): boolean {
  // "WARC/1.0\r\n" or "WARC/1.1\r\n"
  return (
    b.length >= at + 10 &&
    b[at] === 0x57 && b[at + 1] === 0x41 && b[at + 2] === 0x52 && b[at + 3] === 0x43 && b[at + 4] === 0x2f &&
    b[at + 5] === 0x31 && b[at + 6] === 0x2e && (b[at + 7] === 0x30 || b[at + 7] === 0x31) && b[at + 8] === CR && b[at + 9] === LF
  );
}

/** Printable ASCII and tabs, with CR only before LF: what any reader reads the same way. */
function plainAscii(b: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = b[i]!;
    if (c >= 0x20 && c < 0x7f) continue;
    if (c === LF || c === 9) continue;
    if (c === CR && b[i + 1] === LF) continue;
    return false;
  }
  return true;
}

/** Bytes of an HTTP token (a header name Headers accepts). */
const TOKEN_BYTE = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") TOKEN_BYTE[c.charCodeAt(0)] = 1;

const isBlank = (c: number) => c === 0x20 || c === 9 || c === CR;

/**
 * The header lines in [from, to) (to: just past the block's CRLFCRLF), as warcio's
 * StatusAndHeadersParser reads them into a Headers; null when a line is one it treats specially
 * (folded, without a name, a name that is not a token, a value that is not printable ASCII).
 */
function headerLines(b: Buffer, statusline: string, from: number, to: number): ParsedHeaders | null {
  const lines: number[] = [];
  const end = to - 2; // the block without its final blank line
  for (let i = from; i < end; ) {
    let j = i;
    while (j < end && b[j]! < 128 && TOKEN_BYTE[b[j]!] === 1) j++;
    if (j === i || b[j] !== 0x3a) return null;
    let k = j + 1;
    for (; ; k++) {
      const c = b[k]!;
      if (c === LF) break;
      if ((c >= 0x20 && c < 0x7f) || c === 9 || (c === CR && b[k + 1] === LF)) continue;
      return null;
    }
    let vs = j + 1;
    let ve = k;
    while (vs < ve && isBlank(b[vs]!)) vs++;
    while (ve > vs && isBlank(b[ve - 1]!)) ve--;
    const nameStart = i;
    i = k + 1;
    if (ve === vs) continue; // warcio keeps no empty value
    lines.push(nameStart, j, vs, ve);
  }
  return new ParsedHeaders(statusline, b, lines);
}

/**
 * A header block starting at `at` with its first line (the status line), ending with CRLFCRLF
 * before `limit` (or, `straddle`, starting before it); its end (just past the CRLFCRLF) and its
 * headers (none unless `parse`: where it ends is all a request's block decides), or null.
 */
function headerBlock(b: Buffer, at: number, limit: number, piece: number, straddle = false, parse = true): { end: number; headers: ParsedHeaders } | null {
  const eol = b.indexOf(LF, at);
  if (eol < 0 || eol >= limit || b[eol - 1] !== CR) return null;
  const statusline = b.toString("latin1", at, eol - 1).trimEnd();
  // warcio ends a header read at an empty status line, and would look for the block's end past an empty block
  if (statusline === "" || b[eol + 1] === CR || b[eol + 1] === LF) return null;
  const crlf = b.indexOf(CRLFCRLF, eol + 1);
  if (crlf < 0 || (straddle ? crlf >= limit : crlf + 4 > limit)) return null;
  const end = crlf + 4;
  // warcio looks for the block's end chunk by chunk (64 KiB pieces of the member) and misses one that
  // starts in a remainder under 5 bytes (it then reads past it): keep to one piece, with a margin
  if (Math.floor(at / piece) !== Math.floor((end + 16) / piece)) return null;
  if (!plainAscii(b, at, eol)) return null;
  if (!parse) return { end, headers: new ParsedHeaders(statusline, b, []) };
  const headers = headerLines(b, statusline, eol + 1, end);
  return headers && { end, headers };
}

/** Blank lines read between records (warcio reads them while it reads headers, which are bounded). */
const MAX_BLANK_LINES = 16;

/** After a record's content: CRLFs, then the member's end or the next record; anything else leaves the member to warcio. */
function nextRecordStart(b: Buffer, at: number): number | null {
  for (let n = 0; at + 1 < b.length && b[at] === CR && b[at + 1] === LF; n++) {
    if (n === MAX_BLANK_LINES) return null;
    at += 2;
  }
  if (at === b.length) return at;
  return isWarcLine(b, at) ? at : null;
}

/**
 * The records of an inflated member, exactly as warcio (WARCParser with parseHttp) reads them, or
 * null when the member is not the plain case. `piece`: the size of the pieces warcio is fed.
 */
export function parseMemberRecords(b: Buffer, piece: number): ParsedRecord[] | null {
  const out: ParsedRecord[] = [];
  let at = 0;
  if (b.length === 0) return out;
  while (at < b.length) {
    if (!isWarcLine(b, at)) return null;
    const head = headerBlock(b, at, b.length, piece);
    if (!head) return null;
    const w = head.headers;
    const lengthText = w.get("content-length");
    if (lengthText === undefined || !/^\d{1,15}$/.test(lengthText)) return null;
    const length = Number(lengthText);
    const contentStart = head.end;
    const contentEnd = contentStart + length;
    // a record that runs past its member is truncated: warcio says so
    if (contentEnd > b.length) return null;
    const type = w.get("warc-type");
    let http: ParsedHeaders | null = null;
    let bodyStart = contentStart;
    // where warcio goes on reading: past the HTTP headers if they ran past the content
    let readTo = contentEnd;
    if (type === "response" || type === "request" || (type === "revisit" && length > 0)) {
      // a request whose header block lacks its blank line (pywb writes them so): warcio reads the
      // blank line from the CRLFs after the record and goes on from there; its headers are not used
      const block = headerBlock(b, contentStart, contentEnd, piece, type === "request", type !== "request");
      if (!block) return null;
      http = block.headers;
      bodyStart = Math.min(block.end, contentEnd);
      readTo = Math.max(block.end, contentEnd);
    }
    out.push({ warc: head.headers, length, http, bodyStart, bodyEnd: contentEnd });
    const next = nextRecordStart(b, readTo);
    if (next === null) return null;
    at = next;
  }
  return out;
}

/** warcio's StatusAndHeaders.statusCode read as our reader reads it: `Number(statusCode) || null`. */
export function httpStatus(statusline: string): number | null {
  const parts = statusline.split(" ");
  return (parts.length > 1 ? Number(parts[1]) : 0) || null;
}
