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
import { releaseRevisionText } from "../dump/revision-text.ts";
import { pivotCounter, pivotReferencesCounter, pivotUnreadableSamples } from "../core/counter-names.ts";
import { extractCounter, extractDocumentsCounter, extractReferencesBySourceCounter, extractSkippedCounter, FEATURE_COUNTERS, unreadableCaptionCounter } from "../core/counter-names.ts";

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

/**
 * The references of one revision, or of one chunk of them (`continued`: a later chunk of the same
 * revision, see documentChunks); `skipped` names why a revision could not be read.
 */
export interface RevisionRefs {
  kind: InputKind;
  page: string;
  pageId: DocId;
  revisionId: DocId;
  refs: ExtractedRef[];
  skipped?: string;
  continued?: true;
}

/**
 * Distinct captions whose features are kept. A cache, not state: outputs do not depend on it (its
 * hit counter is volatile). History dumps repeat a few thousand captions; more entries only hold memory.
 */
const FEATURE_CACHE_LIMIT = 50_000;

/** References per chunk of a revision (documentChunks): what one chunk holds with its features. */
export const EXTRACT_CHUNK_REFS = 4096;

/**
 * Caption features by text, with a bounded cache (history dumps repeat captions thousands of times):
 * shared by every source's extractor. The analyser (the NLP model: ~0.15 s of CPU in the first
 * extractor of a process) is made for the first caption, so a shard's decoder is already running
 * while it loads; a model that cannot load fails the shard there as it did here.
 */
