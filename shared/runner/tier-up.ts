/**
 * How much a function runs in V8's interpreter and baseline code before TurboFan compiles it (the
 * "interrupt budget", in bytecode executed). At V8's default (~66k) paracap's hot path is compiled
 * after a few revisions, before it has met the rarer cases of real input (an unclosed tag, a page
 * change, the next shard); each then throws the optimized code away and the function is compiled
 * again, up to ~50 ms of a background core per big function, over and over: on 12 copies of a
 * 150 MB history, 365 compilations and 84 deoptimizations. With a budget 15 times larger, fewer
 * functions are compiled, later, with fuller type feedback (124 and 20), and a run's own CPU falls
 * (scripts/bench/tier-up.ts: the embedded sample 1.50 → 1.12 s, 4 copies 2.51 → 2.10 s, 12 copies
 * 5.19 → 4.32 s). Set at run time, which V8 honours for every budget it hands out afterwards;
 * process-wide (worker threads share it); a budget the user gave node wins.
 */
import { setFlagsFromString } from "node:v8";

export const INTERRUPT_BUDGET = 1_000_000;

/** Whether node's options (its command line, NODE_OPTIONS) already set the budget. */
export function budgetGiven(options: readonly string[] = [...process.execArgv, process.env.NODE_OPTIONS ?? ""]): boolean {
  return options.some((o) => /--interrupt[-_]budget(?![-_])/.test(o));
}

/** Raises the budget for this process unless the user set one; true when it did. */
export function raiseTierUpBudget(budget = INTERRUPT_BUDGET): boolean {
  if (budgetGiven()) return false;
  setFlagsFromString(`--interrupt-budget=${budget}`);
  return true;
}
