/** The single-purpose commands: extract (references as JSONL), features (captions), score (pairs). */
import { unreadableReason } from "../caption/caption-guard.ts";
import { applyInputSettings } from "../sources/input-settings.ts";
import { BUILTIN_SOURCES } from "../sources/registry.ts";
import { dropsTemplateImages } from "../web/html/template-images.ts";
import { dropsCredits } from "../web/html/hidden-text.ts";
import { readsClassCaptions } from "../web/html/class-captions.ts";
import { existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { parseCommandArgs } from "./parse-args.ts";
import { createCaptionAnalyzer } from "../caption/analyzer.ts";
import { Counters } from "../core/counters.ts";
import type { PageRevision, WikitextImageRef } from "../core/records.ts";
import { readDumpPages } from "../dump/page-reader.ts";
import { DumpError } from "../dump/errors.ts";
import { resolveConfig } from "../core/config.ts";
import { createScorers } from "../plugins/scorers.ts";
import { SCORER_NAMES } from "../core/plugin-names.ts";
import { applyModelFlag, checkModel } from "../semantic/model-flag.ts";
import { checkSemanticConfig, semanticVerdict } from "../semantic/semantic-score.ts";
import { extractImageRefs } from "../wikitext/extract-images.ts";
import { readConfigFile } from "./config-file.ts";
import { configFromEnv } from "../core/env-layer.ts";
import { UserError } from "../core/errors.ts";
import { mapLineBatches, mapLines, NO_LINE } from "./lines.ts";
import { lineEncoding } from "../io/line-encoding.ts";
import { CaptionLineReader, HEADER_LINE } from "./caption-lines.ts";
import { NO_RECORD, PairLineReader, type BadPairLine, type PairLine } from "./pair-lines.ts";
import type { Readable } from "node:stream";
import { dumpCounter, WARC_DAMAGE_SAMPLE, warcCounter, warcSkippedCounter } from "../core/counter-names.ts";
import { warcCaptionLines } from "../sources/warc/warc-extract-lines.ts";
import { isWaczName } from "../web/warc/wacz.ts";
import { WEB_CAPTION_TYPES } from "../web/html/extract-captions.ts";
import { warcSource } from "../sources/warc/warc-source.ts";
import { openSync, readSync, closeSync } from "node:fs";

/** A WARC or ARC by name or by its first bytes (the WARC source's own test). */
function isWarcFile(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const head = Buffer.alloc(4096);
    return warcSource.claims(basename(file), head.subarray(0, readSync(fd, head, 0, head.length, 0)));
  } finally {
    closeSync(fd);
  }
}

export const EXTRACT_USAGE = `paracap extract <file.xml[.bz2|.gz]|file.wikitext|file.warc[.gz]|file.arc[.gz]|file.wacz> [--all-namespaces] [--config <file>]
  image references as JSONL, one line per reference and caption type:
  {"image","type":"caption"|"alt"|null,"text","page","source","revisionId"}
  (a .wikitext/.wiki/.txt file is one page titled after the file name, revisionId 0); of a WARC or ARC:
  {"image","type":${WEB_CAPTION_TYPES.map((t) => `"${t}"`).join("|")},"text","page","url","recordId"}
  --config <file>    JSON config file, as for run (with the PARACAP_* environment): its extraction
                     settings (fileAliases such as "Datei", maxPageBytes, colonFileLinks,
                     unknownTemplates) and dump.namespaces / dump.skipRedirects apply
  --all-namespaces   every namespace of a dump (default: the config's dump.namespaces, [0])`;
const ENCODING_HELP = `stdin's encoding, a WHATWG label (macintosh, windows-1252, iso-8859-2,
                     shift_jis, …), each line decoded with it (default: UTF-8, UTF-16 by its mark)`;
