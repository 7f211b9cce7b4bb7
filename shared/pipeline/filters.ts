/**
 * Every filter of the funnel, in paper order (docs/method.md, Table 3), each with its own paper step,
 * unit and version. Image filters see an image with its corpus-wide reference count, caption filters
 * see one caption's features, pair filters see a candidate pair. Unique-candidate dedup is stateful
 * and lives in the dedup stage; only its metadata is here. `tierFilters` builds a tier's lists once
 * per stage: the stages and the funnel read the same lists.
 */
import type { ParacapConfig } from "../core/config.ts";
import { defineFilter, defineFilterInfo, type Filter, type FilterInfo } from "../core/filter.ts";
import { CAPTION_TYPES, captionOf, type CandidatePair, type CaptionFeatures, type ShuffleRef } from "../core/records.ts";
import { UNRENDERED } from "../wikitext/inline-templates.ts";
import { MAX_EDITED_TOKENS, onlySpellingDiffers } from "./spelling-fix.ts";
import type { TierSpec } from "./tiers.ts";

export interface ImageGroup {
  readonly image: string;
  /** references of this image in the tier's input (history: one per revision that used it) */
  readonly references: number;
  /** distinct uses (page, place, caption, alt): a use unchanged over many revisions counts once */
  readonly uses: number;
  /** distinct uses still carrying a caption or alt text (identical uses repeated across revisions count once) */
  readonly captionedUses: number;
}

/** Sound files are embedded with the same [[File:…]] syntax, but a sound is not an image. */
const AUDIO_EXTENSIONS = /\.(ogg|oga|opus|mp3|wav|flac|midi?|spx)$/i;

export const notAudioFilter: Filter<ImageGroup> = defineFilter({
  name: "not_audio",
  version: 1,
  paperStep: null,
  unit: "image",
  description: "file is an image or video, not a sound",
  keep: (g) => (AUDIO_EXTENSIONS.test(g.image) ? { drop: "audio_file" } : true),
});

/** A tier's filters in funnel order, built once per stage (and by the funnel from the same config). */
export interface TierFilters {
  readonly tier: TierSpec;
  /** on an image with its corpus-wide counts, before any caption filter (steps 1–2) */
  readonly image: readonly Filter<ImageGroup>[];
  /** on each distinct use (step 3) */
  readonly reference: readonly Filter<ShuffleRef>[];
  /** on each caption and alt text (steps 3–5) */
  readonly caption: readonly Filter<CaptionFeatures>[];
  /** on the image again, with its surviving captioned uses (step 6) */
  readonly captioned: Filter<ImageGroup>;
  /** the equivalence-set bound of a run with caption-list images (null: none) */
  readonly setSize: Filter<CandidatePair> | null;
  /** unique-candidate dedup (step 7), applied by the dedup stage itself */
  readonly unique: FilterInfo;
  /** on each unique candidate pair (steps 8–9) */
  readonly pair: readonly Filter<CandidatePair>[];
}

export function tierFilters(config: ParacapConfig, tier: TierSpec, opts: { setSizeMax?: number | null } = {}): TierFilters {
  return {
    tier,
    image: imageFilters(config, tier),
    reference: [hasCaptionFilter],
    caption: captionFilters(config, tier),
    captioned: minCaptionedUsesFilter(2),
    setSize: opts.setSizeMax === undefined || opts.setSizeMax === null ? null : setSizeFilter(opts.setSizeMax),
    unique: uniqueFilterInfo,
    pair: pairFilters(config),
  };
}

/** Every step of a tier's funnel, in order. */
export function funnelSteps(f: TierFilters): FilterInfo[] {
  return [...f.image, ...f.reference, ...f.caption, f.captioned, ...(f.setSize ? [f.setSize] : []), f.unique, ...f.pair];
}

/** The image-level filters of a tier, in funnel order. */
export function imageFilters(config: ParacapConfig, tier: TierSpec): Filter<ImageGroup>[] {
  return [...(config.images.skipAudio ? [notAudioFilter] : []), minRefsFilter(config.images.minRefs), maxRefsFilter(tier.maxRefs, tier.maxRefsUnit)];
}

export function minRefsFilter(min: number): Filter<ImageGroup> {
  return defineFilter({
    name: "min_refs",
    version: 1,
    paperStep: 1,
    unit: "image",
    description: `image referenced ≥ ${min} times`,
    keep: (g) => (g.references >= min ? true : { drop: "too_few_references" }),
  });
}

