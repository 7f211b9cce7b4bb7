/**
 * Group stage (reduce side of the image shuffle): all references of one partition's images →
 * image filters → caption filters → images with ≥ 2 captioned uses → candidate pairs.
 * Runs every tier over the same grouped references in one pass.
 */
import type { ParacapConfig } from "../core/config.ts";
import { groupCappedPairsCounter, groupPairsCounter, paperRuleDroppedCounter, pivotCounter, WEB_SET_COUNTERS } from "../core/counter-names.ts";
import type { Counters } from "../core/counters.ts";
import { fnv1a32, stableId } from "../core/hash.ts";
import { applyFilter } from "../core/filter.ts";
import { CandidatePair, CAPTION_TYPES, cmpId, ShuffleRef, type CaptionType, type PairSide, type PivotMatch } from "../core/records.ts";
import { isTextPivot, type TextPivot } from "../plugins/pivot-contract.ts";
import { createPivot } from "../plugins/pivots.ts";
import type { Stage, StageContext } from "../core/stage.ts";
import { MAX_USES_ID, tierFilters, type ImageGroup, type TierFilters } from "./filters.ts";
import { countImageRow, isCaptioned, useState, type UseState } from "./funnel.ts";
import { useKeyOf } from "./extract-stage.ts";
import { tierSpecs, type TierSpec } from "./tiers.ts";

export interface GroupOptions {
  /** a tier's filter lists, built once per run of the stage (default: the config's, `tierFilters`); any filter may await */
  tierFilters?: (tier: TierSpec, ctx: StageContext) => TierFilters;
  /** pairs of one image and caption type kept at most (default MAX_PAIRS_PER_IMAGE) */
  maxPairsPerImage?: number;
  /** reference sources of web images, whose set sizes are counted for the set-size bound (the run's sources declare them: `Source.webReferenceSources`); default none */
  webSources?: ReadonlySet<string>;
  /**
   * The references as one array per image (all of one key, `groupKeyOf`), in key order: the group
   * task's sorts in bounded runs through the work store (default: every record held in memory)
   */
  groups?: (records: AsyncIterable<ShuffleRef>) => AsyncIterable<ShuffleRef[]>;
}

/**
 * Pairs of one image and caption type at most: an image with n uses has n(n−1)/2 pairs, so a raised
 * images.maxRefs would otherwise cost memory quadratic in it. Above the cap a deterministic sample is
 * kept (the pairs with the smallest hash of their two sides, whatever the order of the uses), the rest
 * counted (`group.<tier>.pairs_capped`, a drop reason of the funnel's first pair row). The default
 * bounds (180 distinct uses: 16,110 pairs) stay under it.
 */
export const MAX_PAIRS_PER_IMAGE = 20_000;

const NO_WEB_SOURCES: ReadonlySet<string> = new Set();

export function groupStage(config: ParacapConfig, opts: GroupOptions = {}): Stage<ShuffleRef, CandidatePair> {
  const specs = tierSpecs(config);
  // built once per stage: every image of every partition goes through the same lists
  const configured = opts.tierFilters ? null : specs.map((t) => tierFilters(config, t));
  const pivot = createPivot(config.pivot, config.pivots);
  const textPivot = isTextPivot(pivot) ? pivot : null;
  return {
    name: "group",
    input: ShuffleRef,
    output: CandidatePair,
    async *run(records, ctx) {
      // lists of filters that may await are built with the task's context (their item caches)
      const tiers = configured ?? specs.map((t) => opts.tierFilters!(t, ctx));
      const cap = opts.maxPairsPerImage ?? MAX_PAIRS_PER_IMAGE;
      const web = textPivot ? NO_WEB_SOURCES : (opts.webSources ?? NO_WEB_SOURCES);
      // Images whose filters await are judged IMAGE_WINDOW (image, tier) at a time (pixel reads and model
      // calls overlap); with synchronous filters each image is done when its call returns. Pairs come out in
      // image order, each image's by tier, either way, and counts and samples do not depend on the order
      // verdicts settle in. Pairs are made when they leave (streamed per image), so memory holds uses,
      // never all pairs; and images come one at a time from `groups`, which holds no more than it must.
      const window: Pending[] = [];
      const pairings = tiers.map((f) => ({ tier: f.tier.name, cap, counters: ctx.counters, textPivot }));
      for await (const refs of (opts.groups ?? groupsInMemory)(records)) {
        // the thesis' set-size bound is about one image's captions, not a text pivot's caption groups
        const setSize = webSetSize(refs, web, ctx);
        for (const [t, filters] of tiers.entries()) {
          if (refs[0]!.kind !== filters.tier.input) continue;
          window.push({ image: refs[0]!.image, uses: pairedUses(filters, refs, ctx), setSize, pairing: pairings[t]! });
          if (window.length >= IMAGE_WINDOW) yield* drain(window.splice(0));
        }
      }
      yield* drain(window);
    },
  };
}

