/**
 * Extract stage (map side): a source's documents → image references with caption features.
 * Split in two so a runner can parallelise the pure, per-document half (`documentExtractor`)
 * and keep the order-dependent half (`collapseUses`) sequential.
 */
import type { ParacapConfig } from "../core/config.ts";
import { Counters } from "../core/counters.ts";
import { z } from "zod";
import { CAPTION_TYPES, type CaptionFeatures, type DocId, type InputKind, type ReferenceSource, ShuffleRef } from "../core/records.ts";
import type { Stage } from "../core/stage.ts";
import { createCaptionAnalyzer, type CaptionAnalyzer } from "../caption/analyzer.ts";
import { unreadableReason, type CaptionBounds } from "../caption/caption-guard.ts";
import { createPivot } from "../plugins/pivots.ts";
import { isTextPivot, type TextPivot } from "../plugins/pivot-contract.ts";
import type { AnySource } from "../sources/source.ts";
import { pivotCounter } from "../core/counter-names.ts";
import { extractCounter, extractReferencesBySourceCounter, extractSkippedCounter, FEATURE_COUNTERS, unreadableCaptionCounter } from "../core/counter-names.ts";

export interface ExtractedRef {
  image: string;
  source: ReferenceSource;
  ordinal: number;
  caption: CaptionFeatures | null;
  alt: CaptionFeatures | null;
  title?: CaptionFeatures | null;
  nearby?: CaptionFeatures | null;
  /** text pivots: the reference's own image (`image` is then a caption group's key) */
  origin?: string;
}

/** The references of one revision; `skipped` names why a revision could not be read. */
export interface RevisionRefs {
  kind: InputKind;
  page: string;
  pageId: DocId;
  revisionId: DocId;
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
 * One source's documents → image references with caption features: the source finds the references
 * (its own format), and this applies, the same way for every source, the pivot, caption features
 * and the `extract.<kind>` counters. Pure per document, so a runner may run it on worker threads.
 */
export function documentExtractor(source: AnySource, config: ParacapConfig, counters: Counters): (doc: unknown, kind: InputKind) => RevisionRefs {
  const find = source.createExtractor(config, counters);
  const features = createFeatureLookup(config, counters);
  const pivot = createPivot(config.pivot, config.pivots);
  const byText = isTextPivot(pivot) ? textPivotRefs(pivot, counters) : null;
  const imagePivot = isTextPivot(pivot) ? null : pivot;
  return (doc, kind) => {
    counters.inc(extractCounter(kind, "revisions"));
    const d = find(doc);
    const base = { kind, page: d.page, pageId: d.pageId, revisionId: d.revisionId };
    if (d.refs === null) {
      const reason = d.skipped ?? "unreadable";
      counters.inc(extractSkippedCounter(kind, reason));
      return { ...base, refs: [], skipped: reason };
    }
    const refs = d.refs.map((r, ordinal): ExtractedRef => {
      const image = imagePivot ? imagePivot.key({ image: r.image, page: d.page }) : r.image;
      const ref: ExtractedRef = { image, source: r.source, ordinal, caption: features(r.caption), alt: features(r.alt) };
      // the web's own caption types, only where a source gives them (other records keep their shape)
      if (r.title) ref.title = features(r.title);
      if (r.nearby) ref.nearby = features(r.nearby);
      return ref;
    });
    return { ...base, refs: byText ? refs.flatMap(byText) : refs };
  };
}

const PIVOT_KEY_CACHE_LIMIT = 100_000;

/**
 * A text pivot's copies of one reference: one per key of each readable caption, carrying only that
 * caption (pairs are built within a caption type) and its own image as `origin`.
 */
function textPivotRefs(pivot: TextPivot, counters: Counters): (ref: ExtractedRef) => ExtractedRef[] {
  const cache = new Map<string, readonly string[]>();
  const keysOf = (text: string) => {
    let keys = cache.get(text);
    if (!keys) {
      keys = pivot.keys(text);
      if (cache.size >= PIVOT_KEY_CACHE_LIMIT) cache.clear();
      cache.set(text, keys);
    }
    return keys;
  };
  return (ref) => {
    const out: ExtractedRef[] = [];
    for (const type of CAPTION_TYPES) {
      const f = ref[type];
      // an unreadable caption has no text to key (the caption filters would drop it anyway)
      if (!f || f.unreadable !== undefined) continue;
      const keys = keysOf(f.text);
      counters.inc(pivotCounter(pivot.id, keys.length === 0 ? "captions_without_key" : "captions_keyed"));
      for (const key of keys) {
        const copy: ExtractedRef = { image: key, source: ref.source, ordinal: ref.ordinal, caption: null, alt: null, origin: ref.image };
        copy[type] = f;
        out.push(copy);
      }
    }
    return out;
  };
}

/** What makes two uses of an image on one page the same: where, and every caption text. */
export function useKeyOf(image: string, source: string, r: { caption: CaptionFeatures | null; alt: CaptionFeatures | null; title?: CaptionFeatures | null; nearby?: CaptionFeatures | null; origin?: string }): string {
  const base = `${image}\u0000${source}\u0000${r.caption?.text ?? "\u0001"}\u0000${r.alt?.text ?? "\u0001"}`;
  const typed = r.title || r.nearby ? `${base}\u0000${r.title?.text ?? "\u0001"}\u0000${r.nearby?.text ?? "\u0001"}` : base;
  // a text pivot's copies of two images' references with one caption are different uses
  return r.origin === undefined ? typed : `${typed}\u0000\u0002${r.origin}`;
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
        const useKey = useKeyOf(r.image, r.source, r);
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
          ...(r.title ? { title: r.title } : {}),
          ...(r.nearby ? { nearby: r.nearby } : {}),
          ...(r.origin !== undefined ? { origin: r.origin } : {}),
        });
      }
    }
    yield* open.values();
  } finally {
    // the consumer stopped early: let the source clean up (close the dump stream)
    if (!exhausted) await source.return?.();
  }
}

/** The whole extract stage inline over one source's documents (no parallelism). */
export function extractStage(source: AnySource, config: ParacapConfig, kind: InputKind): Stage<unknown, ShuffleRef> {
  return {
    name: "extract",
    input: z.unknown(),
    output: ShuffleRef,
    run(docs, ctx) {
      const extract = documentExtractor(source, config, ctx.counters);
      async function* revs() {
        for await (const d of docs) yield extract(d, kind);
      }
      return collapseUses(revs(), ctx.counters);
    },
  };
}
