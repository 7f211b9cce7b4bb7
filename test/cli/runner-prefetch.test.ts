/**
 * `paracap run` starts loading its runner (local-runner.ts and every source, stage and scorer it
 * imports) while it reads the inputs' heads (applyInputSettings), not after them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";

// (not test/runner/helpers.ts: it imports the runner, which this test must see loaded by the command)
const REPO = join(import.meta.dirname, "../..");
const out = mkdtempSync(join(tmpdir(), "paracap-prefetch-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const state = vi.hoisted(() => {
  let loaded!: () => void;
  return { events: [] as string[], runnerLoaded: new Promise<void>((r) => (loaded = r)), loaded: () => loaded() };
});

vi.mock("../../shared/runner/local-runner.ts", () => {
  state.events.push("runner loaded");
  state.loaded();
  return { runLocal: async () => ({ stats: { tiers: {}, shards: { corrupt: [] } }, resumed: {}, elapsedSeconds: 0, alreadyComplete: false }) };
});

vi.mock("../../shared/sources/input-settings.ts", () => ({
  applyInputSettings: async () => {
    state.events.push("heads read");
    // Loaded only after this returns, the runner would never come: the test then fails by the config's (hang) timeout.
    await state.runnerLoaded;
    state.events.push("heads done");
    return [];
  },
}));

describe("run's runner", () => {
  it("loads while the inputs' heads are read", async () => {
    const { runCommand } = await import("../../shared/cli/run-command.ts");
    const history = join(REPO, "../shared/data/wikipedia-history/enwiki-Anarchism-history-rev00000-00299.xml.bz2");
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(await runCommand(["--history", history, "--out", out, "--quiet"])).toBe(0);
    } finally {
      err.mockRestore();
    }
    expect(state.events).toEqual(["heads read", "runner loaded", "heads done"]);
  });
});
