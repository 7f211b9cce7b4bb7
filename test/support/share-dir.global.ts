/**
 * Global setup: one temporary folder for the whole test run, where files build things every one of
 * them would otherwise build again in its own process (a multistream copy of the sample, the local
 * runner's reference on it, a decompressed history): see once.ts. Removed when the run ends.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    shareDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), "paracap-test-share-"));
  project.provide("shareDir", dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
