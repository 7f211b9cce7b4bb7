/**
 * Pivots decide what makes two references "the same image": the key references are grouped by.
 * Wikipedia's is resource identity (one Commons file = one normalised `File:` key). The contract is
 * in pivot-contract.ts; the names the config accepts in core/plugin-names.ts.
 */
import type { PivotName } from "../core/plugin-names.ts";
import type { ImagePivot } from "./pivot-contract.ts";
import { imageKey } from "../web/html/image-url.ts";

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
} satisfies Record<PivotName, () => ImagePivot>;

export function createPivot(name: PivotName): ImagePivot {
  return PIVOTS[name]();
}
