/**
 * Per-item caches live in the run's work area (`<out>/.work/cache/`): a resume after a later-phase
 * change keeps them (what was judged stays judged), `--fresh` discards them with the run.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ParacapConfigInput } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import { LocalStore } from "../../shared/io/local-store.ts";
import { taskStageContext } from "../../shared/tasks/item-cache.ts";
import { removeTempDirs, run, SAMPLE, tempDir } from "./helpers.ts";

afterAll(removeTempDirs);

describe("item caches in the local runner's work area", () => {
  it("survive a resume after a later-phase change and go with --fresh", async () => {
    const dir = tempDir("paracap-item-cache-");
    const config: ParacapConfigInput = { tiers: ["gold"], scoring: { scorers: ["syntactic"] } };
    await run(dir, SAMPLE.slice(0, 1), config);
    // what a task's stage would store (the tasks hand their stage this context over the run's work store)
    const ctx = taskStageContext(new LocalStore(join(dir, ".work")), new Counters());
    const cache = ctx.itemCache!("toy_oracle_v1", z.object({ n: z.number() }));
    await cache.getOrCompute("File:Apollo 11 first step.jpg", () => ({ n: 1 }));
    const entries = join(dir, ".work", "cache", "toy_oracle_v1");
    expect(existsSync(entries)).toBe(true);

    const later = await run(dir, SAMPLE.slice(0, 1), { ...config, captions: { minWords: 10 } });
    expect(later.resumed).toEqual({ extract: 1, group: 0, dedup: 0 });
    expect(existsSync(entries)).toBe(true);

    await run(dir, SAMPLE.slice(0, 1), config, { fresh: true });
    expect(existsSync(entries)).toBe(false);
  });
});
