/**
 * An HTTP body as a WARC stores it → the page's text: transfer chunking removed, Content-Encoding
 * (gzip, deflate, br, zstd, and a list of them applied in turn) undone with a bound on the decoded size (a gzip bomb is a counted skip, never
 * a gigabyte in memory), and the charset found the way a browser finds it: a byte order mark, the
 * Content-Type header, a `<meta charset>` (or http-equiv) near the top, else UTF-8 if the bytes are
 * valid UTF-8, else windows-1252. Node's TextDecoder (full ICU) decodes the legacy encodings but
 * windows-1252, which is decoded here (see decodeWindows1252).
 */
import { isAscii, isUtf8, transcode } from "node:buffer";
import { decodeWindows1252 } from "../../io/windows-1252.ts";
import { brotliDecompressSync, constants, gunzipSync, inflateRawSync, inflateSync } from "node:zlib";
import { Decompress as ZstdStream } from "fzstd";

export type BodyText = { text: string; charset: string } | { drop: string };

/** Undoes `Transfer-Encoding: chunked`; a body that is not chunked after all (a crawler already de-chunked it) is returned as is. */
export function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf("\r\n", at, "latin1");
    if (eol < 0 || eol - at > 64) break;
    const size = Number.parseInt(body.subarray(at, eol).toString("latin1").split(";")[0]!.trim(), 16);
    if (!Number.isFinite(size) || size < 0) break;
    if (size === 0) return Buffer.concat(parts);
    const from = eol + 2;
    if (from + size > body.length) {
      // cut in the last chunk: keep what is there
      parts.push(body.subarray(from));
      return Buffer.concat(parts);
    }
    parts.push(body.subarray(from, from + size));
    at = from + size;
    if (body[at] === 0x0d && body[at + 1] === 0x0a) at += 2;
  }
  return parts.length === 0 ? body : Buffer.concat(parts);
}

function looksLikeText(b: Buffer): boolean {
  return /^\s*(<|\uFEFF)/.test(b.subarray(0, 64).toString("latin1"));
}

/** The body with its Content-Encoding undone, at most `maxBytes` decoded; or why not. */
export function decodeContent(body: Buffer, encoding: string | undefined, maxBytes: number): { bytes: Buffer } | { drop: string } {
  // codings listed in the order they were applied (RFC 9110 §8.4): undone last first
  const codings = (encoding ?? "").split(",").map((c) => c.trim().toLowerCase()).filter((c) => c !== "" && c !== "identity" && c !== "none");
  if (codings.length === 0) return { bytes: body };
  let bytes = body;
  for (let i = codings.length - 1; i >= 0; i--) {
    const out = decodeOne(bytes, codings[i]!, maxBytes);
    if (out === "unknown") return { drop: "unknown_content_encoding" };
    // Some crawlers store the decoded body but keep the header: markup is taken as it is.
    if (out === null) return i === codings.length - 1 && looksLikeText(bytes) ? { bytes } : { drop: "bad_content_encoding" };
    if ("drop" in out) return out;
    bytes = out.bytes;
  }
  return { bytes };
}

