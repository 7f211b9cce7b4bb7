/**
 * infra/ is loaded by Pulumi on its own: it may import from the repo only the plain modules that
 * describe the pipeline and validate settings (zod and data), never stage or runner code.
 */
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;

/** Every repo file reachable from `entry` through relative imports. */
function reachable(entry: string, seen = new Set<string>()): Set<string> {
  if (seen.has(entry)) return seen;
  seen.add(entry);
  const text = readFileSync(entry, "utf8");
  for (const m of text.matchAll(/(?:import|export)[^;]*?from\s+"(\.[^"]+)"/g)) reachable(resolve(dirname(entry), m[1]!), seen);
  return seen;
}

describe("infra's imports", () => {
  it("reach outside infra/ only the phase table, the environment layer and the config pieces", () => {
    const files = new Set<string>();
    for (const f of readdirSync(join(ROOT, "infra"), { recursive: true, encoding: "utf8" })) if (f.endsWith(".ts")) for (const r of reachable(join(ROOT, "infra", f))) files.add(relative(ROOT, r));
    const outside = [...files].filter((f) => !f.startsWith("infra/")).sort();
    expect(outside).toEqual(["shared/core/config-pieces.ts", "shared/core/env-layer.ts", "shared/core/phase-names.ts"]);
  });
});