/** The key references are grouped by: one image of one input kind. */
export function groupKeyOf(r: ShuffleRef): string {
  return `${r.kind}\u0000${r.image}`;
}

/** Every record held, then the images in key order (the stage's default `groups`). */
async function* groupsInMemory(records: AsyncIterable<ShuffleRef>): AsyncGenerator<ShuffleRef[]> {
  const byImage = new Map<string, ShuffleRef[]>();
  for await (const r of records) {
    const key = groupKeyOf(r);
    const list = byImage.get(key);
    if (list) list.push(r);
    else byImage.set(key, [r]);
  }
  for (const key of [...byImage.keys()].sort(cmp)) yield byImage.get(key)!;
}

/** (image, tier)s whose filters are awaited together */
const IMAGE_WINDOW = 64;

interface Pending {
  image: string;
  /** the uses whose captions pair (null: the image was dropped) */
  uses: Promise<UseState[] | null>;
  setSize: number | undefined;
  pairing: Pairing;
}

interface Pairing {
  tier: string;
  cap: number;
  counters: Counters;
  textPivot: TextPivot | null;
}

async function* drain(window: readonly Pending[]): AsyncGenerator<CandidatePair> {
  // every image of the window is awaited before the first pair leaves, so a failure anywhere stops the task
  const all = await Promise.all(window.map((w) => w.uses));
  for (const [i, uses] of all.entries()) {
    if (uses === null) continue;
    const { image, setSize, pairing } = window[i]!;
    const pairs = pairing.textPivot
      ? textPivotPairs(pairing.textPivot, pairing.tier, image, uses, pairing.counters)
      : pairsOf(pairing.tier, image, uses, pairing.cap, pairing.counters);
    if (setSize === undefined) yield* pairs;
    else for (const pair of pairs) yield { ...pair, setSize };
  }
}

/**
 * The candidate pairs of one image's surviving uses, one at a time, per caption type in (i, j) order;
 * over `cap` pairs of a type, the sample described at MAX_PAIRS_PER_IMAGE.
 */
export function* pairsOf(tier: string, image: string, uses: readonly UseState[], cap: number, counters: Counters): Generator<CandidatePair> {
  for (const type of CAPTION_TYPES) {
    const withType = uses.filter((u) => u[type] !== null);
    const n = withType.length;
    const total = (n * (n - 1)) / 2;
    if (total <= cap) {
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) yield makePair(tier, image, type, withType[i]!, withType[j]!);
      continue;
    }
    const dropped = total - cap;
    counters.inc(groupCappedPairsCounter(tier), dropped);
    // candidate pairs counts every pair the image had, made or not (the funnel's first pair row drops the rest)
    counters.inc(groupPairsCounter(tier), dropped);
    counters.samples.add(groupCappedPairsCounter(tier), `${image} (${type}): ${n} uses, ${total} pairs, ${cap} kept`);
    for (const code of sampledPairs(withType, type, cap)) yield makePair(tier, image, type, withType[Math.floor(code / n)]!, withType[code % n]!);
  }
}

/**
 * The candidate pairs of one text-pivot group (`key`: a caption group, its uses from many images):
 * different captions of different images, as far as the pivot accepts them. A group with more uses
 * of a type than the pivot's bucket cap (at most 200, so under MAX_PAIRS_PER_IMAGE) is not paired
 * and is counted with a sample; every pair not made is counted by reason.
 */
export function* textPivotPairs(pivot: TextPivot, tier: string, key: string, uses: readonly UseState[], counters: Counters): Generator<CandidatePair> {
  const count = (what: string, n = 1) => counters.inc(pivotCounter(pivot.id, `${tier}.${what}`), n);
  for (const type of CAPTION_TYPES) {
    const withType = uses.filter((u) => u[type] !== null);
    const n = withType.length;
    if (n < 2) continue;
    if (n > pivot.bucketCap) {
      count("groups_capped");
      count("pairs_capped", (n * (n - 1)) / 2);
      counters.samples.add(pivotCounter(pivot.id, `${tier}.groups_capped`), `${key} (${type}): ${n} uses`);
      continue;
    }
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const x = withType[i]!, y = withType[j]!;
        const tx = x[type]!.text, ty = y[type]!.text;
        if (x.ref.origin === y.ref.origin) { count("pair.same_image"); continue; }
        if (tx === ty) { count("pair.same_text"); continue; }
        const verdict = tx < ty ? pivot.pair(tx, ty, key) : pivot.pair(ty, tx, key);
        if ("drop" in verdict) { count(`pair.${verdict.drop}`); continue; }
        count("pairs");
        yield makePair(tier, key, type, x, y, { name: pivot.id, ...verdict });
      }
    }
  }
}