/**
 * The upper bound on an image's references. `references` is the paper's rule: every revision's use
 * counts, so on a much-edited page an image kept for more than 180 revisions is dropped however few
 * captions it ever had. `uses` counts what makes pairs expensive, distinct uses (caption versions).
 * On current-revision input the two agree except for identical uses repeated on one page.
 */
export function maxRefsFilter(max: number, unit: "references" | "uses" = "references"): Filter<ImageGroup> {
  if (unit === "uses") {
    return defineFilter({
      name: "max_uses",
      version: 1,
      // step 2 with a different count (improved preset)
      paperStep: 2,
      unit: "image",
      description: `image has ≤ ${max} distinct uses (caption versions; a use unchanged over revisions counts once)`,
      keep: (g) => (g.uses <= max ? true : { drop: "too_many_uses" }),
    });
  }
  return defineFilter({
    name: "max_refs",
    version: 1,
    paperStep: 2,
    unit: "image",
    description: `image referenced ≤ ${max} times`,
    keep: (g) => (g.references <= max ? true : { drop: "too_many_references" }),
  });
}
export const MAX_USES_ID = maxRefsFilter(0, "uses").id;

export const hasCaptionFilter: Filter<ShuffleRef> = defineFilter({
  name: "has_caption",
  version: 1,
  paperStep: 3,
  unit: "reference",
  description: "reference has a caption or alt text",
  keep: (r) => (CAPTION_TYPES.some((t) => captionOf(r, t) !== null) ? true : { drop: "no_caption" }),
});

export function captionFilters(config: ParacapConfig, tier: TierSpec): Filter<CaptionFeatures>[] {
  const c = config.captions;
  const filters: Filter<CaptionFeatures>[] = [
    defineFilter({
      name: "non_empty",
      version: 1,
      // a caption empty after preprocessing is no caption (step 3)
      paperStep: 3,
      unit: "caption",
      description: "caption is not empty after preprocessing",
      keep: (f) => (f.text.length > 0 ? true : { drop: "empty" }),
    }),
    readableFilter,
    ...(config.extraction.unknownTemplates === "mark" ? [renderedFilter] : []),
    defineFilter({
      name: "min_words",
      version: 1,
      paperStep: 4,
      unit: "caption",
      description: `caption has ≥ ${c.minWords} words`,
      keep: (f) => (f.words >= c.minWords ? true : { drop: "too_few_words" }),
    }),
    defineFilter({
      name: "max_words",
      version: 1,
      paperStep: null,
      unit: "caption",
      description: `caption has ≤ ${c.maxWords} words`,
      keep: (f) => (f.words <= c.maxWords ? true : { drop: "too_many_words" }),
    }),
  ];
  if (c.profanity) {
    filters.push(defineFilter({
      name: "not_profane",
      version: 1,
      paperStep: 4,
      unit: "caption",
      description: "caption has no word of the profanity list",
      keep: (f) => (f.profane ? { drop: "profane" } : true),
    }));
  }
  if (c.englishOnly) {
    filters.push(defineFilter({
      name: "english",
      version: 1,
      paperStep: 4,
      unit: "caption",
      description: "caption is English",
      keep: (f) => (f.english ? true : { drop: "not_english" }),
    }));
  }
  filters.push(
    tier.captionRule === "sentence"
      ? defineFilter({
        name: `is_sentence_${c.classifier}`,
        // v2: the improved rules take the tagger's lexical second readings (caption/lexical-alternatives.ts)
        version: c.classifier === "improved" ? 2 : 1,
        paperStep: 5,
        unit: "caption",
        description: `caption is a sentence (${c.classifier} classifier)`,
        keep: (f) => (f.isSentence ? true : { drop: "not_a_sentence" }),
      })
      : defineFilter({
        name: "has_verb",
        version: 1,
        paperStep: 5,
        unit: "caption",
        description: "caption contains a verb",
        keep: (f) => (f.hasVerb ? true : { drop: "no_verb" }),
      }),
  );
  return filters;
}

/** Captions the extract step could not analyse (shared/caption/caption-guard.ts): counted here, with examples. */
export const readableFilter: Filter<CaptionFeatures> = defineFilter({
  name: "readable",
  version: 1,
  paperStep: null,
  unit: "caption",
  description: "caption could be analysed (not over the length bounds, no U+FFFD, the NLP step did not fail)",
  keep: (f) => (f.unreadable === undefined ? true : { drop: f.unreadable }),
});

