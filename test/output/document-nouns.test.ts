/**
 * Reports name each source's documents by what they are (its `Source.document` noun): a caption
 * list's lines, a crawl's pages, a dump's revisions, each in the singular or plural its count asks for;
 * a run over several kinds of input says each. A text pivot's card counts the references read, not
 * their copies per key.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { reconcile } from "../pipeline/reconcile.ts";
import { DATA, readStats, removeTempDirs, run, tempDir } from "../runner/helpers.ts";
import { inProcessCli } from "../support/in-process-cli.ts";

afterAll(removeTempDirs);

const SHARED = join(DATA, "../../../../shared/data");
/** The first 600 of the 7,900 real Conceptual Captions validation lines (PROVENANCE.md there): the nouns and counts, not the list's size, are under test. */
const CC = join(tempDir(), "gcc-validation-part1-lines00001-00600.tsv");
writeFileSync(CC, readFileSync(join(SHARED, "conceptual-captions/gcc-validation-part1-lines00001-07900.tsv"), "utf8").split("\n").slice(0, 600).join("\n") + "\n");
/** Common Crawl's whirlwind WARC: one HTML page. */
const ONE_PAGE = join(SHARED, "warc/commoncrawl-whirlwind.warc.gz");
/** dumpster-dive's test wiki (PROVENANCE.md there): 8 articles, a real dump where its size is not the point. */
const TINYWIKI = join(DATA, "wikipedia/dumpster-dive-tinywiki-latest-pages-articles.xml");
/** dolma's sample WARC: 22 HTML pages. */
const DOLMA = join(SHARED, "warc/dolma-sample-0000.warc.gz");

const read = (dir: string, file: string) => readFileSync(join(dir, file), "utf8");

/** `paracap <args>` in this process (the summary is under test, not the process: test/cli covers that). */
/** stdout apart: these checks look at the exit code and stderr only. */
async function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  const { code, stderr } = await inProcessCli(args);
  return { code, stderr };
}

describe("documents are named by their source", () => {
  it("a caption list's documents are caption lines, in report.md, report.html and the card; stats.json counts them so", async () => {
    const out = tempDir();
    await run(out, [{ path: CC, kind: "current" }], { tiers: ["gold"] });
    const report = read(out, "report.md");
    expect(report).toContain("- current input: 600 caption lines → 600 image references");
    expect(report).toContain("| gold | current caption lines | 0 |");
    expect(report).not.toMatch(/revisions? (→|\|)/);
    expect(read(out, "report.html")).toContain("current caption lines");
    expect(read(out, "README.md")).toContain("| gold | current caption lines | 0 |");
    const stats = readStats(out);
    expect(stats.counters["extract.current.caption_lines"]).toBe(600);
    expect(stats.counters["extract.current.revisions"]).toBeUndefined();
    expect(reconcile(stats)).toEqual([]);
  });

  it("one crawled page is \"1 page\"", async () => {
    const out = tempDir();
    await run(out, [{ path: ONE_PAGE, kind: "current" }], { tiers: ["gold"] });
    expect(read(out, "report.md")).toContain("- current input: 1 page → 3 image references");
    expect(read(out, "README.md")).toContain("| gold | current pages | 0 |");
  });

  it("a run over a dump, a caption list and a crawl says each kind of document", async () => {
    const out = tempDir();
    await run(out, [{ path: TINYWIKI, kind: "current" }, { path: CC, kind: "current" }, { path: DOLMA, kind: "current" }], { tiers: ["gold"] });
    const stats = readStats(out);
    const revisions = stats.counters["extract.current.revisions"]!;
    expect(revisions).toBe(stats.counters["dump.revisions.emitted"]);
    expect(stats.counters["extract.current.pages"]).toBe(22);
    const report = read(out, "report.md");
    expect(report).toContain(`- current input: ${revisions.toLocaleString("en-US")} revisions, 600 caption lines, 22 pages →`);
    expect(report).toContain("| gold | current revisions, caption lines and pages |");
    // each counted once, under its own noun (the dump's revisions no longer hold the others)
    expect(stats.counters["extract.current.caption_lines"]).toBe(stats.counters["tsv.lines.emitted"]);
  });

  it("under a text pivot the card's \"references read\" counts each caption line once, and names the copies per key", async () => {
    const out = tempDir();
    await run(out, [{ path: CC, kind: "current" }], { tiers: ["gold"], pivot: "minhash" });
    const card = read(out, "README.md");
    const row = card.split("\n").find((l) => l.startsWith("| gold | 600 |"));
    expect(row, card).toBeDefined();
    // 16 min-hash bands: 16 keys per caption
    expect(card).toContain("9,600 keyed copies");
    // candidate pairs: the pairs the pivot made, not every meeting under a key (the funnel's first pair row takes in both)
    const firstPair = readStats(out).tiers.gold!.funnel.find((r) => r.unit === "pairs")!;
    const unpaired = Object.entries(firstPair.filter!.reasons).reduce((n, [reason, k]) => (reason.startsWith("pivot_") ? n + k : n), 0);
    expect(unpaired).toBeGreaterThan(0);
    expect(row!.split("|").map((c) => c.trim())[5]).toBe((firstPair.filter!.in - unpaired).toLocaleString("en-US"));
    expect(card).toContain(`${firstPair.filter!.in.toLocaleString("en-US")} meetings of two captions under a key`);
    const report = read(out, "report.md");
    expect(report).toContain("- current input: 600 caption lines → 600 image references, 9,600 copies under the minhash pivot's keys");
  });

  it("the run's summary asks a caption list's or a crawl's run for a history input, a dump's for a full-history dump", async () => {
    // one worker: the summary does not depend on threads, and starting them costs more than the run
    const cc = await cli(["run", "--input", CC, "--quiet", "--workers", "1", "--out", join(tempDir(), "out")]);
    expect(cc.code).toBe(0);
    expect(cc.stderr).toContain("  skipped tier bronze: it needs a history input (--history: re-crawls of the same pages, or a full-history dump)\n");
    const dump = await cli(["run", "--input", TINYWIKI, "--quiet", "--workers", "1", "--out", join(tempDir(), "out")]);
    expect(dump.code).toBe(0);
    expect(dump.stderr).toContain("  skipped tier bronze: it needs a full-history dump (--history)\n");
  });
});
