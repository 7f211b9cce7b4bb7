/**
 * Group stage (reduce side of the image shuffle): all references of one partition's images →
 * image filters → caption filters → images with ≥ 2 captioned uses → candidate pairs.
 * Runs every tier over the same grouped references in one pass.
 */
import type { ParacapConfig } from "../core/config.ts";
import { paperRuleDroppedCounter, WEB_SET_COUNTERS } from "../core/counter-names.ts";
import { applyFilter } from "../core/filter.ts";
import { stableId } from "../core/hash.ts";
import { CandidatePair, cmpId, ShuffleRef, type CaptionType, type PairSide } from "../core/records.ts";
import type { Stage, StageContext } from "../core/stage.ts";
import { MAX_USES_ID, tierFilters, type ImageGroup, type TierFilters } from "./filters.ts";
import { CAPTION_TYPES, countImageRow, type UseState } from "./funnel.ts";
import { tierSpecs, type TierSpec } from "./tiers.ts";

export interface GroupOptions {
  /** a tier's filter lists, built once per run of the stage (default: the config's, `tierFilters`); any filter may await */
  tierFilters?: (tier: TierSpec, ctx: StageContext) => TierFilters;
}

export function groupStage(config: ParacapConfig, opts: GroupOptions = {}): Stage<ShuffleRef, CandidatePair> {
  const specs = tierSpecs(config);
  // built once per stage: every image of every partition goes through the same lists
  const configured = opts.tierFilters ? null : specs.map((t) => tierFilters(config, t));
  return {
    name: "group",
    input: ShuffleRef,
    output: CandidatePair,
    async *run(records, ctx) {
      // lists of filters that may await are built with the task's context (their item caches)
      const tiers = configured ?? specs.map((t) => opts.tierFilters!(t, ctx));
      const byImage = new Map<string, ShuffleRef[]>();
      for await (const r of records) {
        const key = `${r.kind}\u0000${r.image}`;
        const list = byImage.get(key);
        if (list) list.push(r);
        else byImage.set(key, [r]);
      }
      const keys = [...byImage.keys()].sort();
      const setSizes = countWebSets(byImage, ctx);
      for (const filters of tiers) {
        // Images whose filters await are judged IMAGE_WINDOW at a time (pixel reads and model calls
        // overlap); with synchronous filters each image is done when its call returns. Pairs come out
        // in image order either way, and counts and samples do not depend on the order verdicts settle in.
        const window: { pairs: Promise<CandidatePair[]>; setSize: number | undefined }[] = [];
        for (const key of keys) {
          const refs = byImage.get(key)!;
          if (refs[0]!.kind !== filters.tier.input) continue;
          window.push({ pairs: imagePairs(filters, refs, ctx), setSize: setSizes.get(key) });
          if (window.length >= IMAGE_WINDOW) yield* drain(window.splice(0));
        }
        yield* drain(window);
      }
    },
  };
}

/** images of one tier whose filters are awaited together */
const IMAGE_WINDOW = 64;

async function* drain(window: readonly { pairs: Promise<CandidatePair[]>; setSize: number | undefined }[]): AsyncGenerator<CandidatePair> {
  // every image of the window is awaited before the first pair leaves, so a failure anywhere stops the task
  const all = await Promise.all(window.map((w) => w.pairs));
  for (const [i, pairs] of all.entries()) {
    const setSize = window[i]!.setSize;
    if (setSize === undefined) yield* pairs;
    else for (const pair of pairs) yield { ...pair, setSize };
  }
}

/**
 * Set sizes (distinct uses) of the images that come from caption lists, and their moments as
 * counters (`group.web.*`, merged over partitions): the dedup phase bounds set sizes by them.
 */
function countWebSets(byImage: Map<string, ShuffleRef[]>, ctx: StageContext): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const [key, refs] of byImage) {
    if (refs[0]!.source !== "row") continue;
    const size = mergeIdenticalUses(refs).length;
    sizes.set(key, size);
    ctx.counters.inc(WEB_SET_COUNTERS.images);
    if (size < 2) continue;
    ctx.counters.inc(WEB_SET_COUNTERS.sets);
    ctx.counters.inc(WEB_SET_COUNTERS.sum, size);
    ctx.counters.inc(WEB_SET_COUNTERS.sumSq, size * size);
  }
  return sizes;
}