/** One content coding undone; null: the bytes are not in it; "unknown": a coding not read. */
function decodeOne(body: Buffer, enc: string, maxBytes: number): { bytes: Buffer } | { drop: string } | null | "unknown" {
  const opts = { maxOutputLength: maxBytes };
  const attempt = (decode: () => Buffer): { bytes: Buffer } | { drop: string } | null => {
    try {
      return { bytes: decode() };
    } catch (err) {
      if ((err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE" || err instanceof RangeError) return { drop: "decoded_too_large" };
      return null;
    }
  };
  // a body cut short (the crawler's fetch ended early) gives what it holds: flushed, not finished
  const cut = { ...opts, finishFlush: constants.Z_SYNC_FLUSH };
  if (enc === "gzip" || enc === "x-gzip") return attempt(() => gunzipSync(body, opts)) ?? attempt(() => gunzipSync(body, cut));
  if (enc === "deflate") return attempt(() => inflateSync(body, opts)) ?? attempt(() => inflateRawSync(body, opts)) ?? attempt(() => inflateSync(body, cut)) ?? attempt(() => inflateRawSync(body, cut));
  if (enc === "br") return attempt(() => brotliDecompressSync(body, opts));
  if (enc === "zstd") return attempt(() => zstdDecompress(body, maxBytes));
  return "unknown";
}

/** fzstd's ZstdErrorCode.UnexpectedEOF */
const ZSTD_UNEXPECTED_EOF = 5;

/** zstd (RFC 8878), as browsers accept it since 2024: decoded as a stream, stopped past `maxBytes` (a RangeError, as zlib's bound). */
function zstdDecompress(body: Buffer, maxBytes: number): Buffer {
  const parts: Uint8Array[] = [];
  let size = 0;
  const stream = new ZstdStream((data) => {
    size += data.length;
    if (size > maxBytes) throw new RangeError(`zstd body over ${maxBytes} bytes decoded`);
    parts.push(data);
  });
  try {
    stream.push(body, true);
  } catch (err) {
    // a body cut short gives what it holds, as a cut gzip body does
    if (err instanceof RangeError || (err as { code?: number }).code !== ZSTD_UNEXPECTED_EOF || size === 0) throw err;
  }
  return Buffer.concat(parts, size);
}

/** `charset=` of a Content-Type value. */
export function headerCharset(contentType: string | undefined): string | null {
  const m = /;\s*charset\s*=\s*["']?([^"';\s]+)/i.exec(contentType ?? "");
  return m ? m[1]!.toLowerCase() : null;
}

/** How far into a page a `<meta>` charset is looked for first (the HTML spec prescans 1024 bytes; pages put it later). */
const META_SCAN = 4096;
/** How far a page's head is read for a later one (after large inline scripts or styles), up to its `<body>`. */
const HEAD_SCAN = 64 * 1024;

/**
 * The charset a `<meta>` declares, as the HTML prescan reads it: a `charset` attribute, or the
 * `content` of a meta whose `http-equiv` is Content-Type (a `content` holding "charset=" on any
 * other meta, a description say, declares nothing). Looked for in the first 4 KiB, then in the
 * rest of the head.
 */
export function metaCharset(bytes: Buffer): string | null {
  const early = metaIn(bytes.subarray(0, META_SCAN).toString("latin1"));
  if (early !== null || bytes.length <= META_SCAN) return early;
  const head = bytes.subarray(0, HEAD_SCAN).toString("latin1");
  const body = head.search(/<body[\s>]/i);
  return metaIn(body >= 0 ? head.slice(0, body) : head);
}

const META_TAG = /<meta[\s/]([^>]*)>?/gi;
const ATTRIBUTE = /([^\s=/>]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]*))?/g;

function metaIn(html: string): string | null {
  for (const tag of html.matchAll(META_TAG)) {
    const attrs = new Map<string, string>();
    for (const a of tag[1]!.matchAll(ATTRIBUTE)) {
      const name = a[1]!.toLowerCase();
      if (!attrs.has(name)) attrs.set(name, (a[2] ?? "").replace(/^["']|["']$/g, ""));
    }
    const charset = attrs.get("charset")?.trim();
    if (charset) return charset.toLowerCase();
    if (attrs.get("http-equiv")?.trim().toLowerCase() === "content-type") {
      const m = /charset\s*=\s*["']?\s*([a-z0-9_.:-]+)/i.exec(attrs.get("content") ?? "");
      if (m) return m[1]!.toLowerCase();
    }
  }
  return null;
}

/** The encoding of an XML declaration opening the page (`<?xml version="1.0" encoding="iso-8859-1"?>`), an XHTML page's only declaration at times. */
export function xmlDeclCharset(bytes: Buffer): string | null {
  const m = /^\s*<\?xml[^>]*?\sencoding\s*=\s*["']([a-z0-9_.:-]+)["']/i.exec(bytes.subarray(0, 256).toString("latin1"));
  return m ? m[1]!.toLowerCase() : null;
}

/**
 * Whether bytes without a byte order mark read as UTF-16 in the given byte order: markup in UTF-16
 * has a NUL as the high byte of nearly every character in its first bytes.
 */
function looksUtf16(b: Buffer, littleEndian: boolean): boolean {
  const n = Math.min(b.length, 512) & ~1;
  if (n < 4) return false;
  let zeros = 0;
  for (let i = littleEndian ? 1 : 0; i < n; i += 2) if (b[i] === 0) zeros++;
  return zeros >= (n / 2) * 0.6;
}

function bomCharset(b: Buffer): { charset: string; skip: number } | null {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return { charset: "utf-8", skip: 3 };
  if (b[0] === 0xfe && b[1] === 0xff) return { charset: "utf-16be", skip: 2 };
  if (b[0] === 0xff && b[1] === 0xfe) return { charset: "utf-16le", skip: 2 };
  return null;
}

type Decoder = { decode(b: Uint8Array): string; readonly encoding: string };

/**
 * A decoder per label, made once: decode() without `stream` keeps no state between calls. Bounded:
 * only the WHATWG labels (a few hundred) make a decoder, and an unknown label is remembered as null.
 */
const decoders = new Map<string, Decoder | null>();
const MAX_LABELS = 1024;

function decoderFor(label: string): Decoder | null {
  let d = decoders.get(label);
  if (d === undefined) {
    try {
      d = new TextDecoder(label);
    } catch {
      d = null;
    }
    if (decoders.size < MAX_LABELS) decoders.set(label, d);
  }
  return d;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * What TextDecoder("utf-8") makes of `b` when it is valid UTF-8, or null when it is not: ASCII is
 * copied as Latin-1 and other valid UTF-8 converted by ICU (both several times faster than the
 * decoder, and for valid input the text is the same: a valid encoding has one reading). The
 * decoder drops a leading byte order mark; so does this.
 */
function validUtf8Text(b: Buffer): string | null {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) b = b.subarray(3);
  if (isAscii(b)) return b.toString("latin1");
  if (!isUtf8(b)) return null;
  return transcode(b, "utf8", "utf16le").toString("utf16le");
}

/** `decoder.decode(bytes)`, by the fast path when the decoder is UTF-8 (or Latin-1 on ASCII bytes) and the bytes let it. */
function decodeWith(d: Decoder, bytes: Buffer): string {
  if (d.encoding === "utf-8") return validUtf8Text(bytes) ?? d.decode(bytes);
  // windows-1252 (iso-8859-1, ascii, …): read by its own table (every ASCII byte is itself)
  if (d.encoding === "windows-1252") return isAscii(bytes) ? bytes.toString("latin1") : decodeWindows1252(bytes);
  return d.decode(bytes);
}

/** The decoder the evidence names, in the browser's order (a byte order mark, the header, a `<meta>`), with the bytes it skips; null when none does. */
function declaredDecoder(bytes: Buffer, contentType: string | undefined): { d: Decoder; skip: number } | null {
  const bom = bomCharset(bytes);
  if (bom) return { d: decoderFor(bom.charset)!, skip: bom.skip };
  const header = headerCharset(contentType);
  const fromHeader = header ? decoderFor(header) : null;
  // UTF-16 from the header is taken when the bytes are UTF-16 (no BOM needed); a header or a meta
  // that declares UTF-16 over ASCII markup is not believed (HTML spec: such a meta means UTF-8)
  if (fromHeader?.encoding.startsWith("utf-16") && looksUtf16(bytes, fromHeader.encoding === "utf-16le")) return { d: fromHeader, skip: 0 };
  for (const d of [fromHeader, ...[metaCharset(bytes), xmlDeclCharset(bytes)].map((label) => (label ? decoderFor(label) : null))]) {
    if (d && !d.encoding.startsWith("utf-16")) return { d, skip: 0 };
  }
  return null;
}

/**
 * Encodings in which an ASCII character of the text need not be its own byte (WHATWG: the encodings
 * that are not ASCII-compatible). In every other one, and in the UTF-8 or windows-1252 a page without
 * a declaration is read in, ASCII text is written as its ASCII bytes.
 */
const NOT_ASCII_COMPATIBLE = new Set(["utf-16be", "utf-16le", "iso-2022-jp", "replacement"]);

/**
 * Whether the text decodeText makes of `bytes` may hold `<img` or `<amp-img` (in any ASCII case): false only when it
 * certainly does not, read from the bytes without decoding them. In an ASCII-compatible encoding the
 * four characters are four bytes, `<` never the second byte of a character, so text that holds them
 * comes from bytes that hold them.
 */
export function mayHoldImgTag(bytes: Buffer, contentType: string | undefined): boolean {
  // most pages that have one write it in lower (or upper) case: found at native speed
  if (bytes.indexOf("<img", 0, "latin1") >= 0 || bytes.indexOf("<IMG", 0, "latin1") >= 0) return true;
  const declared = declaredDecoder(bytes, contentType);
  if (declared !== null && NOT_ASCII_COMPATIBLE.has(declared.d.encoding)) return true;
  // (an AMP page's pictures are <amp-img>s)
  return /<(?:amp-)?img/i.test(bytes.toString("latin1"));
}

/** Text of decoded bytes by the browser's order of evidence. */
export function decodeText(bytes: Buffer, contentType: string | undefined): { text: string; charset: string } {
  const declared = declaredDecoder(bytes, contentType);
  if (declared !== null) return { text: decodeWith(declared.d, bytes.subarray(declared.skip)), charset: declared.d.encoding };
  const text = validUtf8Text(bytes);
  if (text !== null) return { text, charset: "utf-8" };
  try {
    // (not valid UTF-8: the strict decoder throws, as it always did here)
    return { text: strictUtf8.decode(bytes), charset: "utf-8" };
  } catch {
    return { text: decodeWindows1252(bytes), charset: "windows-1252" };
  }
}

export interface HttpBody {
  headers: ReadonlyMap<string, string>;
  body: Buffer;
}

/** The bytes of an HTTP body with its transfer and content encodings undone (at most `maxBytes`), or the reason it has none. */
export function bodyBytes(rec: HttpBody, maxBytes: number): { bytes: Buffer } | { drop: string } {
  const te = rec.headers.get("transfer-encoding")?.toLowerCase() ?? "";
  const raw = te.includes("chunked") ? dechunk(rec.body) : rec.body;
  return decodeContent(raw, rec.headers.get("content-encoding"), maxBytes);
}

/** The text of an HTTP body, or the reason it has none. */
export function bodyText(rec: HttpBody, maxBytes: number): BodyText {
  const decoded = bodyBytes(rec, maxBytes);
  if ("drop" in decoded) return decoded;
  return decodeText(decoded.bytes, rec.headers.get("content-type"));
}
