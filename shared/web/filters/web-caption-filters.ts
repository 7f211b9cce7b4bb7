/**
 * Filters for captions found in web pages, before they become references: each a counted filter
 * with a reason (shared/core/filter.ts), applied by the WARC source's extractor under the tier name
 * `web` (`filter.web.<id>.dropped.<reason>`). The web is noisier than Wikipedia: alt texts are
 * often file names, "logo", keyword lists for search engines, or in another language.
 */
import { applyFilter, defineFilter, type SyncFilter } from "../../core/filter.ts";
import type { Counters } from "../../core/counters.ts";
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
  description: "web caption is boilerplate (file name, image/logo/icon, 'photo of', hashtags or keyword list, all capitals)",
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