/**
 * Filters one image's references for one tier (its filter lists) and returns its candidate pairs.
 * A filter's verdict is awaited only when it is a promise (an async filter), one record at a time in
 * the same order as a synchronous one: counters and samples do not depend on which filters await.
 */
export async function imagePairs(filters: TierFilters, refs: ShuffleRef[], ctx: StageContext): Promise<CandidatePair[]> {
  const c = ctx.counters;
  const tier = filters.tier;
  const image = refs[0]!.image;
  const sorted = mergeIdenticalUses(refs).sort(compareUses);
  let uses: UseState[] = sorted.map((ref) => ({ ref, caption: ref.caption, alt: ref.alt }));
  const references = sorted.reduce((n, r) => n + r.uses, 0);
  const group: ImageGroup = { image, references, uses: uses.length, captionedUses: uses.length };
  const pairs: CandidatePair[] = [];

  countImageRow(c, tier.name, "all", uses);
  for (const f of filters.image) {
    // Beside the distinct-uses bound, count what the paper's rule (every revision a reference) would drop here.
    if (f.id === MAX_USES_ID && references > tier.maxRefs) {
      c.inc(paperRuleDroppedCounter(tier.name, f.id, "references"), references);
      c.inc(paperRuleDroppedCounter(tier.name, f.id, "images"));
    }
    let kept = applyFilter(f, group, c, tier.name, references);
    if (typeof kept !== "boolean") kept = await kept;
    if (!kept) return pairs;
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
    uses = uses.filter((u) => u.caption !== null || u.alt !== null);
    countImageRow(c, tier.name, f.id, uses);
  }

  const captioned = uses.reduce((n, u) => n + u.ref.uses, 0);
  const last = filters.captioned;
  let kept = applyFilter(last, { image, references: captioned, uses: uses.length, captionedUses: uses.length }, c, tier.name, captioned);
  if (typeof kept !== "boolean") kept = await kept;
  if (!kept) return pairs;
  countImageRow(c, tier.name, last.id, uses);

  for (const type of CAPTION_TYPES) {
    const withType = uses.filter((u) => u[type] !== null);
    for (let i = 0; i < withType.length; i++) {
      for (let j = i + 1; j < withType.length; j++) {
        pairs.push(makePair(tier.name, image, type, withType[i]!, withType[j]!));
      }
    }
  }
  return pairs;
}

function side(u: UseState, type: CaptionType): PairSide {
  return { text: u[type]!.text, page: u.ref.page, pageId: u.ref.pageId, revisionId: u.ref.revisionId, ordinal: u.ref.ordinal, uses: u.ref.uses };
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
    const key = `${r.pageId}\u0000${r.page}\u0000${r.source}\u0000${r.caption?.text ?? "\u0001"}\u0000${r.alt?.text ?? "\u0001"}`;
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
export function makePair(tier: string, image: string, type: CaptionType, x: UseState, y: UseState): CandidatePair {
  let a = side(x, type);
  let b = side(y, type);
  if (compareSides(a, b) > 0) [a, b] = [b, a];
  const id = stableId(image, type, a.text, b.text, a.page, String(a.revisionId), b.page, String(b.revisionId));
  return { id, tier, image, type, a, b };
}

function compareSides(a: PairSide, b: PairSide): number {
  return cmp(a.text, b.text) || cmp(a.page, b.page) || cmpId(a.revisionId, b.revisionId);
}

function compareUses(x: ShuffleRef, y: ShuffleRef): number {
  return cmp(x.page, y.page) || cmpId(x.pageId, y.pageId) || cmpId(x.revisionId, y.revisionId) || x.ordinal - y.ordinal
    || cmp(x.caption?.text ?? "", y.caption?.text ?? "") || cmp(x.alt?.text ?? "", y.alt?.text ?? "");
}

export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
