/**
 * The run's equivalence-set size bound (thesis §5.1.2) as a phase summary: written by the group phase
 * once its last task is done, read by the dedup tasks (one object, not one marker per partition).
 */
import { z } from "zod";
import type { SummarySpec } from "./datasets.ts";

const Bound = z.object({ max: z.union([z.number(), z.literal("Infinity"), z.null()]) });

export const SET_SIZE_BOUND: SummarySpec<z.infer<typeof Bound>> = { name: "set-size-bound", schema: Bound };

/** The bound as a number: null when no image came from a caption list (or none was written). */
export function setSizeMax(summary: z.infer<typeof Bound> | null): number | null {
  if (summary === null) return null;
  return summary.max === "Infinity" ? Infinity : summary.max;
}
