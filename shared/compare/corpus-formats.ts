/**
 * Readers for published paraphrase corpora, as users download them, and for paracap's own datasets. The format is
 * told by the content, not the file name:
 * - MSRPC (`msr_paraphrase_*.txt`): `Quality\t#1 ID\t#2 ID\t#1 String\t#2 String`, header optional, UTF-8 BOM
 *   optional. Read with quoting disabled: its sentences hold unbalanced `"` that break CSV readers.
 * - PAWS (`train/dev/test.tsv`): `id\tsentence1\tsentence2\tlabel`, header optional, CRLF or LF.
 * - QQP (GLUE `train/dev.tsv`): `id\tqid1\tqid2\tquestion1\tquestion2\tis_duplicate` with header; GLUE's test file
 *   (`id\tquestion1\tquestion2`, no labels) too.
 * - TaPaCo (`tapaco_v1.0/<lang>.txt`): `paraphrase_set_id\tsentence_id\tparaphrase[\tlists[\ttags]]`, no header;
 *   every unordered pair of sentences of one set is a pair (as the paper's code built them), all labelled paraphrase.
 * - paracap datasets (`gold.jsonl`, `.jsonl.gz`): one ScoredPair per line; unlabelled.
 * An empty file (a tier without pairs) is a corpus of no pairs.
 * Text is UTF-8 (BOM optional), UTF-16 (with or without its mark), or a whole file in a single-byte
 * legacy encoding read as windows-1252 (an older corpus, a file saved by Excel); a line that is not
 * UTF-8 in a UTF-8 file (cut inside a character) is a skipped line, never a pair with U+FFFD.
 */
import { isUtf8 } from "node:buffer";
import { gunzipSync } from "node:zlib";
import { decodeText, guessTextEncoding, type GuessedEncoding } from "../io/text-encoding.ts";
import { decodeWindows1252 } from "../io/windows-1252.ts";

export type CorpusFormat = "msrp" | "paws" | "qqp" | "tapaco" | "paracap" | "empty";

export interface LabelledPair {
  a: string;
  b: string;
  /** the corpus's own paraphrase label; null when it has none */
  label: boolean | null;
}

export interface Corpus {
  format: CorpusFormat;
  /** how the file's text was read (guessTextEncoding): a caller says so when it is not UTF-8 */
  encoding: GuessedEncoding;
  pairs: LabelledPair[];
  /** lines that could not be read as a pair (counted, with the first few line numbers) */
  skipped: number;
  skippedLines: number[];
}

export class CorpusFormatError extends Error {}

const INT_RE = /^-?\d+$/;
const LABEL_RE = /^[01]$/;

/** A corpus file's text: its encoding, and the (0-based) lines that were not UTF-8 in a UTF-8 file, left empty in `text`. */
export interface CorpusText {
  text: string;
  encoding: GuessedEncoding;
  badLines: Set<number>;
}

/** Decodes gzip when the bytes start with its magic number, then the text in the encoding the bytes show (guessTextEncoding); drops a BOM. */
export function decodeCorpus(bytes: Uint8Array): CorpusText {
  let raw: Uint8Array = bytes;
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      raw = gunzipSync(bytes);
    } catch (err) {
      throw new CorpusFormatError(`cut or corrupt gzip data (${(err as Error).message})`);
    }
  }
  const { encoding, bom } = guessTextEncoding(raw, true);
  const badLines = new Set<number>();
  if (encoding === "windows-1252") return { text: decodeWindows1252(raw), encoding, badLines };
  if (encoding !== "utf-8") return { text: new TextDecoder(encoding, { ignoreBOM: true }).decode(raw.subarray(bom)), encoding, badLines };
  const buf = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  if (isUtf8(buf)) return { text: decodeText(raw), encoding, badLines };
  // damage in a UTF-8 file: each line on its own, a line that is not UTF-8 left empty and named
  const lines: string[] = [];
  for (let at = bom, n = 0; at <= buf.length; n++) {
    let end = buf.indexOf(0x0a, at);
    if (end < 0) end = buf.length;
    const line = buf.subarray(at, end);
    if (isUtf8(line)) lines.push(line.toString("utf8"));
    else {
      lines.push("");
      badLines.add(n);
    }
    at = end + 1;
  }
  return { text: lines.join("\n"), encoding, badLines };
}

/** A corpus file's text (decodeCorpus's). */
export function corpusText(bytes: Uint8Array): string {
  return decodeCorpus(bytes).text;
}

function lines(text: string): string[] {
  const out = text.split(/\r?\n/);
  if (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out;
}

/** The first `n` non-blank lines of a text, however long they are. */
function firstLines(text: string, n: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length && out.length < n; ) {
    let end = text.indexOf("\n", at);
    if (end < 0) end = text.length;
    const line = text.slice(at, end).replace(/\r$/, "");
    if (line.trim() !== "") out.push(line);
    at = end + 1;
  }
  return out;
}

/**
 * The format of a corpus text, from its first 20 lines: the format most of them fit (a stray line,
 * an extra tab in one sentence, is for the reader to skip and count, not a reason to refuse the file).
 */
