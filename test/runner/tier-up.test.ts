/**
 * The tier-up budget (shared/runner/tier-up.ts): set at run time it changes when V8 marks a function
 * for TurboFan (seen in --trace-opt's "marking" lines, which follow from bytecode counted, not from
 * time), and a budget given to node is left alone.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { budgetGiven } from "../../shared/runner/tier-up.ts";
import { REPO } from "./helpers.ts";

const module = pathToFileURL(join(REPO, "dist/node/shared/runner/tier-up.js")).href;

/** Whether `hot`, called 10 times over 1,000 loop turns, was marked for optimization in a fresh node. */
function markedHot(nodeArgs: string[], raise: boolean): { marked: boolean; raised: string } {
  // 10 calls: V8's default budget marks it after 3–5, paracap's after 20–40
  const script = `import { raiseTierUpBudget } from ${JSON.stringify(module)};
const raised = ${raise} ? raiseTierUpBudget() : "unasked";
function hot(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
let t = 0;
for (let k = 0; k < 10; k++) t += hot(1000);
console.log("raised=" + raised + " sum=" + t);`;
  const r = spawnSync(process.execPath, [...nodeArgs, "--trace-opt", "--input-type=module", "-e", script], { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } });
  expect(r.status, r.stderr).toBe(0);
  return { marked: /marking \S+ <JSFunction hot /.test(r.stdout), raised: /raised=(\S+)/.exec(r.stdout)![1]! };
}

describe("raiseTierUpBudget", () => {
  it("has V8 compile a hot function later than by default", () => {
    expect(markedHot([], false)).toEqual({ marked: true, raised: "unasked" });
    expect(markedHot([], true)).toEqual({ marked: false, raised: "true" });
  });

  it("leaves a budget given on node's command line alone", () => {
    expect(markedHot(["--interrupt-budget=67584"], true)).toEqual({ marked: true, raised: "false" });
  });

  it("tells the budget flag from V8's other interrupt-budget flags", () => {
    expect(budgetGiven(["--interrupt-budget=5000"])).toBe(true);
    expect(budgetGiven(["--max-old-space-size=100 --interrupt_budget=5000"])).toBe(true);
    expect(budgetGiven(["--interrupt-budget-for-feedback-allocation=940", "--interrupt-budget-factor-for-feedback-allocation=8"])).toBe(false);
    expect(budgetGiven([])).toBe(false);
  });
});
