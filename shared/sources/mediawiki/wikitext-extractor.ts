/**
 * References of one MediaWiki revision: the wikitext parser's image uses, with a memory of the page's
 * last few distinct texts so a reverted revision is neither decoded nor parsed again.
 */
import type { ParacapConfig } from "../../core/config.ts";
import type { Counters } from "../../core/counters.ts";
import type { PageRevision } from "../../core/records.ts";
import { holdRawText, rawText, releaseRawText } from "../../dump/revision-text.ts";
import { createWikitextExtractor, type TextOutcome } from "./revision-reuse.ts";
import type { DocumentRefs } from "../source.ts";


/**
 * Extraction outcomes of a page's last few distinct texts. In history dumps a revert restores an earlier text byte
 * for byte (a fifth of the revisions of the Anarchism excerpt): such a text is recognised on its still-encoded bytes
 * (equal length, then one memcmp) and neither decoded nor parsed again. Its counts are replayed, so stats are as if
 * it had been extracted. On that excerpt the last 2 texts catch 198 of its 398 repeats, 4 catch 293, 8 catch 344;
 * 8 texts hold at most 8 × extraction.maxPageBytes, and their outcomes at most `maxRefs` references together
 * (a text with more is not kept: the window is a cache, and 8 pages dense with references must not be held).
 */
class RecentTexts {
  private page = -1;
  private entries: { text: Buffer | string; outcome: TextOutcome }[] = [];
  private refs = 0;

  constructor(private readonly size = 8, private readonly maxRefs = 20_000) {}

  find(pageId: number, text: Buffer | string): TextOutcome | null {
    if (pageId !== this.page) {
      this.page = pageId;
      for (const e of this.entries) letGo(e.text);
      this.entries = [];
      this.refs = 0;
      return null;
    }
    for (const e of this.entries) {
      if (e.text.length !== text.length || typeof e.text !== typeof text) continue;
      if (typeof text === "string" ? e.text === text : (e.text as Buffer).equals(text)) return e.outcome;
    }
    return null;
  }

  add(text: Buffer | string, outcome: TextOutcome): void {
    const n = outcome.refs?.length ?? 0;
    if (n > this.maxRefs) return;
    if (typeof text !== "string") holdRawText(text);
    this.entries.unshift({ text, outcome });
    this.refs += n;
    while (this.entries.length > this.size || this.refs > this.maxRefs) {
      const e = this.entries.pop()!;
      this.refs -= e.outcome.refs?.length ?? 0;
      letGo(e.text);
    }
  }
}

/**
 * A text the window no longer keeps: a raw one lets go of its chunk (chunk-pool.ts). Raw texts are
 * held while kept: their revision lets go of its chunk once extracted (extractInline).
 */
function letGo(text: Buffer | string): void {
  if (typeof text !== "string") releaseRawText(text);
}

export function wikitextExtractor(config: ParacapConfig, counters: Counters): (rev: PageRevision) => DocumentRefs {
  const x = config.extraction;
  const recent = new RecentTexts();
  // the byte path, and no work twice across revisions (revision-reuse.ts)
  const wikitext = createWikitextExtractor({ fileAliases: x.fileAliases, maxPageBytes: x.maxPageBytes, colonFileLinks: x.colonFileLinks, unknownTemplates: x.unknownTemplates, paperRules: config.preset === "paper", ...(x.language ? { language: x.language } : {}) });
  return (rev) => {
    const key = rawText(rev) ?? rev.text;
    let outcome = recent.find(rev.pageId, key);
    if (!outcome) {
      outcome = wikitext.extract(rev);
      recent.add(key, outcome);
    }
    counters.merge(outcome.counted);
    const base = { page: rev.title, pageId: rev.pageId, revisionId: rev.revisionId };
    return outcome.refs === null ? { ...base, refs: null, skipped: outcome.skipped! } : { ...base, refs: outcome.refs };
  };
}