export const FEATURES_USAGE = `paracap features [--classifier improved|paper] [--encoding <label>] < captions.txt
  one JSONL line per input line, in order: {"text","words","profane","english","hasVerb","isSentence","tags"};
  a caption list (caption<TAB>URL or URL<TAB>caption, as Conceptual Captions', or a header naming its
  caption and url columns, which gets no output line) is read for its captions, said on stderr;
  a line a run would not analyse either (over captions.maxChars characters, or with an unbroken run
  of over captions.maxTokenChars) gives {"skipped":"caption_too_long"|"token_too_long"}
  --encoding <label> ${ENCODING_HELP}`;
export const SCORE_USAGE = `paracap score [--model <dir>] [--scorers <list>] [--config <file>] [--skip-bad] [--encoding <label>] < pairs.tsv
  one JSONL line of metrics per caption1<TAB>caption2 line, in order; when the scorers report the
  metrics of scoring.semantic (the default), also semantic, deltaSemSyn and the paraphrase verdict
  ("paraphrase", "paraphraseBy"), as the pairs of a run carry them. The corpora as downloaded are read
  too, told by their first line: a header naming the two text columns (sentence1/sentence2,
  question1/question2, #1 String/#2 String, …; TSV, or CSV such as Kaggle's Quora train.csv; the header
  gets no output line), MSRPC, PAWS and QQP without a header, JSON lines (a Hugging Face export, or
  paracap's own tier lines); the layout read is said on stderr. A line that is not a pair, or with a
  caption over captions.maxChars, stops the command (exit 2, the lines before it written)
  --model <dir>      transformer model directory (or, online, a hub id): adds the embedding and
                     bertscore metrics
  --scorers <list>   comma-separated scorers (default: the config's, syntactic and wordVectors):
                     ${SCORER_NAMES.join(", ")}
  --config <file>    JSON config file (its scoring section is used)
  --skip-bad         answer such a line {"skipped":"not_a_pair"|"caption_too_long"} instead and go
                     on; a summary on stderr says how many lines were skipped and why
  --encoding <label> ${ENCODING_HELP}`;

/** One output line per reference and caption type; a reference with neither caption nor alt has type null. */
export function referenceLines(ref: WikitextImageRef, page: string): object[] {
  const lines: object[] = [];
  const line = (type: "caption" | "alt" | null, text: string | null) => ({ image: ref.image, type, text, page, source: ref.source });
  if (ref.caption !== null) lines.push(line("caption", ref.caption));
  if (ref.alt !== null) lines.push(line("alt", ref.alt));
  if (lines.length === 0) lines.push(line(null, null));
  return lines;
}

