import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // timeouts only catch hangs: no test may depend on speed (a busy 2-core machine runs the suite)
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: "forks",
    // Vitest's default is cores − 1 (one file at a time on 2 cores); much of the suite waits on child
    // processes and emulators, so two files at once nearly halve it. No test depends on speed.
    maxWorkers: 2,
  },
});