export function detectFormat(text: string): CorpusFormat {
  const sample = firstLines(text, 20);
  if (sample.length === 0) return "empty";
  const first = sample[0]!;
  if (first.trimStart().startsWith("{")) return "paracap";
  const header = first.split("\t").map((h) => h.trim().toLowerCase());
  if (header.includes("question1") && header.includes("question2")) return "qqp";
  if (header[0] === "quality" && header.length === 5) return "msrp";
  if (header.includes("sentence1") && header.includes("sentence2")) return "paws";
  const rows = sample.map((l) => l.split("\t"));
  const all = (test: (f: string[]) => boolean) => rows.filter(test).length >= Math.max(1, Math.ceil(rows.length * 0.8));
  if (all((f) => f.length === 5 && LABEL_RE.test(f[0]!) && INT_RE.test(f[1]!) && INT_RE.test(f[2]!))) return "msrp";
  if (all((f) => f.length === 4 && INT_RE.test(f[0]!) && LABEL_RE.test(f[3]!.trim()))) return "paws";
  if (all((f) => f.length === 6 && INT_RE.test(f[0]!) && LABEL_RE.test(f[5]!.trim()))) return "qqp";
  if (all((f) => f.length >= 3 && f.length <= 6 && INT_RE.test(f[0]!) && INT_RE.test(f[1]!) && !INT_RE.test(f[2]!))) return "tapaco";
  throw new CorpusFormatError(
    `unknown corpus format (first line: ${JSON.stringify(first.slice(0, 120))}); expected MSRPC, PAWS, QQP, TaPaCo or paracap JSONL`,
  );
}

/**
 * Reads a corpus from its bytes (gzip or plain), detecting the format unless given. `maxChars`: a
 * sentence longer than this makes its line a skipped one (scoring cost grows with length; a run
 * bounds its captions the same way, captions.maxChars).
 */
export function readCorpus(bytes: Uint8Array, format?: CorpusFormat, opts: { maxChars?: number } = {}): Corpus {
  const max = opts.maxChars ?? Infinity;
  const tooLong = (...texts: string[]) => texts.some((t) => t.length > max);
  const { text, encoding, badLines } = decodeCorpus(bytes);
  const f = format ?? detectFormat(text);
  const corpus: Corpus = { format: f, encoding, pairs: [], skipped: 0, skippedLines: [] };
  const skip = (n: number) => {
    corpus.skipped++;
    if (corpus.skippedLines.length < 10) corpus.skippedLines.push(n);
  };
  const all = lines(text);
  if (f === "empty") return corpus;

  if (f === "paracap") {
    all.forEach((line, i) => {
      if (badLines.has(i)) return skip(i + 1);
      if (line.trim() === "") return;
      try {
        const o = JSON.parse(line) as { a?: { text?: unknown }; b?: { text?: unknown }; paraphrase?: unknown };
        if (typeof o.a?.text !== "string" || typeof o.b?.text !== "string" || tooLong(o.a.text, o.b.text)) return skip(i + 1);
        corpus.pairs.push({ a: o.a.text, b: o.b.text, label: null });
      } catch {
        skip(i + 1);
      }
    });
    return corpus;
  }
  if (f === "tapaco") {
    const sets = new Map<string, string[]>();
    all.forEach((line, i) => {
      if (badLines.has(i)) return skip(i + 1);
      const c = line.split("\t");
      if (c.length < 3 || !INT_RE.test(c[0]!) || c[2]!.trim() === "" || tooLong(c[2]!)) return skip(i + 1);
      let s = sets.get(c[0]!);
      if (!s) sets.set(c[0]!, (s = []));
      s.push(c[2]!);
    });
    for (const s of sets.values()) {
      for (let i = 0; i < s.length; i++) for (let j = i + 1; j < s.length; j++) corpus.pairs.push({ a: s[i]!, b: s[j]!, label: true });
    }
    return corpus;
  }
  // tab-separated pairs with an optional header: column positions per format
  let cols = f === "msrp" ? { a: 3, b: 4, label: 0, n: 5 } : f === "paws" ? { a: 1, b: 2, label: 3, n: 4 } : { a: 3, b: 4, label: 5, n: 6 };
  all.forEach((line, i) => {
    // a line that was not UTF-8 (its text left empty): a skipped line, whatever the format
    if (badLines.has(i)) return skip(i + 1);
    if (line.trim() === "") return;
    const c = line.split("\t");
    if (i === 0 && !INT_RE.test(c[0]!.trim())) {
      const h = c.map((x) => x.trim().toLowerCase());
      // GLUE's QQP test file: id, question1, question2
      if (f === "qqp" && !h.includes("is_duplicate")) cols = { a: h.indexOf("question1"), b: h.indexOf("question2"), label: -1, n: h.length };
      return; // a header
    }
    if (c.length !== cols.n) return skip(i + 1);
    const label = cols.label < 0 ? null : c[cols.label]!.trim();
    if (label !== null && !LABEL_RE.test(label)) return skip(i + 1);
    if (tooLong(c[cols.a]!, c[cols.b]!)) return skip(i + 1);
    corpus.pairs.push({ a: c[cols.a]!, b: c[cols.b]!, label: label === null ? null : label === "1" });
  });
  return corpus;
}
