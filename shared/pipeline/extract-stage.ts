/**
 * Extract stage (map side): page revisions → image references with caption features.
 * Split in two so a runner can parallelise the pure, per-revision half (`createReferenceExtractor`)
 * and keep the order-dependent half (`collapseUses`) sequential.
 */
import type { ParacapConfig } from "../core/config.ts";
import { Counters } from "../core/counters.ts";
import { type CaptionFeatures, type InputKind, PageRevision, type ReferenceSource, ShuffleRef } from "../core/records.ts";
import type { Stage } from "../core/stage.ts";
import { createCaptionAnalyzer, type CaptionAnalyzer } from "../caption/analyzer.ts";
import { unreadableReason, type CaptionBounds } from "../caption/caption-guard.ts";
import { createWikitextExtractor, type TextOutcome } from "./wikitext-extractor.ts";
import { rawText } from "../dump/revision-text.ts";
import { createPivot } from "../plugins/pivots.ts";
import { extractCounter, extractReferencesBySourceCounter, extractSkippedCounter, FEATURE_COUNTERS, unreadableCaptionCounter } from "../core/counter-names.ts";

export interface ExtractedRef {
  image: string;
  source: ReferenceSource;
  ordinal: number;
  caption: CaptionFeatures | null;
  alt: CaptionFeatures | null;
}

/** The references of one revision; `skipped` names why a revision could not be read. */
export interface RevisionRefs {
  kind: InputKind;
  page: string;
  pageId: number;
  revisionId: number;
  refs: ExtractedRef[];
  skipped?: string;
}

const FEATURE_CACHE_LIMIT = 200_000;

/**
 * Caption features by text, with a bounded cache (history dumps repeat captions thousands of times):
 * shared by every source's extractor.
 */
export function createFeatureLookup(config: ParacapConfig, counters: Counters): (text: string | null) => CaptionFeatures | null {
  const analyzer = createCaptionAnalyzer({ classifier: config.captions.classifier });
  const cache = new Map<string, CaptionFeatures>();
  const bounds = { maxChars: config.captions.maxChars, maxTokenChars: config.captions.maxTokenChars };
  return (text) => {
    if (text === null) return null;
    let f = cache.get(text);
    if (f) {
      counters.inc(FEATURE_COUNTERS.cacheHits);
      return f;
    }
    f = safeFeatures(analyzer, text, bounds, counters);
    if (cache.size >= FEATURE_CACHE_LIMIT) cache.clear();
    cache.set(text, f);
    return f;
  };
}

/**
 * Features of one caption, total: a caption the bounds exclude, or one the analyser throws on, gets
 * features marked `unreadable` (the caption filter `readable_v1` drops and samples it) and never
 * ends the shard.
 */
function safeFeatures(analyzer: CaptionAnalyzer, text: string, bounds: CaptionBounds, counters: Counters): CaptionFeatures {
  let reason: string | null = unreadableReason(text, bounds);
  if (reason === null) {
    try {
      return analyzer.features(text);
    } catch (err) {
      reason = "analysis_failed";
      counters.samples.add(FEATURE_COUNTERS.analysisFailed, `${err instanceof Error ? err.message : String(err)}: ${text}`);
    }
  }
  counters.inc(unreadableCaptionCounter(reason));
  const shown = text.length > 1000 ? `${text.slice(0, 1000)}…` : text;
  return { text: shown, words: 0, profane: false, english: false, hasVerb: false, isSentence: false, tags: "", unreadable: reason };
}

/**
 * Extraction outcomes of a page's last few distinct texts. In history dumps a revert restores an earlier text byte
 * for byte (a fifth of the revisions of the Anarchism excerpt): such a text is recognised on its still-encoded bytes
 * (equal length, then one memcmp) and neither decoded nor parsed again. Its counts are replayed, so stats are as if
 * it had been extracted. On that excerpt the last 2 texts catch 198 of its 398 repeats, 4 catch 293, 8 catch 344;
 * 8 texts hold at most 8 × extraction.maxPageBytes.
 */
class RecentTexts {
  private page = -1;
  private entries: { text: Buffer | string; outcome: TextOutcome }[] = [];

  constructor(private readonly size = 8) {}

  find(pageId: number, text: Buffer | string): TextOutcome | null {
    if (pageId !== this.page) {
      this.page = pageId;
      this.entries = [];
      return null;
    }
    for (const e of this.entries) {
      if (e.text.length !== text.length || typeof e.text !== typeof text) continue;
      if (typeof text === "string" ? e.text === text : (e.text as Buffer).equals(text)) return e.outcome;
    }
    return null;
  }

