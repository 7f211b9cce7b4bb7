/**
 * Global setup: one temporary folder for the whole test run, removed when the run ends.
 *
 * - `TMPDIR` points into it, so every temporary folder a test, a `paracap` child process or a
 *   function makes with `os.tmpdir()` goes with the run instead of piling up in /tmp run after run
 *   (hundreds of folders per run before). Set before the workers start, so they inherit it.
 * - Its `share` folder is where files build things every one of them would otherwise build again in
 *   its own process (a multistream copy of the sample, the local runner's reference on it, a
 *   decompressed history): see once.ts.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    shareDir: string;
  }
}

/** Marks the folder as this run's, so the setup of the second project reuses it. */
const MARK = "PARACAP_TEST_TMP";

export default function setup(project: TestProject): () => void {
  const owned = process.env[MARK] === undefined;
  const root = process.env[MARK] ?? mkdtempSync(join(tmpdir(), "paracap-test-"));
  const share = join(root, "share");
  mkdirSync(share, { recursive: true });
  if (owned) {
    process.env[MARK] = root;
    process.env.TMPDIR = root;
  }
  project.provide("shareDir", share);
  return () => {
    if (!owned) return;
    try {
      rmSync(root, { recursive: true, force: true });
    } catch (e) {
      // a mount a killed file left behind: say where, never fail the run over it
      console.warn(`paracap tests: could not remove ${root}: ${(e as Error).message}`);
    }
  };
}