export async function extractCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("extract", {
    args: argv,
    allowPositionals: true,
    options: { "all-namespaces": { type: "boolean", default: false }, config: { type: "string" }, help: { type: "boolean", short: "h", default: false } },
  });
  if (values.help) return usage(EXTRACT_USAGE);
  if (positionals.length !== 1) throw new UserError("usage: paracap extract <file.xml[.bz2]|file.wikitext|file.warc[.gz]|file.arc[.gz]|file.wacz> [--config <file>]");
  const file = positionals[0]!;
  if (!existsSync(file)) throw new UserError(`no such file: ${file}`);
  if (!statSync(file).isFile()) throw new UserError(`not a file: ${file}`);
  // the run's settings, resolved as run resolves them (file < environment), so extract finds what a run finds
  const config = resolveConfig(values.config ? await readConfigFile(values.config) : {}, configFromEnv(process.env));
  const x = config.extraction;
  // a non-English dump's own file namespace and image options, from its <siteinfo> (as run does)
  const detected = await applyInputSettings(BUILTIN_SOURCES, [file], x);
  for (const line of detected) process.stderr.write(`paracap extract: ${line}\n`);
  const refOptions = { fileAliases: x.fileAliases, maxPageBytes: x.maxPageBytes, colonFileLinks: x.colonFileLinks, unknownTemplates: x.unknownTemplates, paperRules: config.preset === "paper", ...(x.language ? { language: x.language } : {}) };
  const out = process.stdout;
  const emit = (rev: PageRevision) => {
    const lines = extractImageRefs(rev.text, { ...refOptions, pageTitle: rev.title, pageNs: rev.ns }).flatMap((r) => referenceLines(r, rev.title));
    if (lines.length > 0) out.write(lines.map((l) => JSON.stringify({ ...l, revisionId: rev.revisionId })).join("\n") + "\n");
  };
  if (/\.(wikitext|wiki|txt)$/i.test(file)) {
    const text = await readFile(file, "utf8");
    emit({ title: basename(file).replace(/\.[^.]+$/, ""), ns: 0, pageId: 0, revisionId: 0, timestamp: null, redirect: false, text });
    return 0;
  }
  if (isWarcFile(file)) {
    const counters = new Counters();
    let failure: DumpError | null = null;
    const lines = warcCaptionLines(file, config, counters, { templateImages: dropsTemplateImages(config), credits: dropsCredits(config), classCaptions: readsClassCaptions(config) }, (e) => (failure = e));
    for await (const line of lines) out.write(JSON.stringify(line) + "\n");
    const damaged = counters.get(warcCounter("records.damaged"));
    const examples = counters.samples.get(WARC_DAMAGE_SAMPLE);
    process.stderr.write(`paracap extract: ${counters.get(warcCounter("documents"))} HTML page(s) of ${counters.get(warcCounter("records"))} ${counters.get(warcCounter("files.arc")) > 0 ? "ARC" : "WARC"} record(s) read${damaged > 0 ? `; ${damaged} damaged record(s) skipped: ${examples.join("; ")}` : ""}\n`);
    // a WET or WAT file is not read (no HTML in it): says what to give instead
    for (const kind of ["wet", "wat"]) for (const note of counters.samples.get(warcSkippedCounter(`${kind}_file`))) process.stderr.write(`paracap extract: ${note}\n`);
    // damage the counts above do not tell (a zip's, a decoder's): said, and a file that gave nothing fails
    if (failure !== null && (damaged === 0 || isWaczName(file))) {
      process.stderr.write(`paracap extract: ${(failure as DumpError).message}\n`);
      if (counters.get(warcCounter("documents")) === 0) return 1;
    }
    return 0;
  }
  const counters = new Counters();
  const namespaces = values["all-namespaces"] ? "all" : config.dump.namespaces;
  try {
    for await (const rev of readDumpPages(file, { counters, file, namespaces, skipRedirects: config.dump.skipRedirects })) emit(rev);
  } catch (err) {
    // nothing read is a file that is no dump (the user's to fix, as in run); damage after pages stays a DumpError
    if (err instanceof DumpError && counters.get(dumpCounter("pages")) === 0) throw new UserError(`no pages read from ${err.message}`);
    throw err;
  }
  const pages = counters.get(dumpCounter("pages"));
  const revs = counters.get(dumpCounter("revisions.emitted"));
  process.stderr.write(`paracap extract: ${pages} page${pages === 1 ? "" : "s"}, ${revs} revision${revs === 1 ? "" : "s"} read\n`);
  return 0;
}

export async function featuresCommand(argv: string[], input: Readable = process.stdin): Promise<number> {
  const { values } = parseCommandArgs("features", { args: argv, options: { classifier: { type: "string", default: "improved" }, encoding: { type: "string" }, help: { type: "boolean", short: "h", default: false } } });
  if (values.help) return usage(FEATURES_USAGE);
  const encoding = stdinEncoding(values.encoding);
  if (values.classifier !== "improved" && values.classifier !== "paper") throw new UserError(`--classifier is improved or paper, got "${values.classifier}"`);
  const analyzer = createCaptionAnalyzer({ classifier: values.classifier });
  // the run's bounds: tokenising one unbroken 200,000-character "word" takes minutes
  const bounds = resolveConfig(configFromEnv(process.env)).captions;
  const reader = new CaptionLineReader();
  await mapLines(input, process.stdout, (line, n) => {
    const caption = reader.read(line);
    if (n === 1 && reader.described) process.stderr.write(`paracap features: reading ${reader.described}\n`);
    if (caption === HEADER_LINE) return NO_LINE;
    line = caption;
    const why = unreadableReason(line, bounds);
    return why === "caption_too_long" || why === "token_too_long" ? { skipped: why } : analyzer.features(line);
  }, encoding);
  return 0;
}