/**
 * The `cap` pairs (i < j, coded i·n + j, ascending) with the smallest hash of their two sides: a
 * bounded max-heap over all n(n−1)/2 pairs, so memory is O(cap) and the choice does not depend on
 * the order of the uses (each side's hash is of its text, page and revision; the pair's mixes the two
 * symmetrically).
 */
function sampledPairs(uses: readonly UseState[], type: CaptionType, cap: number): number[] {
  const n = uses.length;
  const h = uses.map((u) => fnv1a32(`${u[type]!.text}\u0000${u.ref.page}\u0000${u.ref.revisionId}\u0000${u.ref.ordinal}`));
  const keys = new Float64Array(cap);
  const codes = new Float64Array(cap);
  let size = 0;
  // max-heap on (key, code): the root is the pair to evict first
  const above = (a: number, b: number) => keys[a]! > keys[b]! || (keys[a] === keys[b] && codes[a]! > codes[b]!);
  const swap = (a: number, b: number) => {
    const k = keys[a]!;
    keys[a] = keys[b]!;
    keys[b] = k;
    const c = codes[a]!;
    codes[a] = codes[b]!;
    codes[b] = c;
  };
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const a = h[i]!;
      const b = h[j]!;
      const key = mix32(Math.min(a, b), Math.max(a, b));
      const code = i * n + j;
      if (size < cap) {
        keys[size] = key;
        codes[size] = code;
        for (let c = size++; c > 0; ) {
          const p = (c - 1) >> 1;
          if (!above(c, p)) break;
          swap(c, p);
          c = p;
        }
        continue;
      }
      if (key > keys[0]! || (key === keys[0] && code > codes[0]!)) continue;
      keys[0] = key;
      codes[0] = code;
      for (let c = 0; ; ) {
        const l = 2 * c + 1;
        const r = l + 1;
        let top = c;
        if (l < size && above(l, top)) top = l;
        if (r < size && above(r, top)) top = r;
        if (top === c) break;
        swap(c, top);
        c = top;
      }
    }
  }
  return Array.from(codes.subarray(0, size)).sort((x, y) => x - y);
}

