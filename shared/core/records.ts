/**
 * Records that cross stage boundaries. Every stage input/output is one of these zod schemas,
 * so a shard file or a Pub/Sub message can be validated where it enters a stage.
 */
import { z } from "zod";

/**
 * Which kind of input fed a record: one state of each page (a current-revision dump, one crawl;
 * gold/silver) or several states over time (a full-history dump, re-crawls of a site; bronze).
 */
export const InputKind = z.enum(["current", "history"]);
export type InputKind = z.infer<typeof InputKind>;

/**
 * A document's identity as its source gives it: MediaWiki's numeric page and revision ids, or a
 * string (a URL, a WARC record id, a TSV line, a tar member key). Numbers sort numerically, strings
 * by code point, numbers first (cmpId).
 */
export const DocId = z.union([z.number().int(), z.string()]);
export type DocId = z.infer<typeof DocId>;

export function cmpId(a: DocId, b: DocId): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "number") return -1;
  if (typeof b === "number") return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One revision of one page, as read from a MediaWiki XML export. */
export const PageRevision = z.object({
  title: z.string(),
  ns: z.number().int(),
  pageId: z.number().int(),
  revisionId: z.number().int(),
  timestamp: z.string().nullable(),
  redirect: z.boolean(),
  text: z.string(),
});
export type PageRevision = z.infer<typeof PageRevision>;

/** Where an image reference was found in wikitext: a link, a gallery line or a template parameter. */
export const WikitextSource = z.enum(["link", "gallery", "template"]);
export type WikitextSource = z.infer<typeof WikitextSource>;

/**
 * Where an image reference was found, named by its source (wikitext's link/gallery/template, a caption
 * list's row, an HTML img/figure/table): lowercase, it becomes part of a counter name.
 */
export const ReferenceSource = z.string().regex(/^[a-z][a-z0-9_]*$/);
export type ReferenceSource = z.infer<typeof ReferenceSource>;

/**
 * Caption types; pairs are only built within one type. `caption` and `alt` are every source's
 * (wikitext's caption and alt=; a figure's figcaption and an img's alt); `title` (an img's title
 * attribute) and `nearby` (the text around an image, lower confidence) come from web pages.
 */
export const CaptionType = z.enum(["caption", "alt", "title", "nearby"]);
export type CaptionType = z.infer<typeof CaptionType>;

/**
 * One use of an image in one page's wikitext, with its caption and alt text already cleaned to
 * plain text (null when absent). `image` is the normalised key ("File:Foo bar.jpg").
 */
export const WikitextImageRef = z.object({
  image: z.string(),
  source: WikitextSource,
  caption: z.string().nullable(),
  alt: z.string().nullable(),
});
export type WikitextImageRef = z.infer<typeof WikitextImageRef>;

/** Caption features, computed once per distinct caption text. */
export const CaptionFeatures = z.object({
  /** preprocessed text (line breaks, non-printables, whitespace normalised) */
  text: z.string(),
  words: z.number().int(),
  profane: z.boolean(),
  english: z.boolean(),
  hasVerb: z.boolean(),
  /** sentence verdict of the configured classifier */
  isSentence: z.boolean(),
  /** Penn Treebank tags, one per token, space-joined */
  tags: z.string(),
  /** why the caption was not analysed (too long, a runaway token, U+FFFD, the analyser failed): a counted drop */
  unreadable: z.string().optional(),
});
export type CaptionFeatures = z.infer<typeof CaptionFeatures>;

/**
 * One image reference after extraction, as it travels through the shuffle (partitioned by image).
 * Identical uses (same page, image, caption, alt) in consecutive revisions of a history dump are
 * collapsed into one record with `uses` = how many revisions had it: counted as `uses` references,
 * paired once.
 */
export const ShuffleRef = z.object({
  image: z.string(),
  kind: InputKind,
  page: z.string(),
  pageId: DocId,
  /** first revision (in dump order) that had this use */
  revisionId: DocId,
  /** position of the reference within its page, for a deterministic order */
  ordinal: z.number().int(),
  source: ReferenceSource,
  uses: z.number().int().positive(),
  caption: CaptionFeatures.nullable(),
  alt: CaptionFeatures.nullable(),
  /** web sources only (absent elsewhere, so wikitext records keep their shape) */
  title: CaptionFeatures.nullable().optional(),
  nearby: CaptionFeatures.nullable().optional(),
  /** text pivots only: the image key the reference was found with (`image` is then the caption group's key) */
  origin: z.string().optional(),
});
export type ShuffleRef = z.infer<typeof ShuffleRef>;

export const CAPTION_TYPES: readonly CaptionType[] = CaptionType.options;

/** The caption of one type a reference carries, or null. */
export function captionOf(ref: { caption: CaptionFeatures | null; alt: CaptionFeatures | null; title?: CaptionFeatures | null; nearby?: CaptionFeatures | null }, type: CaptionType): CaptionFeatures | null {
  return ref[type] ?? null;
}

/** One side of a pair: the caption and where it was used. */
export const PairSide = z.object({
  text: z.string(),
  page: z.string(),
  pageId: DocId,
  /** first revision (in dump order) that had this use */
  revisionId: DocId,
  /** position of the reference within that revision's page: (page, revisionId, ordinal) names one use */
  ordinal: z.number().int(),
  /** how many references this use stands for (history: revisions that had it unchanged; current: 1 unless repeated on the page) */
  uses: z.number().int().positive(),
  /** text pivots only: this side's own image (the pair's `image` is the caption group's key) */
  image: z.string().optional(),
});
export type PairSide = z.infer<typeof PairSide>;

/**
 * How a text pivot found a pair (absent for image pivots, so their records keep their shape): the
 * pivot's name, and for min-hash the permutaries' estimate and the exact word-set Jaccard.
 */
export const PivotMatch = z.object({
  name: z.string(),
  estimate: z.number().min(0).max(1).optional(),
  jaccard: z.number().min(0).max(1).optional(),
});
export type PivotMatch = z.infer<typeof PivotMatch>;

/** A candidate pair of same-type captions of one image, sides in canonical (code point) order. */
export const CandidatePair = z.object({
  id: z.string(),
  tier: z.string(),
  image: z.string(),
  type: CaptionType,
  a: PairSide,
  b: PairSide,
  /** distinct uses of the image, for images from caption lists (the equivalence-set size bound applies to them) */
  setSize: z.number().int().positive().optional(),
  /** a pair found by a text pivot (its two sides' images differ; `image` is the caption group's key) */
  pivot: PivotMatch.optional(),
});
export type CandidatePair = z.infer<typeof CandidatePair>;

/** How a pair's paraphrase verdict was reached: `score` > `threshold` (score: a metric name or `mean(m1,m2,…)`). */
export const ParaphraseRule = z.object({ score: z.string(), threshold: z.number() });
export type ParaphraseRule = z.infer<typeof ParaphraseRule>;

/**
 * A pair that survived every filter, with its metrics: one line of gold/silver/bronze.jsonl. With a semantic scorer
 * configured it also carries `semantic`, `deltaSemSyn` (in metrics) and the paraphrase verdict; outputs made with
 * syntactic scoring only have neither, and stay valid.
 */
export const ScoredPair = CandidatePair.extend({
  metrics: z.record(z.string(), z.number()),
  paraphrase: z.boolean().optional(),
  paraphraseBy: ParaphraseRule.optional(),
});
export type ScoredPair = z.infer<typeof ScoredPair>;
