/** A companion file given as the input itself (a multistream dump's index, fetched next to the dump): named for what it is. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InputError, planLocalShards } from "../../shared/runner/local-shards.ts";
import { tempDir, removeTempDirs } from "./helpers.ts";

afterAll(removeTempDirs);

describe("a companion given as the input", () => {
  it("a multistream index is refused with the dump it belongs to, not read as a broken dump", async () => {
    const dir = tempDir("paracap-companion-");
    const index = join(dir, "enwiki-20250601-pages-articles-multistream-index.txt");
    // Wikipedia's index lines: offset:page id:title
    writeFileSync(index, "616:10:AccessibleComputing\n616:12:Anarchism\n616:13:AfghanistanHistory\n");
    const planned = planLocalShards([{ path: index, kind: "current" }]);
    await expect(planned).rejects.toThrow(InputError);
    await expect(planLocalShards([{ path: index, kind: "current" }])).rejects.toThrow(
      `${index} is not an input but a companion of enwiki-20250601-pages-articles-multistream.xml.bz2 (mediawiki): give that file as the input; this one is found beside it by its name`,
    );
  });
});
