/**
 * The one configuration schema. Defaults are embedded; precedence is file < environment < CLI, and
 * the resolved config is saved next to the outputs (config.json) so every dataset says how it was made.
 */
import { z } from "zod";
import { closest } from "./closest-name.ts";
import { PIVOT_NAMES, SCORER_NAMES } from "./plugin-names.ts";
import { requireModel, TransformerConfig } from "./transformer-config.ts";
import { lineEncoding } from "./encoding-label.ts";

import { Classifier, ConfigError, MinWords, Partitions, TierName } from "./config-pieces.ts";

export { ConfigError, TierName };

export const Preset = z.enum(["improved", "paper"]);
export type Preset = z.infer<typeof Preset>;

/** Upper bounds of settings that size memory or work: every numeric setting has one (a test checks). */
const MAX_PAGE_BYTES = 64 * 1024 * 1024;
/** References per image: pairs per image are capped separately, so a high bound costs time, not memory. */
const MAX_REFS = 100_000;

export const ParacapConfig = z.object({
  preset: Preset.default("improved")
    .describe("paper: the published rules exactly; improved: the better method (see PRESETS). Explicitly set keys win over the preset"),
  // (in the tiers' own order, each once: "silver,gold" is the run "gold,silver" is)
  tiers: z.array(TierName).min(1).transform((ts) => TierName.options.filter((t) => ts.includes(t))).default(["gold", "silver", "bronze"])
    .describe("tiers to produce; gold/silver need current-revision input, bronze needs full-history input"),
  partitions: Partitions.default(16)
    .describe("shuffle partitions (group-by-image and pair dedup); memory per partition task ≈ input / partitions"),
  dump: z.object({
    namespaces: z.array(z.number().int().min(-2).max(1_000_000)).max(1000).default([0]).describe("page namespaces to read (0 = articles)"),
    skipRedirects: z.boolean().default(true),
    decoder: z.enum(["auto", "system", "js"]).default("auto").describe("bz2 decoder: system lbzip2/bzip2, pure JS, or auto"),
  }).prefault({}),
  extraction: z.object({
    fileAliases: z.array(z.string().max(255)).max(1000).default([]).describe("localized File: namespace aliases, e.g. Datei, Fichier"),
    maxPageBytes: z.number().int().positive().max(MAX_PAGE_BYTES).default(8 * 1024 * 1024)
      .describe("larger pages are skipped and counted (at most 64 MiB: the extractor keeps a page's last 8 texts)"),
    colonFileLinks: z.enum(["text", "reference"]).default("text")
      .describe("[[:File:X|label]] links to the file page: text = an ordinary link (its label stays in the caption around it, not a use of the image); reference = a use of the image with the label as caption (reference implementation)"),
    unknownTemplates: z.enum(["mark", "delete"]).default("mark")
      .describe("templates in a caption that paracap cannot render: mark = the caption is dropped as unrendered_template (no caption with silently missing words); delete = cut out (reference implementation)"),
    warcBaseUrl: z.string().max(2048).url().refine((u) => /^https?:\/\//i.test(u), "an http(s) URL").default("https://data.commoncrawl.org/")
      .describe("web crawl paths lists (warc.paths.gz): each line is a WARC path read over HTTP(S) from under this URL"),
    // absent unless set, so configurations (and fingerprints) of runs that set none stay as they were
    warcHttp: z.object({
      idleSeconds: z.number().positive().max(3600).default(60).describe("a connection to a WARC's server silent this long is dropped and the read resumed"),
      retries: z.number().int().min(0).max(100).default(5).describe("failed attempts in a row (no byte gained) before a WARC is given up"),
      maxWaitSeconds: z.number().positive().max(86_400).default(300)
        .describe("the longest a WARC read goes without a byte, reconnects and backoff included, before the file is given up (planning's size requests: at most 30 s)"),
    }).optional().describe("how long reads of a paths list's WARCs wait for a slow or silent server (defaults when absent)"),
    // absent unless set (as warcHttp): without it a caption list's encoding is told from its bytes
    captionEncoding: z.string().max(64).transform((label, ctx) => {
      const got = lineEncoding(label);
      if ("error" in got) {
        ctx.addIssue({ code: "custom", message: got.error });
        return z.NEVER;
      }
      return got.encoding;
    }).optional()
      .describe("caption lists (TSV, CSV, JSONL): the encoding every file is decoded with, a WHATWG label (macintosh, iso-8859-2, shift_jis; saved as its canonical name); absent: UTF-8, or windows-1252 for a file that is not UTF-8 and holds no UTF-8 character"),
    // absent unless set (as warcHttp): `run` sets it from a non-English dump's <siteinfo>
    language: z.string().regex(/^[a-z]{2,3}(?:-[a-z]+)?$/, "a wiki language code such as bg or de").optional()
      .describe("the wiki's language: its localized image options (мини, hochkant, vignette, 200пкс) are options, not captions; run sets it from a dump's <siteinfo> when it is not English"),
    // absent unless set (as warcHttp): its default follows the preset
    templateImages: z.boolean().optional()
      .describe("web pages: drop the page template's images (shown twice on one page, or declared under 3,000 pixels or over 3:1) as not captioned by their context; default: true, false under preset paper"),
    // absent unless set (as templateImages): its default follows the preset
    classCaptions: z.boolean().optional()
      .describe("web pages: figures a CMS marks by class instead of <figure> (MediaWiki's thumbinner/thumbcaption and gallerytext, WordPress' classic wp-caption/wp-caption-text) give figcaption captions; default: true, false under preset paper (figure and figcaption tags only)"),
    // absent unless set (as templateImages): its default follows the preset
    dropCredits: z.boolean().optional()
      .describe("web pages: a photo credit marked by its class (<span class=\"credit\">Photo: Jane Doe/Reuters</span>) is no part of a figcaption, table or nearby caption, nor is one written at a caption's end (… Photograph: Jane Doe/AP); default: true, false under preset paper (the thesis takes a figcaption whole)"),
  }).prefault({}),
  captions: z.object({
    minWords: MinWords.default(6).describe("paper: 6; thesis: 10"),
    maxChars: z.number().int().min(1).max(1_000_000).default(5000)
      .describe("longer captions are not analysed (counted drop): the NLP step's cost must be bounded per caption"),
    maxTokenChars: z.number().int().min(1).max(10_000).default(300)
      .describe("a caption with a longer unbroken token is not analysed (tokenising one grows superlinearly with its length)"),
    maxWords: z.number().int().min(1).max(10_000).default(200)
      .describe("longer \"captions\" are extraction run-ons (e.g. an unclosed link swallowing a page); pair metrics are quadratic in length"),
    classifier: Classifier.default("improved").describe("sentence classifier used by the gold tier"),
    profanity: z.boolean().default(true).describe("drop captions containing a word of the LDNOOBW list"),
    englishOnly: z.boolean().default(false).describe("drop captions not detected as English (off for English Wikipedia)"),
  }).prefault({}),
  images: z.object({
    skipAudio: z.boolean().default(true).describe("drop references to sound files (.ogg, .mp3, …), which use the same [[File:…]] syntax"),
    minRefs: z.number().int().min(2).max(MAX_REFS).default(2).describe("an image needs at least this many references"),
    maxRefs: z.number().int().min(2).max(MAX_REFS).default(10).describe("current-revision tiers: at most this many references"),
    maxRefsHistory: z.number().int().min(2).max(MAX_REFS).default(180).describe("bronze: at most this many references (18 revisions × 10)"),
    setSizeZ: z.number().min(0).max(1000).nullable().default(0.05)
      .describe("caption lists (web sources): drop pairs of an image whose set of captions exceeds ⌊μ + z·σ⌋ of all set sizes (thesis §5.1.2); null = off"),
    maxRefsHistoryUnit: z.enum(["uses", "references"]).default("uses")
      .describe("what the bronze bound counts: uses = distinct uses (caption versions; a use unchanged over many revisions counts once); references = every revision's use (paper)"),
  }).prefault({}),
  pairs: z.object({
    dropSpellingFixes: z.boolean().default(true)
      .describe("drop pairs whose only difference is a small spelling edit (a typo fix between revisions is not a paraphrase)"),
  }).prefault({}),
  pivot: z.enum(PIVOT_NAMES).default("resource")
    .describe("what makes two references the same image: resource = the same (Commons) file; url = the same normalised URL; md5 = the same decoded pixels; ahash/dhash/phash/rahash/rphash = perceptual hashes within pixels.threshold bits (thesis 4.6); canonical = captions with one Déjà canonical form; minhash = captions whose word sets are similar (Chung & Knight), across images"),
  // Absent unless set, so configurations (and fingerprints) of runs that use no pixels stay as they were.
  pixels: z.object({
    threshold: z.number().int().min(0).max(32).nullable().default(null)
      .describe("perceptual pivots: largest Hamming distance (of 64 bits) between two images of one group; null = the mode's default (shared/pixels/hashes.ts)"),
    maxDiameter: z.number().int().min(0).max(64).nullable().default(null)
      .describe("chaining guard: largest distance between any two members of a group; a larger component is split (counted); null = 2 × threshold"),
  }).optional(),
  pivots: z.object({
    bucketCap: z.number().int().min(2).max(200).default(100)
      .describe("text pivots: a caption group (one key) with more distinct uses is not paired, only counted (200 uses stay under the pairs-per-image cap)"),
    minhash: z.object({
      perms: z.number().int().min(1).max(1024).default(64).describe("min-hashes per caption (m)"),
      bands: z.number().int().min(1).max(256).default(16).describe("bands of m/bands min-hashes, one group key each; must divide perms"),
      threshold: z.number().gt(0).max(1).default(0.5).describe("word-set Jaccard a pair must reach (t)"),
      verify: z.enum(["exact", "estimate"]).default("exact")
        .describe("exact: candidates with estimate ≥ t − slack are kept when their exact Jaccard ≥ t; estimate: the paper's estimate ≥ t"),
      slack: z.number().min(0).max(0.5).default(0.1).describe("how far below t a candidate's estimate may be (verify exact)"),
      seed: z.number().int().min(0).max(0xffffffff).default(20070101),
    }).refine((o) => o.perms % o.bands === 0, { message: "pivots.minhash.bands must divide pivots.minhash.perms" }).prefault({}),
  }).prefault({}),
  scoring: z.object({
    scorers: z.array(z.enum(SCORER_NAMES)).min(1).refine((a) => new Set(a).size === a.length, { message: "names a scorer twice" }).default(["syntactic", "wordVectors"]).describe("pair scorers whose metrics every output pair carries"),
    semantic: z.array(z.string().min(1)).min(1).default(["vectorCosine", "wordMoverSimilarity"])
      .describe("metrics averaged into the pair's semantic score (Δsem,syn = semantic − syntactic, and the paraphrase decision); used when the configured scorers report them"),
    paraphraseThreshold: z.number().min(0).max(1).nullable().default(null)
      .describe("a pair is a paraphrase when its semantic score exceeds this; null: the threshold calibrated on MSRP train for this semantic score (shared/semantic/data/paraphrase-thresholds.json)"),
    vectors: z.object({
      maxWords: z.number().int().positive().max(10_000_000).nullable().default(100_000)
        .describe("word vectors: keep only the most frequent words (memory: 100,000 words ≈ 40 MB instead of 136 MB); null: all 341,479"),
    }).prefault({}),
    transformer: TransformerConfig.describe("model of the embedding and bertscore scorers"),
  }).superRefine(requireModel).prefault({}),
  report: z.object({
    samplesPerTier: z.number().int().min(0).max(1000).default(5),
  }).prefault({}),
});
export type ParacapConfig = z.infer<typeof ParacapConfig>;
export type ParacapConfigInput = z.input<typeof ParacapConfig>;

/**
 * What each preset sets. `paper` keeps the published rules exactly (reproducible numbers); `improved`
 * (default) is the better method. Every choice where the two differ is listed here, nowhere else.
 */
export const PRESETS: Record<Preset, Record<string, Record<string, unknown>>> = {
  improved: {
    captions: { classifier: "improved" },
    images: { maxRefsHistoryUnit: "uses", skipAudio: true },
    extraction: { colonFileLinks: "text", unknownTemplates: "mark" },
    pairs: { dropSpellingFixes: true },
    pivots: { minhash: { verify: "exact" } },
  },
  paper: {
    captions: { classifier: "paper" },
    images: { maxRefsHistoryUnit: "references", skipAudio: false },
    extraction: { colonFileLinks: "reference", unknownTemplates: "delete" },
    pairs: { dropSpellingFixes: false },
    pivots: { minhash: { verify: "estimate" } },
  },
};

/** Fills the keys the user did not set from the chosen preset (explicit keys win). An unknown preset is left for the schema to reject. */
export function applyPreset(merged: Record<string, unknown>): Record<string, unknown> {
  const preset = Preset.safeParse(merged.preset ?? "improved");
  return preset.success ? deepMerge(PRESETS[preset.data], merged) : merged;
}

export function resolveConfig(...layers: unknown[]): ParacapConfig {
  const merged = layers.reduce<Record<string, unknown>>((acc, layer) => deepMerge(acc, (layer ?? {}) as Record<string, unknown>), {});
  // A mistyped key would otherwise be ignored and its default used without a word.
  const unknown = unknownKeys(ParacapConfig, merged, []);
  if (unknown.length > 0) throw new ConfigError(`invalid configuration:\n${unknown.map((u) => `  ${u}`).join("\n")}`);
  const parsed = ParacapConfig.safeParse(applyPreset(merged));
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `  ${i.path.join(".") || "(root)"}: ${i.message}`).join("\n");
    throw new ConfigError(`invalid configuration:\n${issues}`);
  }
  return parsed.data;
}