  add(text: Buffer | string, outcome: TextOutcome): void {
    this.entries.unshift({ text, outcome });
    if (this.entries.length > this.size) this.entries.pop();
  }
}

/** Per-revision extraction of MediaWiki wikitext. */
export function createReferenceExtractor(config: ParacapConfig, counters: Counters): (rev: PageRevision, kind: InputKind) => RevisionRefs {
  const features = createFeatureLookup(config, counters);
  const pivot = createPivot(config.pivot);
  const x = config.extraction;
  const recent = new RecentTexts();
  // byte path, and no work twice across revisions (wikitext-extractor.ts)
  const wikitext = createWikitextExtractor({ fileAliases: x.fileAliases, maxPageBytes: x.maxPageBytes, colonFileLinks: x.colonFileLinks, unknownTemplates: x.unknownTemplates });
  return (rev, kind) => {
    const base = { kind, page: rev.title, pageId: rev.pageId, revisionId: rev.revisionId };
    counters.inc(extractCounter(kind, "revisions"));
    const key = rawText(rev) ?? rev.text;
    let outcome = recent.find(rev.pageId, key);
    if (!outcome) {
      outcome = wikitext.extract(rev);
      recent.add(key, outcome);
    }
    counters.merge(outcome.counted);
    const raw = outcome.refs;
    if (raw === null) {
      const reason = outcome.skipped!;
      counters.inc(extractSkippedCounter(kind, reason));
      return { ...base, refs: [], skipped: reason };
    }
    const refs = raw.map((r, ordinal) => ({
      image: pivot.key({ image: r.image, page: rev.title }),
      source: r.source,
      ordinal,
      caption: features(r.caption),
      alt: features(r.alt),
    }));
    return { ...base, refs };
  };
}

/**
 * Collapses identical uses (page, image, caption, alt, source) in consecutive revisions of a page
 * into one record with `uses` = how many revisions had it. Pages arrive revision by revision, so
 * state is one page's distinct uses; a page with absurdly many is flushed early (still correct: the
 * split records pair as identical captions, which the divergent filter drops).
 */
export async function* collapseUses(revisions: AsyncIterable<RevisionRefs>, counters: Counters, limit = 100_000): AsyncGenerator<ShuffleRef> {
  let pageKey: string | null = null;
  let open = new Map<string, ShuffleRef>();
  const source = revisions[Symbol.asyncIterator]();
  let exhausted = false;
  try {
    for (;;) {
      let next: IteratorResult<RevisionRefs>;
      try {
        next = await source.next();
      } catch (err) {
        // Damaged input ends the revisions early. The uses of the last page read are real and
        // already counted as references: they go out before the error does.
        exhausted = true;
        yield* open.values();
        throw err;
      }
      if (next.done) {
        exhausted = true;
        break;
      }
      const rev = next.value;
      const key = `${rev.kind}\u0000${rev.pageId}\u0000${rev.page}`;
      if (key !== pageKey || open.size >= limit) {
        yield* open.values();
        open = new Map();
        pageKey = key;
      }
      for (const r of rev.refs) {
        counters.inc(extractCounter(rev.kind, "references"));
        counters.inc(extractReferencesBySourceCounter(rev.kind, r.source));
        const useKey = `${r.image}\u0000${r.source}\u0000${r.caption?.text ?? "\u0001"}\u0000${r.alt?.text ?? "\u0001"}`;
        const seen = open.get(useKey);
        if (seen) {
          seen.uses++;
          continue;
        }
        open.set(useKey, {
          image: r.image,
          kind: rev.kind,
          page: rev.page,
          pageId: rev.pageId,
          revisionId: rev.revisionId,
          ordinal: r.ordinal,
          source: r.source,
          uses: 1,
          caption: r.caption,
          alt: r.alt,
        });
      }
    }
    yield* open.values();
  } finally {
    // the consumer stopped early: let the source clean up (close the dump stream)
    if (!exhausted) await source.return?.();
  }
}

/** The whole extract stage inline (no parallelism): what a cloud function runs per shard. */
export function extractStage(config: ParacapConfig, kind: InputKind): Stage<PageRevision, ShuffleRef> {
  return {
    name: "extract",
    input: PageRevision,
    output: ShuffleRef,
    run(pages, ctx) {
      const extract = createReferenceExtractor(config, ctx.counters);
      async function* revs() {
        for await (const p of pages) yield extract(p, kind);
      }
      return collapseUses(revs(), ctx.counters);
    },
  };
}
