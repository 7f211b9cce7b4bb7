/**
 * The layering of shared/: every import runs from a higher layer to a lower one (or within one
 * layer), and no module imports itself back through others. A new module joins the layer of its
 * folder; a contract another layer implements (the scorer and pivot contracts) sits below it.
 */
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;
const SHARED = join(ROOT, "shared");

/** Layers from the ground floor up; a file takes the first rule its path (under shared/) matches. */
const LAYERS: readonly (readonly string[])[] = [
  ["core/"],
  ["io/", "metrics/", "dump/", "wikitext/", "caption/", "plugins/scorer-contract.ts", "plugins/pivot-contract.ts", "web/", "pixels/", "minhash/", "deja/"],
  ["semantic/"],
  ["plugins/"],
  ["sources/", "pipeline/"],
  ["compare/"],
  ["output/", "annotate/"],
  ["tasks/"],
  ["runner/", "cloud/"],
  ["cli/"],
];

function layerOf(file: string): number {
  const rel = relative(SHARED, file);
  let best = -1;
  let bestLength = -1;
  LAYERS.forEach((rules, layer) => {
    for (const r of rules) if (rel.startsWith(r) && r.length > bestLength) [best, bestLength] = [layer, r.length];
  });
  return best;
}

function sharedFiles(): string[] {
  return readdirSync(SHARED, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join(SHARED, f));
}

/** Relative imports of a file (static and type-only; dynamic `import("…")` too: it is a dependency all the same). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const out: string[] = [];
  for (const m of text.matchAll(/(?:(?:import|export)[^;]*?from\s+|import\()\s*"(\.[^"]+)"/g)) out.push(resolve(dirname(file), m[1]!));
  return out.filter((f) => f.startsWith(SHARED) && f.endsWith(".ts"));
}

describe("shared/ layering", () => {
  const files = sharedFiles();
  const graph = new Map(files.map((f) => [f, importsOf(f)]));

  it("every file has a layer", () => {
    expect(files.filter((f) => layerOf(f) < 0).map((f) => relative(ROOT, f))).toEqual([]);
  });

  it("no import runs from a lower layer to a higher one", () => {
    const upward: string[] = [];
    for (const [file, deps] of graph) {
      for (const dep of deps) if (layerOf(dep) > layerOf(file)) upward.push(`${relative(SHARED, file)} → ${relative(SHARED, dep)}`);
    }
    expect(upward).toEqual([]);
  });

  it("no import circle", () => {
    const state = new Map<string, "open" | "done">();
    const cycles: string[] = [];
    const visit = (f: string, path: string[]): void => {
      if (state.get(f) === "done") return;
      if (state.get(f) === "open") {
        cycles.push([...path.slice(path.indexOf(f)), f].map((x) => relative(SHARED, x)).join(" → "));
        return;
      }
      state.set(f, "open");
      for (const d of graph.get(f) ?? []) visit(d, [...path, f]);
      state.set(f, "done");
    };
    for (const f of files) visit(f, []);
    expect(cycles).toEqual([]);
  });

  it("the check sees a violation (a lower layer importing a higher one is caught)", () => {
    expect(layerOf(join(SHARED, "core/config.ts"))).toBeLessThan(layerOf(join(SHARED, "plugins/scorers.ts")));
    expect(layerOf(join(SHARED, "plugins/scorer-contract.ts"))).toBeLessThan(layerOf(join(SHARED, "semantic/vector-scorer.ts")));
  });
});
