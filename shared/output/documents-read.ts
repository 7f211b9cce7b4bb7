/**
 * What each kind of input read, in its sources' own words (`Source.document`): "7,900 caption lines",
 * "1 page", "106 revisions, 7,900 caption lines, 22 pages" for a run over several. From stats.json's
 * extraction counters (`extract.<kind>.<noun>`, extractDocumentsCounter), so report.md, report.html,
 * the card and `paracap report <dir>` say the same.
 */
import { extractDocumentsCounter, type DocumentNoun } from "../core/counter-names.ts";
import type { InputKind } from "../core/records.ts";
import { BUILTIN_SOURCES, type SourceRegistry } from "../sources/registry.ts";

export interface DocumentsRead {
  noun: DocumentNoun;
  n: number;
}

/**
 * The documents of `kind` the run read, per noun, dumps' revisions first (the sources in reverse
 * detection order, as report.md lists them); sources sharing a noun share a count. Empty: none read.
 */
export function documentsRead(extraction: Readonly<Record<string, number>>, kind: string, sources: SourceRegistry = BUILTIN_SOURCES): DocumentsRead[] {
  const seen = new Set<string>();
  const out: DocumentsRead[] = [];
  for (const source of [...sources.all()].reverse()) {
    const counter = extractDocumentsCounter(kind as InputKind, source.document);
    if (seen.has(counter)) continue;
    seen.add(counter);
    const n = extraction[counter];
    if (n !== undefined) out.push({ noun: source.document, n });
  }
  return out;
}

/** "1 page", "7,900 caption lines", "106 revisions, 22 pages". */
export function countedDocuments(read: readonly DocumentsRead[]): string {
  return read.map(({ noun, n }) => `${n.toLocaleString("en-US")} ${n === 1 ? noun.one : noun.other}`).join(", ");
}

/** "revisions", "revisions and caption lines", "revisions, caption lines and pages"; "documents" when none were read. */
export function documentKinds(read: readonly DocumentsRead[]): string {
  const words = read.map((r) => r.noun.other);
  if (words.length === 0) return "documents";
  return words.length === 1 ? words[0]! : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

/** A tier's input in the tier tables: "current revisions", "current caption lines". */
export function tierInput(extraction: Readonly<Record<string, number>>, kind: string, sources?: SourceRegistry): string {
  return `${kind} ${documentKinds(documentsRead(extraction, kind, sources))}`;
}