/** A 32-bit mix of two 32-bit values (murmur3's finaliser over a combination of both). */
function mix32(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ b;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The set size (distinct uses) of an image that comes from the web only (undefined otherwise), and its
 * moments as counters (`group.web.*`, merged over partitions): the dedup phase bounds set sizes by them.
 */
function webSetSize(refs: readonly ShuffleRef[], web: ReadonlySet<string>, ctx: StageContext): number | undefined {
  if (web.size === 0 || !refs.every((r) => web.has(r.source))) return undefined;
  const size = mergeIdenticalUses(refs).length;
  ctx.counters.inc(WEB_SET_COUNTERS.images);
  if (size >= 2) {
    ctx.counters.inc(WEB_SET_COUNTERS.sets);
    ctx.counters.inc(WEB_SET_COUNTERS.sum, size);
    ctx.counters.inc(WEB_SET_COUNTERS.sumSq, size * size);
  }
  return size;
}

/**
 * Filters one image's references for one tier (its filter lists) and returns its candidate pairs
 * (all of them: for tests and small images; the stage streams them with pairsOf).
 */
export async function imagePairs(filters: TierFilters, refs: ShuffleRef[], ctx: StageContext, cap = MAX_PAIRS_PER_IMAGE): Promise<CandidatePair[]> {
  const uses = await pairedUses(filters, refs, ctx);
  return uses === null ? [] : [...pairsOf(filters.tier.name, refs[0]!.image, uses, cap, ctx.counters)];
}

/**
 * Filters one image's references for one tier (its filter lists): the uses whose captions pair, or
 * null when the image is dropped. A filter's verdict is awaited only when it is a promise (an async
 * filter), one record at a time in the same order as a synchronous one: counters and samples do not
 * depend on which filters await.
 */
async function pairedUses(filters: TierFilters, refs: ShuffleRef[], ctx: StageContext): Promise<UseState[] | null> {
  const c = ctx.counters;
  const tier = filters.tier;
  const image = refs[0]!.image;
  const sorted = mergeIdenticalUses(refs).sort(compareUses);
  let uses: UseState[] = sorted.map(useState);
  const references = sorted.reduce((n, r) => n + r.uses, 0);
  const group: ImageGroup = { image, references, uses: uses.length, captionedUses: uses.length };

  countImageRow(c, tier.name, "all", uses);
  for (const f of filters.image) {
    // Beside the distinct-uses bound, count what the paper's rule (every revision a reference) would drop here.
    if (f.id === MAX_USES_ID && references > tier.maxRefs) {
      c.inc(paperRuleDroppedCounter(tier.name, f.id, "references"), references);
      c.inc(paperRuleDroppedCounter(tier.name, f.id, "images"));
    }
    let kept = applyFilter(f, group, c, tier.name, references);
    if (typeof kept !== "boolean") kept = await kept;
    if (!kept) return null;
    countImageRow(c, tier.name, f.id, uses);
  }

  for (const f of filters.reference) {
    const left: UseState[] = [];
    for (const u of uses) {
      let kept = applyFilter(f, u.ref, c, tier.name, u.ref.uses);
      if (typeof kept !== "boolean") kept = await kept;
      if (kept) left.push(u);
    }
    uses = left;
    countImageRow(c, tier.name, f.id, uses);
  }

  for (const f of filters.caption) {
    for (const u of uses) {
      for (const type of CAPTION_TYPES) {
        const features = u[type];
        if (!features) continue;
        let kept = applyFilter(f, features, c, tier.name, u.ref.uses);
        if (typeof kept !== "boolean") kept = await kept;
        if (!kept) u[type] = null;
      }
    }
    uses = uses.filter(isCaptioned);
    countImageRow(c, tier.name, f.id, uses);
  }

  const captioned = uses.reduce((n, u) => n + u.ref.uses, 0);
  const last = filters.captioned;
  let kept = applyFilter(last, { image, references: captioned, uses: uses.length, captionedUses: uses.length }, c, tier.name, captioned);
  if (typeof kept !== "boolean") kept = await kept;
  if (!kept) return null;
  countImageRow(c, tier.name, last.id, uses);
  return uses;
}

function side(u: UseState, type: CaptionType): PairSide {
  const s: PairSide = { text: u[type]!.text, page: u.ref.page, pageId: u.ref.pageId, revisionId: u.ref.revisionId, ordinal: u.ref.ordinal, uses: u.ref.uses };
  if (u.ref.origin !== undefined) s.image = u.ref.origin;
  return s;
}

/**
 * Merges records of the same use (same page, source, caption and alt) into one, summing `uses` and
 * keeping the earliest (revision, ordinal). The extract stage already collapses a page's identical uses
 * within one shard; this makes the result independent of how a page's revisions were split into
 * shards or flushed early, so identical uses are always paired once but counted `uses` times.
 */
export function mergeIdenticalUses(refs: readonly ShuffleRef[]): ShuffleRef[] {
  const byUse = new Map<string, ShuffleRef>();
  for (const r of refs) {
    const key = `${r.pageId}\u0000${r.page}\u0000${useKeyOf("", r.source, r)}`;
    const seen = byUse.get(key);
    if (!seen) {
      byUse.set(key, { ...r });
      continue;
    }
    const byRevision = cmpId(r.revisionId, seen.revisionId);
    const earlier = byRevision < 0 || (byRevision === 0 && r.ordinal < seen.ordinal);
    byUse.set(key, { ...(earlier ? r : seen), uses: seen.uses + r.uses });
  }
  return [...byUse.values()];
}

/** Sides in canonical order (text by code point, then page, then revision) so a pair has one form. */
export function makePair(tier: string, image: string, type: CaptionType, x: UseState, y: UseState, pivot?: PivotMatch): CandidatePair {
  let a = side(x, type);
  let b = side(y, type);
  if (compareSides(a, b) > 0) [a, b] = [b, a];
  if (pivot === undefined) {
    const id = stableId(image, type, a.text, b.text, a.page, String(a.revisionId), b.page, String(b.revisionId));
    return { id, tier, image, type, a, b };
  }
  const id = stableId(image, type, a.text, b.text, a.page, String(a.revisionId), b.page, String(b.revisionId), a.image ?? "", b.image ?? "");
  return { id, tier, image, type, a, b, pivot };
}

function compareSides(a: PairSide, b: PairSide): number {
  return cmp(a.text, b.text) || cmp(a.page, b.page) || cmpId(a.revisionId, b.revisionId) || cmp(a.image ?? "", b.image ?? "");
}

function compareUses(x: ShuffleRef, y: ShuffleRef): number {
  return cmp(x.page, y.page) || cmpId(x.pageId, y.pageId) || cmpId(x.revisionId, y.revisionId) || x.ordinal - y.ordinal
    || cmp(x.caption?.text ?? "", y.caption?.text ?? "") || cmp(x.alt?.text ?? "", y.alt?.text ?? "")
    || cmp(x.title?.text ?? "", y.title?.text ?? "") || cmp(x.nearby?.text ?? "", y.nearby?.text ?? "") || cmp(x.origin ?? "", y.origin ?? "");
}

export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
