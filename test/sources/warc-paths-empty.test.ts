/** A crawl paths list without a path (empty, blank lines, an empty gzip): one shard that reads nothing and says why. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, runCli, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

describe("an empty paths list", () => {
  it.each([
    ["warc.paths", ""],
    ["blank.paths", "\n\n\n"],
    ["warc.paths.gz", gzipSync("")],
  ] as const)("%s: exit 2, 'no HTML records read' with the reason", async (name, content) => {
    const dir = tempDir();
    writeFileSync(join(dir, name), content);
    const r = await runCli(["run", "--input", join(dir, name), "--out", join(dir, "out"), "--quiet"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("paracap run: no HTML records read from the input (skipped: 1 empty_paths_list)\n");
  });
});
