/** The caption TSV source names where each dropped line is (file and byte), so stats.json and report.md can point at it. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ParacapConfig } from "../../../shared/core/config.ts";
import { tsvSkippedCounter } from "../../../shared/core/counter-names.ts";
import { Counters } from "../../../shared/core/counters.ts";
import { fileBytes } from "../../../shared/io/file-bytes.ts";
import { captionTsvSource } from "../../../shared/sources/caption-tsv/caption-tsv-source.ts";
import { removeTempDirs, tempDir } from "../../runner/helpers.ts";

afterAll(removeTempDirs);

describe("caption TSV drops", () => {
  it("each dropped line is counted with its file and byte offset as an example", async () => {
    const text = "a dog on a beach\thttp://x.org/a.jpg\nno tab here\n\thttp://x.org/b.jpg\nlast line\thttp://x.org/c.jpg\n";
    const path = join(tempDir(), "cc.tsv");
    writeFileSync(path, text);
    const counters = new Counters();
    const docs = [];
    for await (const d of captionTsvSource.documents({ id: "s", uri: path, source: "caption-tsv", kind: "current", start: null, end: null, fragment: false }, fileBytes(path), ParacapConfig.parse({}), counters)) docs.push(d);
    expect(docs).toHaveLength(2);
    expect(counters.samples.get(tsvSkippedCounter("malformed_line"))).toEqual([`cc.tsv byte ${text.indexOf("no tab")}`]);
    expect(counters.samples.get(tsvSkippedCounter("empty_caption"))).toEqual([`cc.tsv byte ${text.indexOf("\thttp://x.org/b")}`]);
  });
});
