/**
 * What the reading found damaged or could not use reaches the user: the examples the readers keep
 * (a damaged WARC record's file@offset and reason) are in stats.json (`extraction_examples`), report.md
 * and the CLI summary, and a run that read nothing says why instead of only that it read nothing.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ParacapConfigInput } from "../../shared/core/config.ts";
import { readStats, removeTempDirs, run, runCli, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const WARC = new URL("../../../shared/data/warc/", import.meta.url).pathname;
const FAST: ParacapConfigInput = { tiers: ["gold", "silver"], scoring: { scorers: ["syntactic"] } };

describe("examples of damaged input", () => {
  it("a .warc.gz cut mid-record: the damaged record's file, offset and reason in stats.json and report.md", async () => {
    const dir = tempDir();
    const cut = join(dir, "dolma-cut.warc.gz");
    writeFileSync(cut, readFileSync(`${WARC}dolma-sample-0000.warc.gz`).subarray(0, 100_000));
    const out = join(dir, "out");
    writeFileSync(join(dir, "fast.json"), JSON.stringify(FAST));
    const r = await runCli(["run", "--input", cut, "--config", join(dir, "fast.json"), "--out", out, "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    const stats = readStats(out);
    expect(stats.extraction["warc.records.damaged"]).toBe(1);
    const examples = stats.extraction_examples?.["warc.damaged_records"];
    expect(examples).toHaveLength(1);
    expect(examples![0]).toMatch(new RegExp(`^${cut.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}@\\d+: gzip$`));
    const at = Number(/@(\d+):/.exec(examples![0]!)![1]);
    expect(at).toBeGreaterThan(90_000);
    expect(at).toBeLessThan(100_000);
    expect(readFileSync(join(out, "report.md"), "utf8")).toContain(`- \`warc.damaged_records\`: ${examples![0]}`);
    expect(r.stderr).toContain(`  note: warc.damaged_records: ${examples![0]}\n`);
  });

  it("the examples of what the web caption filters dropped are the same with the documents on worker threads", async () => {
    const input = [{ path: `${WARC}dolma-sample-0000.warc.gz`, kind: "current" as const }];
    const inline = join(tempDir(), "inline");
    const threads = join(tempDir(), "threads");
    await run(inline, input, FAST, { workers: 1 });
    await run(threads, input, FAST, { workers: 2, threads: "always" });
    expect(readFileSync(join(inline, "stats.json"), "utf8")).toContain('"examples"');
    expect(readFileSync(join(threads, "stats.json"), "utf8")).toBe(readFileSync(join(inline, "stats.json"), "utf8"));
  });

  it("an intact input keeps stats.json without the field", async () => {
    const out = join(tempDir(), "out");
    await run(out, [{ path: `${WARC}commoncrawl-whirlwind.warc.gz`, kind: "current" }], FAST, { workers: 1 });
    expect("extraction_examples" in readStats(out)).toBe(false);
  });

  it("a run that reads nothing says what was skipped and where the damage is", async () => {
    // warcio's wrong-chunks file without its second member (the response's body)
    const chunks = readFileSync(`${WARC}warcio-edge-cases/example-wrong-chunks.warc.gz`);
    const cut = join(tempDir(), "cut.warc.gz");
    writeFileSync(cut, Buffer.concat([chunks.subarray(0, 516), chunks.subarray(1130)]));
    const r = await runCli(["run", "--input", cut, "--out", join(tempDir(), "out"), "--quiet"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("paracap run: no HTML records read from the input (skipped: 1 damaged.truncated, 1 request): ");
    expect(r.stderr).toContain(`${cut}: 1 damaged WARC record skipped (the first at file byte 0: truncated)`);
    const wet = await runCli(["run", "--input", `${WARC}commoncrawl-whirlwind.warc.wet.gz`, "--out", join(tempDir(), "out"), "--quiet"]);
    expect(wet.code).toBe(2);
    // one line that says what to give instead
    expect(wet.stderr).toBe(`paracap run: no HTML records read from the input (skipped: 1 wet_file): ${WARC}commoncrawl-whirlwind.warc.wet.gz: a WET file holds the pages' extracted text, not their HTML: give the crawl's WARC (.warc.gz) instead\n`);
  });
});