/** A caption with a template the cleaner could not render (marked UNRENDERED) would be missing words. */
export const renderedFilter: Filter<CaptionFeatures> = defineFilter({
  name: "rendered",
  version: 1,
  paperStep: null,
  unit: "caption",
  description: "caption has no template paracap cannot render (its words would be missing)",
  keep: (f) => (f.text.includes(UNRENDERED) ? { drop: "unrendered_template" } : true),
});

export function minCaptionedUsesFilter(min: number): Filter<ImageGroup> {
  return defineFilter({
    name: "image_captioned_refs",
    version: 1,
    paperStep: 6,
    unit: "image",
    description: `image still has ≥ ${min} distinct references with surviving captions`,
    keep: (g) => (g.captionedUses >= min ? true : { drop: "too_few_captioned_references" }),
  });
}

/** Step 7 is stateful (corpus-wide, by exact texts): the dedup stage applies it. */
export const uniqueFilterInfo: FilterInfo = defineFilterInfo({
  name: "unique",
  version: 1,
  paperStep: 7,
  unit: "pair",
  description: "pair is unique corpus-wide (exact texts; duplicates keep the smallest id)",
});

/** Case-insensitive equality (Unicode-aware lower-casing, unlike the reference's ASCII folding). */
export const divergentFilter: Filter<CandidatePair> = defineFilter({
  name: "divergent",
  version: 1,
  paperStep: 8,
  unit: "pair",
  description: "captions differ ignoring case",
  keep: (p) => (p.a.text.toLowerCase() === p.b.text.toLowerCase() ? { drop: "equal_ignoring_case" } : true),
});

/**
 * Near-equality: the captions differ only in punctuation, case, whitespace or parenthesised asides.
 * Unicode-aware (the reference deleted every non-ASCII letter, so Greek or Cyrillic captions collapsed
 * to "" and were always dropped).
 */
export const significantDifferenceFilter: Filter<CandidatePair> = defineFilter({
  name: "significant_difference",
  version: 1,
  paperStep: 9,
  unit: "pair",
  description: "captions differ in more than punctuation, case, whitespace and parenthesised asides",
  keep: (p) => (nearEqualForm(p.a.text) === nearEqualForm(p.b.text) ? { drop: "near_equal" } : true),
});

/** Not in the paper: a pair whose captions differ only by a small spelling edit (spelling-fix.ts) is a typo fix, not a paraphrase. */
export const notSpellingFixFilter: Filter<CandidatePair> = defineFilter({
  name: "not_spelling_fix",
  version: 1,
  paperStep: null,
  unit: "pair",
  description: `captions differ in more than a spelling edit (≤ ${MAX_EDITED_TOKENS} words, each within 1–2 letters; not in the paper)`,
  keep: (p) => (onlySpellingDiffers(p.a.text, p.b.text) ? { drop: "spelling_fix" } : true),
});

/** The pair filters after the unique-candidate step, in funnel order. */
export function pairFilters(config: ParacapConfig): Filter<CandidatePair>[] {
  return [divergentFilter, significantDifferenceFilter, ...(config.pairs.dropSpellingFixes ? [notSpellingFixFilter] : [])];
}

export function nearEqualForm(text: string): string {
  let t = text;
  // innermost parentheses first, so nested asides go too; bounded by the number of "(".
  for (let prev = ""; prev !== t; ) {
    prev = t;
    t = t.replace(/\([^()]*\)/g, " ");
  }
  return t.toLowerCase().replace(/[\p{P}\p{S}\p{Z}\s]+/gu, "");
}

/**
 * The thesis's equivalence-set size bound (§5.1.2) as a pair filter: an image from a caption list
 * whose set of captions is far larger than usual is a placeholder picture behind many unrelated
 * captions. Pairs of other images (no `setSize`) pass.
 */
export function setSizeFilter(max: number): Filter<CandidatePair> {
  return defineFilter({
    name: "set_size_bound",
    version: 1,
    // the thesis's rule (§5.1.2), not the paper's
    paperStep: null,
    unit: "pair",
    description: `image's caption set ≤ ${Number.isFinite(max) ? max : "∞"} (⌊μ + z·σ⌋ of set sizes, caption lists only)`,
    keep: (p) => (p.setSize === undefined || p.setSize <= max ? true : { drop: "set_too_large" }),
  });
}
