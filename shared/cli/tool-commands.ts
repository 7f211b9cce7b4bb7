/** The single-purpose commands: extract (references as JSONL), features (captions), score (pairs). */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import { createCaptionAnalyzer } from "../caption/analyzer.ts";
import { Counters } from "../core/counters.ts";
import type { PageRevision, WikitextImageRef } from "../core/records.ts";
import { readDumpPages } from "../dump/page-reader.ts";
import { scorePair } from "../metrics/index.ts";
import { extractImageRefs } from "../wikitext/extract-images.ts";
import { UserError } from "./errors.ts";
import { mapLines } from "./lines.ts";

/** One output line per reference and caption type; a reference with neither caption nor alt has type null. */
export function referenceLines(ref: WikitextImageRef, page: string): object[] {
  const base = { image: ref.image, page, source: ref.source };
  const lines: object[] = [];
  if (ref.caption !== null) lines.push({ ...base, type: "caption", text: ref.caption });
  if (ref.alt !== null) lines.push({ ...base, type: "alt", text: ref.alt });
  if (lines.length === 0) lines.push({ ...base, type: null, text: null });
  return lines;
}

export async function extractCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { "all-namespaces": { type: "boolean", default: false } } });
  if (positionals.length !== 1) throw new UserError("usage: paracap extract <file.xml[.bz2]|file.wikitext>");
  const file = positionals[0]!;
  if (!existsSync(file)) throw new UserError(`no such file: ${file}`);
  const out = process.stdout;
  const emit = (rev: PageRevision) => {
    const lines = extractImageRefs(rev.text).flatMap((r) => referenceLines(r, rev.title));
    if (lines.length > 0) out.write(lines.map((l) => JSON.stringify({ ...l, revision: rev.revisionId })).join("\n") + "\n");
  };
  if (/\.(wikitext|wiki|txt)$/i.test(file)) {
    const text = await readFile(file, "utf8");
    emit({ title: basename(file).replace(/\.[^.]+$/, ""), ns: 0, pageId: 0, revisionId: 0, timestamp: null, redirect: false, text });
    return 0;
  }
  const counters = new Counters();
  const namespaces = values["all-namespaces"] ? undefined : [0];
  for await (const rev of readDumpPages(file, { counters, file, namespaces })) emit(rev);
  process.stderr.write(`paracap extract: ${counters.get("dump.pages")} pages, ${counters.get("dump.revisions.emitted")} revisions read\n`);
  return 0;
}

export async function featuresCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { classifier: { type: "string", default: "improved" } } });
  if (values.classifier !== "improved" && values.classifier !== "paper") throw new UserError(`--classifier is improved or paper, got "${values.classifier}"`);
  const analyzer = createCaptionAnalyzer({ classifier: values.classifier });
  await mapLines(process.stdin, process.stdout, (line) => analyzer.features(line));
  return 0;
}

export async function scoreCommand(argv: string[]): Promise<number> {
  parseArgs({ args: argv, options: {} });
  await mapLines(process.stdin, process.stdout, (line, n) => {
    const tab = line.indexOf("\t");
    if (tab < 0) return { line: n, error: "expected caption1<TAB>caption2" };
    return scorePair(line.slice(0, tab), line.slice(tab + 1));
  });
  return 0;
}