export function createFeatureLookup(config: ParacapConfig, counters: Counters): (text: string | null) => CaptionFeatures | null {
  let analyzer: CaptionAnalyzer | null = null;
  const cache = new Map<string, CaptionFeatures>();
  const bounds = { maxChars: config.captions.maxChars, maxTokenChars: config.captions.maxTokenChars };
  return (text) => {
    if (text === null) return null;
    let f = cache.get(text);
    if (f) {
      counters.inc(FEATURE_COUNTERS.cacheHits);
      return f;
    }
    analyzer ??= createCaptionAnalyzer({ classifier: config.captions.classifier });
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
export function documentExtractor(source: AnySource, config: ParacapConfig, counters: Counters, prepared?: unknown): (doc: unknown, kind: InputKind) => RevisionRefs {
  const chunks = documentChunks(source, config, counters, Infinity, prepared);
  return (doc, kind) => chunks(doc, kind).next().value as RevisionRefs;
}

/**
 * documentExtractor, its references in chunks of at most `chunk` (consecutive RevisionRefs of one
 * revision, the later ones `continued`; collapseUses joins them). Features are computed as the chunks
 * are taken, so a page of 200,000 references never holds all of them with their features at once.
 * Every revision gives at least one chunk; counters and features are the same as in one piece.
 */
export function documentChunks(source: AnySource, config: ParacapConfig, counters: Counters, chunk = EXTRACT_CHUNK_REFS, prepared?: unknown): (doc: unknown, kind: InputKind) => Generator<RevisionRefs, void, undefined> {
  const find = source.createExtractor(config, counters, prepared);
  const features = createFeatureLookup(config, counters);
  const pivot = createPivot(config.pivot, config.pivots);
  const byText = isTextPivot(pivot) ? textPivotRefs(pivot, counters) : null;
  const imagePivot = isTextPivot(pivot) ? null : pivot;
  const documents = (kind: InputKind) => extractDocumentsCounter(kind, source.document);
  // a text pivot copies a reference once per key: the references themselves are counted here
  const keyedReferences = isTextPivot(pivot) ? (kind: InputKind) => pivotReferencesCounter(pivot.id, kind) : null;
  return function* (doc, kind) {
    counters.inc(documents(kind));
    const d = find(doc);
    const base = { kind, page: d.page, pageId: d.pageId, revisionId: d.revisionId };
    if (d.refs === null) {
      const reason = d.skipped ?? "unreadable";
      counters.inc(extractSkippedCounter(kind, reason));
      yield { ...base, refs: [], skipped: reason };
      return;
    }
    const all = d.refs;
    for (let from = 0; from === 0 || from < all.length; from += chunk) {
      const refs: ExtractedRef[] = [];
      for (let ordinal = from; ordinal < Math.min(all.length, from + chunk); ordinal++) {
        const r = all[ordinal]!;
        const image = imagePivot ? imagePivot.key({ image: r.image, page: d.page }) : r.image;
        const ref: ExtractedRef = { image, source: r.source, ordinal, caption: features(r.caption), alt: features(r.alt) };
        // the web's own caption types, only where a source gives them (other records keep their shape)
        if (r.title) ref.title = features(r.title);
        if (r.nearby) ref.nearby = features(r.nearby);
        if (byText) {
          counters.inc(keyedReferences!(kind));
          refs.push(...byText(ref));
        } else refs.push(ref);
      }
      yield from === 0 ? { ...base, refs } : { ...base, refs, continued: true };
    }
  };
}

/** Every document's references, chunk by chunk, in this thread (runners without worker threads). */
export async function* extractInline(source: AnySource, docs: AsyncIterable<unknown>, kind: InputKind, config: ParacapConfig, counters: Counters): AsyncGenerator<RevisionRefs> {
  const chunks = documentChunks(source, config, counters, EXTRACT_CHUNK_REFS, await source.prepare?.(config));
  for await (const d of docs) {
    yield* chunks(d, kind);
    // done with it: a dump revision's still-encoded text lets go of the decoder's chunk it views (chunk-pool.ts)
    releaseRevisionText(d);
  }
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
      if (!f) continue;
      // an unreadable caption has no text to key (the caption filters would drop it anyway): counted here,
      // as no filter sees it
      if (f.unreadable !== undefined) {
        counters.inc(pivotCounter(pivot.id, `captions_unreadable.${f.unreadable}`));
        counters.samples.add(pivotUnreadableSamples(pivot.id), `${f.unreadable}: ${f.text.slice(0, 80)}`);
        continue;
      }
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

/**
 * What makes two uses of an image on one page the same: where, and every caption text. Joined (one
 * flat string), not concatenated: a page's keys are held until its end, and a chain of concatenations
 * is several times the size of its text.
 */
export function useKeyOf(image: string, source: string, r: { caption: CaptionFeatures | null; alt: CaptionFeatures | null; title?: CaptionFeatures | null; nearby?: CaptionFeatures | null; origin?: string }): string {
  const parts = [image, source, r.caption?.text ?? "\u0001", r.alt?.text ?? "\u0001"];
  if (r.title || r.nearby) parts.push(r.title?.text ?? "\u0001", r.nearby?.text ?? "\u0001");
  // a text pivot's copies of two images' references with one caption are different uses
  if (r.origin !== undefined) parts.push(`\u0002${r.origin}`);
  return parts.join("\u0000");
}

/**
 * Where collapseUses puts the records of a page beyond the first few thousand until the page ends
 * (their `uses` are final only then): records go out in order as JSON lines, and come back in the
 * same order, once.
 */
export interface UseSpill {
  write(lines: string): Promise<void>;
  /** every record written since the last drain, in order; the spill is empty afterwards */
  drain(): AsyncIterable<ShuffleRef>;
}

export interface CollapseOptions {
  /** distinct uses after which a page is flushed at the next revision (default 100,000) */
  limit?: number;
  /** where records beyond `held` wait for the page's end; without one, every record stays in memory */
  spill?: UseSpill;
  /** records of the open page kept in memory before the spill takes the rest (default 8,192) */
  held?: number;
}

/** Characters of JSON lines collected before they go to the spill in one write. */
const SPILL_WRITE_CHARS = 1 << 20;

/**
 * Collapses identical uses (page, image, caption, alt, source) in consecutive revisions of a page
 * into one record with `uses` = how many revisions had it. Pages arrive revision by revision, so
 * state is one page's distinct uses; a page with absurdly many is flushed early (still correct: the
 * split records pair as identical captions, which the divergent filter drops). Memory does not grow
 * with a page's references either: with a spill, only the first `held` records of a page stay in
 * memory, the rest wait in the spill, and of each use only its key and count are kept.
 */
export async function* collapseUses(revisions: AsyncIterable<RevisionRefs>, counters: Counters, options: number | CollapseOptions = {}): AsyncGenerator<ShuffleRef> {
  const opts = typeof options === "number" ? { limit: options } : options;
  const limit = opts.limit ?? 100_000;
  const spill = opts.spill;
  const heldMax = spill ? (opts.held ?? 8192) : Infinity;
  let pageKey: string | null = null;
  // the open page: use key → slot; a slot's count; the first slots' records (the rest are in the spill)
  let slots = new Map<string, number>();
  let uses: number[] = [];
  let held: ShuffleRef[] = [];
  let pending: string[] = [];
  let pendingChars = 0;
  let spilled = false;
  // the last revision's references and their slots: a history's next revision mostly repeats them in
  // order, and a reference with the same parts as the one at its index there is that use (no key built)
  let lastRefs: ExtractedRef[] = [];
  let lastSlots: number[] = [];
  async function* flush(): AsyncGenerator<ShuffleRef> {
    lastRefs = [];
    lastSlots = [];
    const counts = uses;
    const first = held;
    const late = spilled;
    slots = new Map();
    uses = [];
    held = [];
    spilled = false;
    for (let i = 0; i < first.length; i++) {
      first[i]!.uses = counts[i]!;
      yield first[i]!;
    }
    if (!late) return;
    if (pending.length > 0) await spill!.write(pending.join(""));
    pending = [];
    pendingChars = 0;
    let i = first.length;
    for await (const rec of spill!.drain()) {
      rec.uses = counts[i++]!;
      yield rec;
    }
    if (i !== counts.length) throw new Error(`use spill gave back ${i - first.length} of ${counts.length - first.length} records`);
  }
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
        yield* flush();
        throw err;
      }
      if (next.done) {
        exhausted = true;
        break;
      }
      const rev = next.value;
      const key = `${rev.kind}\u0000${rev.pageId}\u0000${rev.page}`;
      // (a later chunk of a revision is the same revision: the limit is checked between revisions)
      if (key !== pageKey || (slots.size >= limit && !rev.continued)) {
        yield* flush();
        pageKey = key;
      }
      countReferences(rev, counters);
      const refs = rev.refs;
      const last = lastRefs;
      const lastSlot = lastSlots;
      const slotOf: number[] = [];
      for (let i = 0; i < refs.length; i++) {
        const r = refs[i]!;
        if (i < last.length && sameUse(r, last[i]!)) {
          const seen = lastSlot[i]!;
          uses[seen]!++;
          slotOf.push(seen);
          continue;
        }
        const useKey = useKeyOf(r.image, r.source, r);
        const seen = slots.get(useKey);
        if (seen !== undefined) {
          uses[seen]!++;
          slotOf.push(seen);
          continue;
        }
        slotOf.push(uses.length);
        slots.set(useKey, uses.length);
        uses.push(1);
        const rec: ShuffleRef = {
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
        };
        if (held.length < heldMax) {
          held.push(rec);
          continue;
        }
        const line = JSON.stringify(rec) + "\n";
        pending.push(line);
        pendingChars += line.length;
        spilled = true;
        if (pendingChars >= SPILL_WRITE_CHARS) {
          await spill!.write(pending.join(""));
          pending = [];
          pendingChars = 0;
        }
      }
      lastRefs = refs;
      lastSlots = slotOf;
    }
    yield* flush();
  } finally {
    // the consumer stopped early: let the source clean up (close the dump stream)
    if (!exhausted) await source.return?.();
  }
}

