/** Records of a run's fate beside its manifest in the work area, read by `paracap cloud status`. */
import { z } from "zod";

/** Where the plan function records an upload it did not start a run for (under that upload's run id). */
export const PLAN_OUTCOME = "plan.json";
export const PlanOutcome = z.object({
  status: z.enum(["ignored", "failed", "duplicate"]),
  reason: z.string(),
  /** for a duplicate: the run that already reads the same bytes */
  of: z.string().optional(),
});
export type PlanOutcome = z.infer<typeof PlanOutcome>;

/** Written when no page could be read from any shard: the run ends there, as the local runner refuses. */
export const RUN_FAILED = "_FAILED.json";
