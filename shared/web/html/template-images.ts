/**
 * Images of a page's template rather than of its content: a picture shown more than once on one
 * page (an author's avatar beside every post of a blog's front page, a lazy-load placeholder
 * standing for every product), and one whose declared size is outside the thesis' image bounds
 * (under 3,000 pixels, as a 49×49 avatar or a 16×16 icon; longer than 3× its width, as a banner).
 * The text around such an image is its context's, not a description of it: on a crawl's front
 * page one avatar's eight "captions" were eight post bylines, and every pair the crawl gave was one.
 * Not in the thesis, which judges size only from pixels (thesis 4.3.2, when the images are fetched).
 */
import { THESIS_IMAGE_BOUNDS } from "../../pixels/image-filters.ts";

/** `width`/`height` as a browser reads a plain dimension ("49", "49px"); null for anything else (percentages, empty, "auto"). */
function dimension(value: string | undefined): number | null {
  const m = /^\s*(\d{1,6})(?:\.\d+)?\s*(?:px)?\s*$/i.exec(value ?? "");
  return m ? Number(m[1]) : null;
}

/** Why an image with these declared dimensions is a template's, or null when it may be content (or they say nothing). */
export function declaredSizeDrop(width: string | undefined, height: string | undefined): "declared_too_small" | "declared_too_elongated" | null {
  const w = dimension(width);
  const h = dimension(height);
  if (w === null || h === null || w === 0 || h === 0) return null;
  if (w * h < THESIS_IMAGE_BOUNDS.minPixels) return "declared_too_small";
  if (Math.max(w, h) / Math.min(w, h) > THESIS_IMAGE_BOUNDS.maxAspect) return "declared_too_elongated";
  return null;
}

/** The uses of images shown once on the page, and the number of uses dropped as repeated. */
export function withoutRepeated<T extends { key: string }>(uses: readonly T[]): { kept: T[]; repeated: number } {
  const count = new Map<string, number>();
  for (const u of uses) count.set(u.key, (count.get(u.key) ?? 0) + 1);
  const kept = uses.filter((u) => count.get(u.key) === 1);
  return { kept, repeated: uses.length - kept.length };
}

/** Whether a run drops template images: `extraction.templateImages` when set, else every preset but the paper's. */
export function dropsTemplateImages(config: { preset: string; extraction: { templateImages?: boolean | undefined } }): boolean {
  return config.extraction.templateImages ?? config.preset !== "paper";
}