/** Do two references have equal use keys (useKeyOf)? Only when every part is equal: then they do. */
function sameUse(a: ExtractedRef, b: ExtractedRef): boolean {
  return a.image === b.image && a.source === b.source && a.origin === b.origin && sameText(a.caption, b.caption) && sameText(a.alt, b.alt) && sameText(a.title, b.title) && sameText(a.nearby, b.nearby);
}

function sameText(a: CaptionFeatures | null | undefined, b: CaptionFeatures | null | undefined): boolean {
  return a === b || (a != null && b != null && a.text === b.text);
}

/**
 * `extract.<kind>.references` and its split by source for one revision's references: one increment
 * per name (names are built strings, a map lookup each), made in the order one per reference would
 * first make them.
 */
function countReferences(rev: RevisionRefs, counters: Counters): void {
  const refs = rev.refs;
  if (refs.length === 0) return;
  counters.inc(extractCounter(rev.kind, "references"), refs.length);
  const sources: string[] = [];
  const counts: number[] = [];
  for (const r of refs) {
    const k = sources.indexOf(r.source);
    if (k >= 0) counts[k]!++;
    else {
      sources.push(r.source);
      counts.push(1);
    }
  }
  for (let k = 0; k < sources.length; k++) counters.inc(extractReferencesBySourceCounter(rev.kind, sources[k]!), counts[k]!);
}

/** The whole extract stage inline over one source's documents (no parallelism). */
export function extractStage(source: AnySource, config: ParacapConfig, kind: InputKind): Stage<unknown, ShuffleRef> {
  return {
    name: "extract",
    input: z.unknown(),
    output: ShuffleRef,
    run(docs, ctx) {
      return collapseUses(extractInline(source, docs, kind, config, ctx.counters), ctx.counters);
    },
  };
}
