/**
 * Filters for captions found in web pages, before they become references: each a counted filter
 * with a reason (shared/core/filter.ts), applied by the WARC source's extractor under the tier name
 * `web` (`filter.web.<id>.dropped.<reason>`). The web is noisier than Wikipedia: alt texts are
 * often file names, "logo", keyword lists for search engines, or in another language.
 */
import { applyFilter, defineFilter, type SyncFilter } from "../../core/filter.ts";
import type { Counters } from "../../core/counters.ts";
import { filterCounter } from "../../core/counter-names.ts";
import { createProfanityMatcher, loadDefaultProfanityList } from "../../caption/profanity.ts";
import type { WebCaption } from "../html/extract-captions.ts";

export const WEB_FILTER_TIER = "web";

const IMAGE_EXT = /\.(jpe?g|png|gif|webp|svg|bmp|tiff?|avif|heic|ico)$/i;
/** Words that name the picture's role, not its content: alone (or with "icon"/"logo"), boilerplate. */
const GENERIC = new Set([
  "image", "img", "images", "photo", "photos", "picture", "pic", "logo", "icon", "avatar", "headshot", "banner", "thumbnail", "thumb",
  "placeholder", "default", "untitled", "spacer", "close", "menu", "search", "home", "homepage", "button", "arrow", "loading", "profile",
  "profile picture", "image alt", "img alt", "alt", "featured image", "header image", "screenshot",
]);
const ROLE_SUFFIX = /\b(icon|logo|button|banner|avatar|thumbnail)s?$/i;
/** "photo of …", "image result for …" followed by at most three words: a label, not a description. */
const GENERIC_PREFIX = /^(a |an |the )?(photo|image|picture|pic|screenshot|thumbnail|image result) (of|for)( \S+){0,3}$/i;

