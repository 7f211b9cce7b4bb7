/**
 * `paracap minhash`: Chung & Knight's paraphrase finder over paragraphs. Two files: paragraphs of A
 * matched against B (the paper's translation experiment); one file: near-duplicate paragraphs
 * within it. One JSONL line per pair, then one summary line.
 */
import { decodeText, guessTextEncoding } from "../io/text-encoding.ts";
import { gunzipSync } from "node:zlib";
import { decodeWindows1252 } from "../io/windows-1252.ts";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { evaluateAgainstExact } from "../minhash/evaluation.ts";
import { MinhashEvaluation, thinScatter } from "../output/minhash-chart.ts";
import { MINHASH_JSON } from "../output/minhash-section.ts";
import { parseCommandArgs } from "./parse-args.ts";
import { encodeCorpus } from "../minhash/corpus.ts";
import { exactPairs, jaccard } from "../minhash/jaccard.ts";
import { greedyOneToOne, type ScoredPair } from "../minhash/one-to-one.ts";
import { gutenbergMarkers, isHeading, paragraphsOrLines, stripGutenberg } from "../minhash/paragraphs.ts";
import { MinhashOptions, minhashPairs, type MinhashStats } from "../minhash/permutaries.ts";
import { expandArgs } from "./argv.ts";
import { UserError } from "../core/errors.ts";

export const MINHASH_USAGE = `paracap minhash <a.txt> [<b.txt>] [--perms m] [--threshold t] [--one-to-one] [--exact] [--paper] [--evaluation <dir>]
  paragraphs (blank-line separated; a file without any blank line: its lines) of a.txt matched against
  b.txt, or near-duplicate paragraphs within a.txt alone (Chung & Knight's min-hash "permutaries" over word sets); one JSONL line per
  pair, {"a","b","estimate"} (indices of the paragraphs, 0-based), then {"summary":{…}}
  --perms <m>          permutaries (default 256)
  --threshold <t>      Jaccard ≥ t is a pair (default 0.33, in (0, 1]): candidates with an estimate
                       ≥ t − slack are verified by their exact Jaccard
  --slack <s>          how far below t a candidate's estimate may be (default 0.1)
  --paper              the paper's method: estimated Jaccard ≥ t is a pair, no verification
  --one-to-one         at most one pair per paragraph (greedy, best estimate first)
  --exact              add each pair's exact Jaccard ("exact")
  --exact-only         the exact O(n²) method instead of the estimate ("exact" only)
  --text               add each pair's two paragraphs as read ("textA", "textB")
  --keep-headings      pair chapter headings too ("CHAPTER I" / "CHAPTER II" reach J = 1/3); by default a
                       paragraph that is only a heading keeps its index but pairs with nothing (summary:
                       "headings", "headingPairs")
  --seed <n>           seed of the permutaries (default ${MinhashOptions.shape.seed.parse(undefined)})
  --bucket-cap <n>     hash buckets larger than this are not enumerated, only counted (default ${MinhashOptions.shape.bucketCap.parse(undefined)})
  --gutenberg          strip Project Gutenberg header and footer first (a PG file read without it is
                       named on stderr)
  --evaluation <dir>   also measure min-hash against the exact method (estimated vs exact Jaccard of
                       every pair with J ≥ 0.1; P/R/F by threshold) into <dir>/minhash.json; when
                       <dir> is a run's output folder, its report.html shows it (paracap report <dir>)
  files are UTF-8, or Latin-1 when they are not valid UTF-8`;

const NUMBERS = ["--perms", "--threshold", "--seed", "--bucket-cap", "--slack"];