/** Pairs per scoring call: what the dedup stage uses, so a model sees the same batches. */
const SCORE_BATCH = 64;

export async function scoreCommand(argv: string[], input: Readable = process.stdin): Promise<number> {
  const { values } = parseCommandArgs("score", {
    args: argv,
    options: {
      model: { type: "string" },
      scorers: { type: "string" },
      config: { type: "string" },
      "skip-bad": { type: "boolean", default: false },
      encoding: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return usage(SCORE_USAGE);
  const encoding = stdinEncoding(values.encoding);
  const fileConfig = values.config ? await readConfigFile(values.config) : {};
  const scorers = values.scorers?.split(",").map((s) => s.trim());
  const config = resolveConfig(fileConfig, { scoring: { scorers, transformer: { model: values.model || undefined } } });
  if (values.model !== undefined) {
    if (values.model.trim() === "") throw new UserError(`--model needs a model directory (or a hub id)`);
    applyModelFlag(config, values.model);
  } else checkModel(config);
  checkSemanticConfig(config);
  const score = await createScorers(config);
  // the dedup stage's own derivation, so a line equals the metrics and verdict of that pair in a run's dataset
  const verdict = semanticVerdict(config);
  // --skip-bad: a bad line is counted and answered {"skipped": reason}, so output lines still match input records
  const skipped = new Map<BadPairLine["skipped"], { count: number; first: number }>();
  const reader = new PairLineReader(config.captions.maxChars);
  let records = 0;
  const answer = (r: PairLine, n: number) => {
    records++;
    if ("pair" in r) return r;
    if (!values["skip-bad"]) throw new UserError(r.skipped === "not_a_pair" ? `${r.message} (--skip-bad answers such a line and goes on)` : r.message);
    const seen = skipped.get(r.skipped);
    if (seen) seen.count++;
    else skipped.set(r.skipped, { count: 1, first: n });
    return { skipped: r.skipped };
  };
  const parse = (line: string, n: number) => {
    const r = reader.read(line, n);
    if (n === 1 && reader.described) process.stderr.write(`paracap score: scoring ${reader.described}\n`);
    return r === NO_RECORD ? NO_LINE : answer(r, n);
  };
  const end = () => {
    const r = reader.end();
    return r === NO_RECORD ? NO_LINE : answer(r.bad, r.n);
  };
  await mapLineBatches(input, process.stdout, SCORE_BATCH, parse, async (batch) => {
    const pairs = batch.flatMap((l) => ("pair" in l ? [l.pair] : []));
    const scored = pairs.length > 0 ? await score(pairs) : [];
    let i = 0;
    return batch.map((l) => {
      if (!("pair" in l)) return l;
      const v = verdict(scored[i++]!);
      return v.paraphrase === undefined ? v.metrics : { ...v.metrics, paraphrase: v.paraphrase, paraphraseBy: v.paraphraseBy };
    });
  }, end, encoding);
  if (values["skip-bad"]) {
    const bad = [...skipped.values()].reduce((sum, s) => sum + s.count, 0);
    const why = [...skipped].map(([reason, s]) => `${s.count} ${reason} (first: line ${s.first})`).join(", ");
    // a table's header and a CSV record's inner line breaks are no records: count what was answered
    const unit = reader.described?.includes("CSV") ? "record" : "line";
    process.stderr.write(`paracap score: ${records} ${unit}${records === 1 ? "" : "s"}, ${records - bad} scored, ${bad} skipped${why ? `: ${why}` : ""}\n`);
  }
  return 0;
}

/** --encoding's canonical name (undefined: UTF-8, or UTF-16 by its mark), or the one-line error of a label no decoder reads (before stdin is read). */
function stdinEncoding(label: string | undefined): string | undefined {
  if (label === undefined) return undefined;
  const got = lineEncoding(label);
  if ("error" in got) throw new UserError(`--encoding ${got.error}`);
  return got.encoding;
}

function usage(text: string): number {
  process.stdout.write(text + "\n");
  return 0;
}