/** Boilerplate alt text: a file name, a role word, "photo of …", a hashtag or keyword list, all capitals. */
export const boilerplateFilter: SyncFilter<WebCaption> = defineFilter<WebCaption>({
  name: "web_boilerplate",
  version: 1,
  paperStep: null,
  unit: "caption",
  description: "web caption is not boilerplate (file name, image/logo/icon, 'photo of', hashtags or keyword list, all capitals)",
  keep(c) {
    const t = c.text.trim();
    if (IMAGE_EXT.test(t) || (/^[\w.-]+$/.test(t) && /[_]/.test(t)) || /^(img|dsc|image|photo|pic)[_-]?\d+/i.test(t)) return { drop: "file_name" };
    const lower = t.toLowerCase().replace(/[.:!]+$/, "");
    if (GENERIC.has(lower)) return { drop: "generic_word" };
    if (ROLE_SUFFIX.test(lower)) return { drop: "icon_or_logo" };
    if (GENERIC_PREFIX.test(lower)) return { drop: "generic_prefix" };
    if ((t.match(/(^|\s)#\w/g) ?? []).length >= 2) return { drop: "hashtags" };
    if (/^([^,|;]{1,30}[,|;]\s*){3,}[^,|;]{0,30}$/.test(t)) return { drop: "keyword_list" };
    const letters = t.replace(/[^\p{L}]/gu, "");
    if (letters.length >= 4 && letters === letters.toUpperCase() && letters !== letters.toLowerCase()) return { drop: "all_caps" };
    return true;
  },
});

export interface LengthBounds {
  minWords: number;
  maxWords: number;
  maxChars: number;
}

export const DEFAULT_LENGTH_BOUNDS: LengthBounds = { minWords: 3, maxWords: 60, maxChars: 400 };

export function lengthFilter(bounds: LengthBounds = DEFAULT_LENGTH_BOUNDS): SyncFilter<WebCaption> {
  return defineFilter<WebCaption>({
    name: "web_length",
    version: 1,
    paperStep: null,
    unit: "caption",
    description: `web caption has ${bounds.minWords}–${bounds.maxWords} words and at most ${bounds.maxChars} characters`,
    keep(c) {
      if (c.text.length > bounds.maxChars) return { drop: "too_long" };
      const words = c.text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
      if (words < bounds.minWords) return { drop: "too_few_words" };
      if (words > bounds.maxWords) return { drop: "too_many_words" };
      return true;
    },
  });
}

/** Distinct caption texts whose language verdict is kept (more only hold memory). */
const LANGUAGE_CACHE_LIMIT = 50_000;

/**
 * Language identification with eld (Nito-ELD, medium database): a caption is kept when eld names
 * the target language and calls its result reliable. Measured on the distinct alt/title/figcaption
 * texts of the three real crawls (test/web/filters/web-caption-filters.test.ts) after the
 * boilerplate and length filters. The detector comes from loadLanguageDetector (the WARC source's
 * prepare): without one the filter still describes itself (funnel rows), but cannot judge.
 */
export function languageFilter(target = "en", detector: LanguageDetector | null = null): SyncFilter<WebCaption> {
  const verdicts = new Map<string, true | { drop: string }>();
  return defineFilter<WebCaption>({
    name: "web_language",
    version: 1,
    paperStep: null,
    unit: "caption",
    description: `web caption is in language "${target}" by eld (reliable result)`,
    keep(c) {
      if (detector === null) throw new Error("the web language filter has no detector: load it with loadLanguageDetector() (the WARC source's prepare)");
      // a site repeats its alt texts page after page: eld's verdict on a text is kept (a cache: eld is deterministic)
      let v = verdicts.get(c.text);
      if (v === undefined) {
        const r = detector.detect(c.text);
        v = r.language !== target ? { drop: "other_language" } : !r.isReliable() ? { drop: "language_uncertain" } : true;
        if (verdicts.size >= LANGUAGE_CACHE_LIMIT) verdicts.clear();
        verdicts.set(c.text, v);
      }
      return v === true ? true : { drop: v.drop };
    },
  });
}

export function profanityFilter(): SyncFilter<WebCaption> {
  // the list is loaded on first use: the filter's metadata is wanted by every run (funnel rows), its rule only by crawls
  let matcher: ((text: string) => boolean) | null = null;
  const profane = (text: string) => (matcher ??= createProfanityMatcher(loadDefaultProfanityList()))(text);
  return defineFilter<WebCaption>({
    name: "web_profanity",
    version: 1,
    paperStep: null,
    unit: "caption",
    description: "web caption has no word of the profanity list",
    keep: (c) => (profane(c.text) ? { drop: "profane" } : true),
  });
}

/** What the language filter asks of eld. */
export interface LanguageDetector {
  detect(text: string): { language: string; isReliable(): boolean };
}

/** eld's detector; its n-gram tables take a few hundred ms to load, so only runs that read crawls load them. */
export async function loadLanguageDetector(): Promise<LanguageDetector> {
  return (await import("eld/medium")).eld;
}

export interface WebFilterOptions {
  language?: string;
  /** for the language filter (none: the filters can describe themselves, not judge) */
  detector?: LanguageDetector;
  length?: LengthBounds;
}

/** The web caption filters, cheapest first. */
export function webCaptionFilters(opts: WebFilterOptions = {}): SyncFilter<WebCaption>[] {
  return [lengthFilter(opts.length), boilerplateFilter, profanityFilter(), languageFilter(opts.language, opts.detector ?? null)];
}

/** True when every filter keeps the caption; each verdict is counted (and a drop sampled) under tier `web`. */
export function keepWebCaption(filters: readonly SyncFilter<WebCaption>[], caption: WebCaption, counters: Counters): boolean {
  for (const f of filters) if (!applyFilter(f, caption, counters, WEB_FILTER_TIER)) return false;
  return true;
}

/** Distinct caption texts whose verdicts (of the whole chain) are kept by a keeper. */
const VERDICT_CACHE_LIMIT = 50_000;

/**
 * keepWebCaption for one extractor: the same verdicts, counters and samples, but each distinct text
 * judged once (a site repeats its alt texts page after page) and the counter names built once. Only
 * for filters that judge a caption by its text alone, as every web caption filter does: the chain's
 * outcome on a text (the first filter that drops it, and why, or none) is then a fact of the text, and
 * replaying it counts exactly what running the filters would.
 */
export function webCaptionKeeper(filters: readonly SyncFilter<WebCaption>[], counters: Counters): (caption: WebCaption) => boolean {
  const names = filters.map((f) => ({
    in: filterCounter(WEB_FILTER_TIER, f.id, "in"),
    kept: filterCounter(WEB_FILTER_TIER, f.id, "kept"),
    dropped: filterCounter(WEB_FILTER_TIER, f.id, "dropped"),
    /** reason → its counter name, which is also its sample name */
    reasons: new Map<string, string>(),
  }));
  /** text → index of the filter that drops it and the reason's counter name; -1: kept by all */
  const outcomes = new Map<string, { at: number; reason: string }>();
  const KEPT = { at: -1, reason: "" };
  const reasonName = (at: number, reason: string) => {
    const known = names[at]!.reasons;
    let name = known.get(reason);
    if (name === undefined) known.set(reason, (name = filterCounter(WEB_FILTER_TIER, filters[at]!.id, "dropped", reason)));
    return name;
  };
  const judge = (text: string, caption: WebCaption): { at: number; reason: string } => {
    for (let at = 0; at < filters.length; at++) {
      const v = filters[at]!.keep(caption);
      if (v !== true) return { at, reason: reasonName(at, v.drop) };
    }
    return KEPT;
  };
  return (caption) => {
    const text = caption.text;
    let outcome = outcomes.get(text);
    if (outcome === undefined) {
      outcome = judge(text, caption);
      if (outcomes.size >= VERDICT_CACHE_LIMIT) outcomes.clear();
      outcomes.set(text, outcome);
    }
    // what applyFilter counts for each filter the caption reaches, in order
    const last = outcome.at < 0 ? names.length : outcome.at;
    for (let at = 0; at < last; at++) {
      counters.inc(names[at]!.in);
      counters.inc(names[at]!.kept);
    }
    if (outcome.at < 0) return true;
    const n = names[outcome.at]!;
    counters.inc(n.in);
    counters.inc(n.dropped);
    counters.inc(outcome.reason);
    counters.samples.add(outcome.reason, text);
    return false;
  };
}