export async function minhashCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("minhash", {
    args: expandArgs(argv, [], NUMBERS),
    allowPositionals: true,
    options: {
      perms: { type: "string" }, threshold: { type: "string" }, seed: { type: "string" }, "bucket-cap": { type: "string" }, slack: { type: "string" },
      paper: { type: "boolean", default: false }, evaluation: { type: "string" },
      "one-to-one": { type: "boolean", default: false }, exact: { type: "boolean", default: false },
      "exact-only": { type: "boolean", default: false }, gutenberg: { type: "boolean", default: false }, text: { type: "boolean", default: false },
      "keep-headings": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(MINHASH_USAGE + "\n");
    return 0;
  }
  if (positionals.length < 1 || positionals.length > 2) throw new UserError("usage: paracap minhash <a.txt> [<b.txt>] [--perms m --threshold t --one-to-one --exact]");
  const parsed = MinhashOptions.safeParse({
    perms: numberFlag(values.perms, "--perms"), threshold: numberFlag(values.threshold, "--threshold"),
    seed: numberFlag(values.seed, "--seed"), bucketCap: numberFlag(values["bucket-cap"], "--bucket-cap"),
    slack: numberFlag(values.slack, "--slack"), verify: values.paper ? "estimate" : "exact",
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError(`--${flagOf(String(issue.path[0]))}: ${issue.message}`);
  }
  const opts = parsed.data;
  const texts = positionals.map((file) => {
    const text = readText(file);
    // two PG files' licences are hundreds of identical paragraphs: pairs nobody wants, so say how to drop them
    if (!values.gutenberg && gutenbergMarkers(text)) process.stderr.write(`paracap minhash: ${file} is a Project Gutenberg file: its header and licence are read as paragraphs too; --gutenberg strips them\n`);
    const { paragraphs, byLine } = paragraphsOrLines(values.gutenberg ? stripGutenberg(text) : text);
    if (byLine) process.stderr.write(`paracap minhash: ${file} has no blank line between paragraphs: read one paragraph a line (${paragraphs.length.toLocaleString("en-US")} lines)\n`);
    return paragraphs;
  });
  const corpus = encodeCorpus(texts[0]!, texts[1] ?? null);
  const others = corpus.b ?? corpus.a;
  const withExact = values.exact || values["exact-only"];
  const out = new LineWriter();
  const line = (p: ScoredPair) => {
    const exact = values["exact-only"] ? p.score : withExact ? round(jaccard(corpus.a[p.i]!, others[p.j]!)) : undefined;
    const estimate = values["exact-only"] ? undefined : round(p.score);
    // --text: the paragraphs as read (boilerplate stripped, inner line breaks as spaces), so a pair is readable as it is
    const text = values.text ? { textA: texts[0]![p.i], textB: (texts[1] ?? texts[0]!)[p.j] } : {};
    out.write(JSON.stringify({ a: p.i, b: p.j, estimate, exact, ...text }));
  };
  const collected: ScoredPair[] = [];
  // chapter headings ("CHAPTER I" / "CHAPTER II": J = 1/3) keep their places (indices are every paragraph's) but pair with nothing
  const headingsA = values["keep-headings"] ? null : texts[0]!.map(isHeading);
  const headingsB = values["keep-headings"] ? null : texts[1] ? texts[1].map(isHeading) : headingsA;
  const headings = headingsA ? [headingsA, texts[1] ? headingsB! : []].flat().filter(Boolean).length : 0;
  let headingPairs = 0;
  const keep = (i: number, j: number) => {
    if (headingsA && (headingsA[i] || headingsB![j])) return (headingPairs++, false);
    return true;
  };
  const sink = values["one-to-one"]
    ? (i: number, j: number, score: number) => void (keep(i, j) && collected.push({ i, j, score }))
    : (i: number, j: number, score: number) => void (keep(i, j) && line({ i, j, score }));
  let stats: MinhashStats | null = null;
  if (values["exact-only"]) exactPairs(corpus, opts.threshold, sink);
  else stats = minhashPairs(corpus, opts, sink);
  let pairs = (stats?.pairs ?? 0) - headingPairs;
  if (values["one-to-one"]) {
    const kept = greedyOneToOne(collected, corpus.b === null).sort((p, q) => p.i - q.i || p.j - q.j);
    kept.forEach(line);
    pairs = kept.length;
  } else if (!stats) pairs = out.lines;
  const summary = {
    mode: corpus.b ? "cross" : "within",
    method: values["exact-only"] ? "exact" : "minhash",
    paragraphsA: corpus.a.length,
    paragraphsB: corpus.b?.length ?? null,
    vocabulary: corpus.vocabulary.length,
    perms: values["exact-only"] ? null : opts.perms,
    threshold: opts.threshold,
    verify: values["exact-only"] ? null : opts.verify,
    oneToOne: values["one-to-one"],
    pairs,
    ...(values["keep-headings"] ? {} : { headings, headingPairs }),
    ...(stats ? { bucketsCapped: stats.bucketsCapped, entriesCapped: stats.entriesCapped, rowsAtRisk: stats.rowsAtRisk, verified: stats.verified, rejected: stats.rejected } : {}),
  };
  out.write(JSON.stringify({ summary }));
  out.flush();
  if (values.evaluation !== undefined) {
    const { scatter, prfExact } = evaluateAgainstExact(corpus, opts);
    const evaluation = MinhashEvaluation.parse({ corpus: positionals.map((f) => basename(f)).join(" × "), scatter: thinScatter(scatter, 200), prfKey: [], prfExact });
    mkdirSync(values.evaluation, { recursive: true });
    const file = join(values.evaluation, MINHASH_JSON);
    // whole or not at all: a report never reads half a file
    writeFileSync(`${file}.tmp`, JSON.stringify(evaluation) + "\n");
    renameSync(`${file}.tmp`, file);
    process.stderr.write(`paracap minhash: wrote ${file} (${scatter.length.toLocaleString("en-US")} pairs with J ≥ 0.1, ${evaluation.scatter.length} drawn)\n`);
  }
  return 0;
}

/** Batches lines into ~64 KiB writes (stdout to a pipe or file is synchronous on Linux, so memory stays bounded). */
class LineWriter {
  private buffer: string[] = [];
  private size = 0;
  lines = 0;
  write(line: string): void {
    this.buffer.push(line);
    this.size += line.length + 1;
    this.lines++;
    if (this.size > 65536) this.flush();
  }
  flush(): void {
    if (this.buffer.length > 0) process.stdout.write(this.buffer.join("\n") + "\n");
    this.buffer = [];
    this.size = 0;
  }
}

export function readText(file: string): string {
  if (!existsSync(file)) throw new UserError(`no such file: ${file}`);
  if (!statSync(file).isFile()) throw new UserError(`not a file: ${file}`);
  let bytes: Uint8Array = readFileSync(file);
  // a gzipped text (a mirror's .txt.gz) is its text; a zip (Project Gutenberg's older downloads) or any other
  // binary would otherwise be read as windows-1252 and give a dozen nonsense "paragraphs", silently
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes);
    } catch (e) {
      throw new UserError(`${file}: cut or corrupt gzip data (${(e as Error).message})`);
    }
  }
  if (bytes[0] === 0x50 && bytes[1] === 0x4b && ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6))) {
    throw new UserError(`${file} is a zip archive: unzip it (unzip ${file}) and pass the .txt it holds`);
  }
  // UTF-16 (with its mark, as Windows writes "Unicode", or without), else UTF-8, else Latin-1 (older Gutenberg
  // texts) read as windows-1252: Node's TextDecoder("latin1") turns 0x92 ("’") into the control U+0092
  const { encoding, bom } = guessTextEncoding(bytes.subarray(0, 1 << 16), false);
  let text: string;
  if (encoding === "utf-16le" || encoding === "utf-16be") text = new TextDecoder(encoding, { ignoreBOM: true }).decode(bytes.subarray(bom));
  else {
    try {
      text = decodeText(bytes, { fatal: true });
    } catch {
      text = decodeWindows1252(bytes);
    }
  }
  if (text.includes("\u0000")) throw new UserError(`${file} is not a text file (it holds NUL bytes): paracap minhash reads plain text, paragraphs separated by blank lines`);
  return text;
}

function numberFlag(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) throw new UserError(`${flag} takes a number, got "${value}"`);
  return n;
}

function flagOf(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;
