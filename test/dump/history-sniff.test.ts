import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { looksLikeHistoryByContent } from "../../shared/dump/history-sniff.ts";
import { removeTempDirs, SAMPLE_CURRENT, SAMPLE_HISTORY, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

describe("history told by content", () => {
  it("a history dump under a neutral name is history; a current dump is not; a non-dump is unknown", async () => {
    const dir = tempDir();
    const renamed = join(dir, "anarchism-dump.xml.bz2");
    copyFileSync(SAMPLE_HISTORY, renamed);
    expect(await looksLikeHistoryByContent(renamed)).toBe(true);
    expect(await looksLikeHistoryByContent(SAMPLE_CURRENT)).toBe(false);
    expect(await looksLikeHistoryByContent(join(dir, "missing.xml"))).toBeNull();
  });
});