/** Keys of `value` the schema does not know, each with the closest known key of its object. */
function unknownKeys(schema: z.ZodType, value: unknown, path: string[]): string[] {
  const obj = objectShape(schema);
  if (!obj || !isPlainObject(value)) return [];
  const known = Object.keys(obj);
  const out: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    const where = [...path, k].join(".");
    if (!Object.hasOwn(obj, k)) {
      const near = closest(k, known);
      out.push(`${where}: unknown key${near ? ` (did you mean "${[...path, near].join(".")}"?)` : ` (known: ${known.join(", ")})`}`);
    } else out.push(...unknownKeys(obj[k]!, v, [...path, k]));
  }
  return out;
}

/** The fields of an object schema, looking through default/prefault/optional wrappers. */
function objectShape(schema: z.ZodType): Record<string, z.ZodType> | null {
  let s: unknown = schema;
  for (let i = 0; i < 5 && s; i++) {
    if (s instanceof z.ZodObject) return s.shape as Record<string, z.ZodType>;
    s = (s as { _zod?: { def?: { innerType?: unknown } } })._zod?.def?.innerType;
  }
  return null;
}

function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    if (v === undefined) continue;
    const prev = Object.hasOwn(out, k) ? out[k] : undefined;
    // defined, not assigned: a JSON key "__proto__" stays a key (and is refused as unknown), it never sets the prototype
    Object.defineProperty(out, k, { value: isPlainObject(prev) && isPlainObject(v) ? deepMerge(prev, v) : v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The schema of a config node, looking through default/prefault wrappers (what a user may write there). */
function userSchema(schema: z.ZodType): z.ZodType {
  let s: z.ZodType = schema;
  for (let i = 0; i < 5; i++) {
    if (s instanceof z.ZodDefault || s instanceof z.ZodPrefault) s = (s as unknown as { _zod: { def: { innerType: z.ZodType } } })._zod.def.innerType;
    else break;
  }
  return s;
}

/**
 * A strict schema of the config that allows only `keys` ("section" or "section.key"), each validated
 * by the config's own schema for it, every one optional, and numbers (or array lengths) at most
 * `caps[key]` where a tighter bound than the config's applies. One declaration per setting: what an
 * upload may set is derived from ParacapConfig, never mirrored by hand.
 */
export function configSubset(keys: readonly string[], caps: Readonly<Record<string, number>> = {}): z.ZodType<ParacapConfigInput> {
  const tree: Record<string, true | Set<string>> = {};
  for (const key of keys) {
    const [section, name] = key.split(".") as [string, string | undefined];
    if (name === undefined) tree[section] = true;
    else {
      const names = tree[section];
      if (names === true) continue;
      tree[section] = (names ?? new Set()).add(name);
    }
  }
  const top = objectShape(ParacapConfig)!;
  const capped = (key: string, schema: z.ZodType): z.ZodType => {
    const cap = caps[key];
    if (cap === undefined) return schema;
    return schema.refine((v) => (typeof v === "number" ? v <= cap : Array.isArray(v) ? v.length <= cap : true), { message: `at most ${cap} here` });
  };
  const shape: Record<string, z.ZodType> = {};
  for (const [section, names] of Object.entries(tree)) {
    const node = top[section];
    if (!node) throw new Error(`configSubset: no config key "${section}"`);
    if (names === true) {
      shape[section] = capped(section, userSchema(node)).optional();
      continue;
    }
    const fields = objectShape(node);
    if (!fields) throw new Error(`configSubset: "${section}" is not a section`);
    const sub: Record<string, z.ZodType> = {};
    for (const name of names) {
      if (!fields[name]) throw new Error(`configSubset: no config key "${section}.${name}"`);
      sub[name] = capped(`${section}.${name}`, userSchema(fields[name]!)).optional();
    }
    shape[section] = z.strictObject(sub).optional();
  }
  return z.strictObject(shape) as unknown as z.ZodType<ParacapConfigInput>;
}
