/**
 * Every filter of the funnel, in paper order (docs/method.md, Table 3). Image filters see an image with
 * its corpus-wide reference count, caption filters see one caption's features, pair filters see a
 * candidate pair. Unique-candidate dedup is stateful and lives in the dedup stage.
 */
import type { ParacapConfig } from "../core/config.ts";
import type { Filter } from "../core/filter.ts";
import type { CandidatePair, CaptionFeatures, ShuffleRef } from "../core/records.ts";
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

export const notAudioFilter: Filter<ImageGroup> = {
  id: "not_audio_v1",
  description: "file is an image or video, not a sound",
  keep: (g) => (AUDIO_EXTENSIONS.test(g.image) ? { drop: "audio_file" } : true),
};

/** The image-level filters of a tier, in funnel order. */
export function imageFilters(config: ParacapConfig, tier: TierSpec): Filter<ImageGroup>[] {
  return [...(config.images.skipAudio ? [notAudioFilter] : []), minRefsFilter(config.images.minRefs), maxRefsFilter(tier.maxRefs, tier.maxRefsUnit)];
}

export function minRefsFilter(min: number): Filter<ImageGroup> {
  return {
    id: "min_refs_v1",
    description: `image referenced ≥ ${min} times`,
    keep: (g) => (g.references >= min ? true : { drop: "too_few_references" }),
  };
}

/**
 * The upper bound on an image's references. `references` is the paper's rule: every revision's use
 * counts, so on a much-edited page an image kept for more than 180 revisions is dropped however few
 * captions it ever had. `uses` counts what makes pairs expensive, distinct uses (caption versions).
 * On current-revision input the two agree except for identical uses repeated on one page.
 */
export function maxRefsFilter(max: number, unit: "references" | "uses" = "references"): Filter<ImageGroup> {
  if (unit === "uses") {
    return {
      id: MAX_USES_ID,
      description: `image has ≤ ${max} distinct uses (caption versions; a use unchanged over revisions counts once)`,
      keep: (g) => (g.uses <= max ? true : { drop: "too_many_uses" }),
    };
  }
  return {
    id: "max_refs_v1",
    description: `image referenced ≤ ${max} times`,
    keep: (g) => (g.references <= max ? true : { drop: "too_many_references" }),
  };
}
export const MAX_USES_ID = "max_uses_v1";

export const hasCaptionFilter: Filter<ShuffleRef> = {
  id: "has_caption_v1",
  description: "reference has a caption or alt text",
  keep: (r) => (r.caption !== null || r.alt !== null ? true : { drop: "no_caption" }),
};

export function captionFilters(config: ParacapConfig, tier: TierSpec): Filter<CaptionFeatures>[] {
  const c = config.captions;
  const filters: Filter<CaptionFeatures>[] = [
    {
      id: "non_empty_v1",
      description: "caption is not empty after preprocessing",
      keep: (f) => (f.text.length > 0 ? true : { drop: "empty" }),
    },
    readableFilter,
    ...(config.extraction.unknownTemplates === "mark" ? [renderedFilter] : []),
    {
      id: "min_words_v1",
      description: `caption has ≥ ${c.minWords} words`,
      keep: (f) => (f.words >= c.minWords ? true : { drop: "too_few_words" }),
    },
    {
      id: "max_words_v1",
      description: `caption has ≤ ${c.maxWords} words`,
      keep: (f) => (f.words <= c.maxWords ? true : { drop: "too_many_words" }),
    },
  ];
  if (c.profanity) {
    filters.push({ id: "not_profane_v1", description: "caption has no word of the profanity list", keep: (f) => (f.profane ? { drop: "profane" } : true) });
  }
  if (c.englishOnly) {
    filters.push({ id: "english_v1", description: "caption is English", keep: (f) => (f.english ? true : { drop: "not_english" }) });
  }
  filters.push(
    tier.captionRule === "sentence"
      ? { id: `is_sentence_${c.classifier}_v1`, description: `caption is a sentence (${c.classifier} classifier)`, keep: (f) => (f.isSentence ? true : { drop: "not_a_sentence" }) }
      : { id: "has_verb_v1", description: "caption contains a verb", keep: (f) => (f.hasVerb ? true : { drop: "no_verb" }) },
  );
  return filters;
}

/** Captions the extract step could not analyse (shared/caption/caption-guard.ts): counted here, with examples. */
export const readableFilter: Filter<CaptionFeatures> = {
  id: "readable_v1",
  description: "caption could be analysed (not over the length bounds, no U+FFFD, the NLP step did not fail)",
  keep: (f) => (f.unreadable === undefined ? true : { drop: f.unreadable }),
};

/** A caption with a template the cleaner could not render (marked UNRENDERED) would be missing words. */
export const renderedFilter: Filter<CaptionFeatures> = {
  id: "rendered_v1",
  description: "caption has no template paracap cannot render (its words would be missing)",
  keep: (f) => (f.text.includes(UNRENDERED) ? { drop: "unrendered_template" } : true),
};

export function minCaptionedUsesFilter(min: number): Filter<ImageGroup> {
  return {
    id: "image_captioned_refs_v1",
    description: `image still has ≥ ${min} distinct references with surviving captions`,
    keep: (g) => (g.captionedUses >= min ? true : { drop: "too_few_captioned_references" }),
  };
}

/** Case-insensitive equality (Unicode-aware lower-casing, unlike the reference's ASCII folding). */
export const divergentFilter: Filter<CandidatePair> = {
  id: "divergent_v1",
  description: "captions differ ignoring case",
  keep: (p) => (p.a.text.toLowerCase() === p.b.text.toLowerCase() ? { drop: "equal_ignoring_case" } : true),
};

/**
 * Near-equality: the captions differ only in punctuation, case, whitespace or parenthesised asides.
 * Unicode-aware (the reference deleted every non-ASCII letter, so Greek or Cyrillic captions collapsed
 * to "" and were always dropped).
 */
export const significantDifferenceFilter: Filter<CandidatePair> = {
  id: "significant_difference_v1",
  description: "captions differ in more than punctuation, case, whitespace and parenthesised asides",
  keep: (p) => (nearEqualForm(p.a.text) === nearEqualForm(p.b.text) ? { drop: "near_equal" } : true),
};

/** Not in the paper: a pair whose captions differ only by a small spelling edit (spelling-fix.ts) is a typo fix, not a paraphrase. */
export const notSpellingFixFilter: Filter<CandidatePair> = {
  id: "not_spelling_fix_v1",
  description: `captions differ in more than a spelling edit (≤ ${MAX_EDITED_TOKENS} words, each within 1–2 letters; not in the paper)`,
  keep: (p) => (onlySpellingDiffers(p.a.text, p.b.text) ? { drop: "spelling_fix" } : true),
};

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
  return {
    id: "set_size_bound_v1",
    description: `image's caption set ≤ ${Number.isFinite(max) ? max : "∞"} (⌊μ + z·σ⌋ of set sizes, caption lists only)`,
    keep: (p) => (p.setSize === undefined || p.setSize <= max ? true : { drop: "set_too_large" }),
  };
}
