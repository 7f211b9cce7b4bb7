/**
 * Déjà's caption–image graph: captions grouped by canonical form, kept when the form was used for
 * distinctly different images by more than one user (here: on more than one page, or site for
 * caption lists), as a bipartite graph G = (T, V, E) of captions, images and typed edges
 * e(c, i, t), t ∈ {original, paraphrase}. A corpus-level step: the groups are held in memory
 * (one entry per distinct form, with its images, pages and original texts).
 */
import { z } from "zod";
import { stableId } from "../core/hash.ts";
import type { Canonicalizer } from "./canonical-form.ts";

export const CaptionUse = z.strictObject({ caption: z.string(), image: z.string(), page: z.string() });
export type CaptionUse = z.infer<typeof CaptionUse>;

export const DejaOptions = z.strictObject({
  /** distinct images a form must be used for */
  minImages: z.int().min(1).default(2),
  /** distinct pages (users, sites) a form must be used on */
  minPages: z.int().min(1).default(2),
});
export type DejaOptions = z.infer<typeof DejaOptions>;

export interface DejaGroup {
  readonly form: string;
  readonly tokens: number;
  readonly images: Set<string>;
  readonly pages: Set<string>;
  /** original caption text → (image → uses) */
  readonly originals: Map<string, Map<string, number>>;
}

/** What grouping read and dropped (counted, never silent). */
export interface DejaCounts {
  uses: number;
  /** uses dropped by reason: no_verb_prep_adj, empty_form */
  dropped: Record<string, number>;
  forms: number;
}

/** Groups caption uses by canonical form; `retained` applies the Déjà repetition rule. */
export class DejaGrouper {
  private readonly groups = new Map<string, DejaGroup>();
  // one analysis per distinct original text
  private readonly formOf = new Map<string, { form: string; tokens: number } | { drop: string }>();
  readonly counts: DejaCounts = { uses: 0, dropped: {}, forms: 0 };

  constructor(private readonly canonicalizer: Canonicalizer) {}

  add(use: CaptionUse): void {
    this.counts.uses++;
    let r = this.formOf.get(use.caption);
    if (!r) {
      const c = this.canonicalizer.canonical(use.caption);
      r = "drop" in c ? { drop: c.drop } : { form: c.form, tokens: c.tokens };
      this.formOf.set(use.caption, r);
    }
    if ("drop" in r) {
      this.counts.dropped[r.drop] = (this.counts.dropped[r.drop] ?? 0) + 1;
      return;
    }
    let g = this.groups.get(r.form);
    if (!g) {
      g = { form: r.form, tokens: r.tokens, images: new Set(), pages: new Set(), originals: new Map() };
      this.groups.set(r.form, g);
      this.counts.forms++;
    }
    g.images.add(use.image);
    g.pages.add(use.page);
    let byImage = g.originals.get(use.caption);
    if (!byImage) g.originals.set(use.caption, (byImage = new Map()));
    byImage.set(use.image, (byImage.get(use.image) ?? 0) + 1);
  }

  /** Groups used for ≥ minImages distinct images on ≥ minPages distinct pages, by form. */
  retained(options: Partial<DejaOptions> = {}): DejaGroup[] {
    const o = DejaOptions.parse(options);
    return [...this.groups.values()].filter((g) => g.images.size >= o.minImages && g.pages.size >= o.minPages).sort((a, b) => (a.form < b.form ? -1 : a.form > b.form ? 1 : 0));
  }
}

export const GraphLine = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("caption"), id: z.string(), form: z.string(), tokens: z.int(), originals: z.array(z.strictObject({ text: z.string(), uses: z.int() })) }),
  z.strictObject({ kind: z.literal("image"), id: z.string() }),
  z.strictObject({ kind: z.literal("edge"), caption: z.string(), image: z.string(), type: z.enum(["original", "paraphrase"]), text: z.string() }),
]);
export type GraphLine = z.infer<typeof GraphLine>;

/** The graph as lines: every caption node, then every image node once, then one original edge per (original text, image). */
export function* graphLines(groups: readonly DejaGroup[]): Generator<GraphLine> {
  const images = new Set<string>();
  for (const g of groups) {
    const originals = [...g.originals].map(([text, byImage]) => ({ text, uses: [...byImage.values()].reduce((a, b) => a + b, 0) }));
    yield { kind: "caption", id: captionId(g.form), form: g.form, tokens: g.tokens, originals };
    for (const i of g.images) images.add(i);
  }
  for (const id of [...images].sort()) yield { kind: "image", id };
  for (const g of groups) {
    const id = captionId(g.form);
    for (const [text, byImage] of g.originals) for (const image of byImage.keys()) yield { kind: "edge", caption: id, image, type: "original", text };
  }
}

export function captionId(form: string): string {
  return stableId("deja", form);
}

/**
 * Candidate paraphrase pairs of one group (the canonical-form pivot): distinct original texts used
 * for different images, each unordered pair once, in code-point order.
 */
export function groupCandidates(group: DejaGroup): [string, string][] {
  const texts = [...group.originals.keys()].sort();
  const out: [string, string][] = [];
  for (let x = 0; x < texts.length; x++) {
    for (let y = x + 1; y < texts.length; y++) {
      const ix = group.originals.get(texts[x]!)!, iy = group.originals.get(texts[y]!)!;
      // different images: some image of one is not an image of the other
      if ([...ix.keys()].some((i) => !iy.has(i)) || [...iy.keys()].some((i) => !ix.has(i))) out.push([texts[x]!, texts[y]!]);
    }
  }
  return out;
}

export interface Distribution {
  readonly mean: number;
  readonly std: number;
  readonly p25: number;
  readonly p50: number;
  readonly p75: number;
  readonly max: number;
}

/** Déjà's Tables 1–2: captions, images, and the distribution of images per caption and tokens per caption. */
export interface DejaStats {
  readonly captions: number;
  readonly images: number;
  readonly imagesPerCaption: Distribution | null;
  /** tokens of the canonical form */
  readonly formTokensPerCaption: Distribution | null;
}

export function dejaStats(groups: readonly DejaGroup[]): DejaStats {
  const images = new Set<string>();
  for (const g of groups) for (const i of g.images) images.add(i);
  return {
    captions: groups.length,
    images: images.size,
    imagesPerCaption: distribution(groups.map((g) => g.images.size)),
    formTokensPerCaption: distribution(groups.map((g) => g.tokens)),
  };
}

/** Mean, population standard deviation and nearest-rank percentiles (as pandas' describe would round them for integers). */
export function distribution(values: readonly number[]): Distribution | null {
  if (values.length === 0) return null;
  const v = [...values].sort((a, b) => a - b);
  const mean = v.reduce((a, b) => a + b, 0) / v.length;
  const std = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length);
  const rank = (q: number) => v[Math.min(v.length - 1, Math.max(0, Math.ceil(q * v.length) - 1))]!;
  return { mean, std, p25: rank(0.25), p50: rank(0.5), p75: rank(0.75), max: v[v.length - 1]! };
}

/**
 * Writes the graph as JSONL (graphLines, one object per line) and returns the statistics; lines go
 * out through `write` as produced, so the graph is never one string in memory.
 */
export function writeGraph(groups: readonly DejaGroup[], write: (chunk: string) => void): DejaStats {
  let batch: string[] = [];
  for (const line of graphLines(groups)) {
    batch.push(JSON.stringify(line));
    if (batch.length >= 1000) { write(batch.join("\n") + "\n"); batch = []; }
  }
  if (batch.length > 0) write(batch.join("\n") + "\n");
  return dejaStats(groups);
}
