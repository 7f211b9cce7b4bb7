/**
 * Pivots decide what makes two references "the same image": the key references are grouped by.
 * Wikipedia's is resource identity (one Commons file = one normalised `File:` key). The contract is
 * in pivot-contract.ts; the names the config accepts in core/plugin-names.ts.
 */
import type { PivotName } from "../core/plugin-names.ts";
import type { ImagePivot } from "./pivot-contract.ts";

const PIVOTS = {
  /** Same resource: the normalised file name (File:/Image:/aliases, case of first letter, underscores). */
  resource: (): ImagePivot => ({ id: "resource", key: (ref) => ref.image }),
} satisfies Record<PivotName, () => ImagePivot>;

export function createPivot(name: PivotName): ImagePivot {
  return PIVOTS[name]();
}
