/**
 * Rendered chart SVGs kept on disk between processes (in the tool cache, shared/io/tool-cache-dir.ts).
 * Compiling and running Vega costs ~0.05 s a chart and a report draws ~18, so ~0.8 s of every run that
 * writes a report, more than all of a small run's extraction; the same charts come back whenever a
 * report is written again from the same figures (`paracap report`, a resumed or repeated run, the test
 * suite's many runs of the sample). An SVG is a pure function of its key: the spec, the renderer's own
 * code and settings (a fingerprint its caller gives) and the installed vega and vega-lite versions; where
 * one of those cannot be read there is no store, and charts are drawn every time as before.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../core/repo-root.ts";

/** Files kept; past it the oldest go, down to KEEP_AFTER_PRUNE (an SVG is 5–30 kB). */
export const MAX_CHART_FILES = 2000;
const KEEP_AFTER_PRUNE = 1500;

export interface ChartStore {
  /** The SVG stored for this spec (as JSON), or null. */
  read(spec: string): string | null;
  /** Stores an SVG; false when the folder cannot be written (nothing else happens then). */
  write(spec: string, svg: string): boolean;
}

/** vega's and vega-lite's installed versions, or null when they cannot be read. */
export function chartLibraryVersions(root = REPO_ROOT): string | null {
  try {
    return ["vega", "vega-lite"].map((p) => `${p}@${(JSON.parse(readFileSync(join(root, "node_modules", p, "package.json"), "utf8")) as { version: string }).version}`).join(" ");
  } catch {
    return null;
  }
}

/** The store in `cacheDir`/charts for SVGs drawn by `renderer`; null without a cache folder. */
export function openChartStore(cacheDir: string | null, renderer: string, versions: string | null): ChartStore | null {
  if (cacheDir === null || versions === null) return null;
  const dir = join(cacheDir, "charts");
  const pathOf = (spec: string) => join(dir, `${createHash("sha256").update(renderer).update("\0").update(versions).update("\0").update(spec).digest("hex").slice(0, 40)}.svg`);
  return {
    read(spec) {
      try {
        return readFileSync(pathOf(spec), "utf8");
      } catch {
        return null;
      }
    },
    write(spec, svg) {
      const path = pathOf(spec);
      const tmp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
      try {
        mkdirSync(dir, { recursive: true });
        writeFileSync(tmp, svg);
        renameSync(tmp, path); // atomic: a reader sees the whole SVG or none
      } catch {
        removeQuietly(tmp);
        return false;
      }
      pruneChartStore(dir);
      return true;
    },
  };
}

function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // its folder is not there (or not a folder): nothing was left
  }
}

/** Keeps the folder bounded: past MAX_CHART_FILES the oldest files go. Returns how many were removed. */
export function pruneChartStore(dir: string, max = MAX_CHART_FILES, keep = KEEP_AFTER_PRUNE): number {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".svg"));
  } catch {
    return 0;
  }
  if (names.length <= max) return 0;
  const aged = names.flatMap((n) => {
    try {
      return [{ n, t: statSync(join(dir, n)).mtimeMs }];
    } catch {
      return []; // removed by another process meanwhile
    }
  });
  aged.sort((a, b) => a.t - b.t);
  const drop = aged.slice(0, Math.max(0, aged.length - keep));
  for (const { n } of drop) removeQuietly(join(dir, n));
  return drop.length;
}
