/**
 * Pivots decide what makes two references "the same image": the key references are grouped by.
 * Wikipedia's is resource identity (one Commons file = one normalised `File:` key); `url` is the
 * web's; the pixel pivots are decided by the pixel pipeline's phases; the text pivots group captions
 * across images, by Déjà canonical form or by min-hash bands. The contract is in
 * pivot-contract.ts; the names the config accepts in core/plugin-names.ts.
 */
import type { ParacapConfig } from "../core/config.ts";
import type { PivotName, TextPivotName } from "../core/plugin-names.ts";
import { imageKey } from "../web/html/image-url.ts";
import { createCanonicalizer, canonicalKey } from "../deja/canonical-form.ts";
import { createCaptionLsh } from "../minhash/caption-lsh.ts";
import type { ImagePivot, Pivot, TextPivot } from "./pivot-contract.ts";

/** The settings a pivot may read (absent: each pivot's defaults). */
export type PivotSettings = ParacapConfig["pivots"];

/**
 * A pixel pivot cannot be decided from the reference: at extraction it keeps the source's key (the
 * key that names the image's bytes in the run), and the pixel pipeline's phases (tasks/pixel-pipeline.ts)
 * decode the bytes and re-key the references by pixel identity.
 */
const sourceKey = (id: string) => (): ImagePivot => ({ id, key: (ref) => ref.image });

const PIVOTS = {
  /** Same resource: the normalised file name (File:/Image:/aliases, case of first letter, underscores). */
  resource: (): ImagePivot => ({ id: "resource", key: (ref) => ref.image }),
  /**
   * Same normalised URL, by the web's rule (web/html/image-url.ts: WHATWG form, no fragment, no CDN
   * resize parameters, a Wikimedia upload as its `File:` key); keys that are not http(s) URLs stay.
   */
  url: (): ImagePivot => ({
    id: "url",
    key: (ref) => {
      if (!/^https?:\/\//i.test(ref.image)) return ref.image;
      const u = imageKey(ref.image, ref.image);
      return "key" in u ? u.key : ref.image;
    },
  }),
  md5: sourceKey("md5"),
  ahash: sourceKey("ahash"),
  dhash: sourceKey("dhash"),
  phash: sourceKey("phash"),
  rahash: sourceKey("rahash"),
  rphash: sourceKey("rphash"),
  /** Déjà: captions with one canonical form (lemmas, prepositions → IN, no function words) are one group. */
  canonical: (s?: PivotSettings): TextPivot => {
    const canonicalizer = createCanonicalizer();
    return {
      id: "canonical",
      kind: "text",
      bucketCap: s?.bucketCap ?? 100,
      keys: (text) => {
        const key = canonicalKey(canonicalizer, text);
        return key === null ? [] : [key];
      },
      // one key per caption, so a pair meets once; every pair of different originals is a candidate
      pair: () => ({}),
    };
  },
  /** Chung & Knight: captions whose min-hash bands agree, kept at word-set Jaccard ≥ t (see minhash/caption-lsh.ts). */
  minhash: (s?: PivotSettings): TextPivot => {
    const lsh = createCaptionLsh(s?.minhash ?? {});
    return { id: "minhash", kind: "text", bucketCap: s?.bucketCap ?? 100, keys: (text) => lsh.keys(text), pair: (a, b, key) => lsh.pair(a, b, key) };
  },
} satisfies Record<PivotName, (settings?: PivotSettings) => Pivot>;

/** A pivot by name (only the text pivots read settings). */
export function createPivot(name: Exclude<PivotName, TextPivotName>): ImagePivot;
export function createPivot(name: PivotName, settings?: PivotSettings): Pivot;
export function createPivot(name: PivotName, settings?: PivotSettings): Pivot {
  return PIVOTS[name](settings);
}
