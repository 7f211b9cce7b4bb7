import { defineConfig } from "vitest/config";

/**
 * Files that change process-wide state (cwd, env, module-level cloud clients bound to one emulator,
 * registered functions) or start emulators and servers run isolated, one fresh module graph per file.
 * Every other file shares its worker's module graph with the files before it: importing zod, wink-nlp
 * and the pipeline once per worker instead of once per file saves a large share of the suite's time.
 */
const ISOLATED = [
  "test/cli/cli.test.ts",
  // the cloud files that start the emulators with the functions on them; the others (messages, status,
  // fan-in and planning on their own storage server) share a worker's modules
  "test/cloud/caption-tsv-e2e.test.ts",
  "test/cloud/e2e.test.ts",
  "test/cloud/faults.test.ts",
  "test/cloud/toy-phase.test.ts",
  "test/emulators/**",
  "test/functions/**",
  "test/sources/toy-source.test.ts",
  "test/sources/warc-cloud.test.ts",
  "test/tasks/pixel-pipeline.test.ts",
  "test/tasks/revisits-across-shards.test.ts",
  "test/dump/bz2-parallel.test.ts",
  // module mocks and a module-registry reset: kept out of the graph other files share
  "test/cli/runner-prefetch.test.ts",
  "test/wikitext/language-names-lazy.test.ts",
];

export default defineConfig({
  test: {
    // timeouts only catch hangs: no test may depend on speed (a busy 2-core machine runs the suite)
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: "forks",
    // one folder per run where files share what each would otherwise build again (test/support/once.ts)
    globalSetup: ["test/support/share-dir.global.ts"],
    // equal typed arrays compared at native speed (vitest walks them key by key)
    setupFiles: ["test/support/typed-array-equality.ts"],
    // Vitest's default is cores − 1 (one file at a time on 2 cores); much of the suite waits on child
    // processes, emulators and redeliveries, so more files than cores run at once: on this 2-core
    // machine, quiet, two at a time took 392–398 s, three 334 s. No test depends on speed.
    maxWorkers: 3,
    projects: [
      { extends: true, test: { name: "isolated", include: ISOLATED.map((g) => (g.endsWith(".ts") ? g : `${g}/**/*.test.ts`)) } },
      { extends: true, test: { name: "shared", include: ["test/**/*.test.ts"], exclude: ISOLATED, isolate: false } },
    ],
  },
});
