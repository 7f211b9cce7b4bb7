/**
 * Damaged and unusable inputs: a truncated bz2 copy of the sample and a malformed-XML copy run next to a
 * good dump; the run completes, reports each damaged shard with file and offset, and uses (and counts)
 * the pages read before the damage. A dump without pages and a missing input are clear user errors.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Stats } from "../../shared/output/stats.ts";
import { InputError } from "../../shared/runner/local-shards.ts";
import { bunzip } from "../dump/real-data.ts";
import { reconcile } from "../pipeline/reconcile.ts";
import { BIN, readPairs, readStats, REPO, run, SAMPLE_CURRENT, SAMPLE_HISTORY, tempDir, removeTempDirs } from "./helpers.ts";

afterAll(removeTempDirs);

const bzip2Prefix = (path: string): string => {
  // bzip2 exits non-zero on a truncated file but still writes what it decoded before
  const r = spawnSync("bzip2", ["-dc", path], { maxBuffer: 1 << 28 });
  return r.stdout.toString("utf8");
};

let dir: string;
let truncated: string;
let malformed: string;
let noPages: string;
let badTagOffset: number;
let out: string;
let stats: Stats;

beforeAll(async () => {
  dir = tempDir("paracap-bad-");
  // the first 800,000 of 1,695,871 compressed bytes: the file ends inside the fourth bz2 block
  truncated = join(dir, "enwiki-truncated-pages-articles.xml.bz2");
  writeFileSync(truncated, readFileSync(SAMPLE_CURRENT).subarray(0, 800_000));
  // the whole sample, decompressed, with the 12th </page> misspelt
  // (the bzip2 binary's decoding, shared with the dump tests: test/dump/real-data.ts)
  const xml = bunzip(SAMPLE_CURRENT).toString("utf8");
  let at = -1;
  for (let i = 0; i < 12; i++) at = xml.indexOf("</page>", at + 1);
  badTagOffset = Buffer.byteLength(xml.slice(0, at));
  malformed = join(dir, "enwiki-malformed-pages-articles.xml");
  writeFileSync(malformed, xml.slice(0, at) + "</pgae>" + xml.slice(at + "</page>".length));
  // a well-formed export without a single page
  noPages = join(dir, "enwiki-no-pages.xml");
  writeFileSync(noPages, '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/"><siteinfo><sitename>Wikipedia</sitename></siteinfo></mediawiki>\n');

  out = join(dir, "out");
  // the default decoder (lbzip2 here): damaged data is finished by the JS decoder, deterministically
  await run(out, [
    { path: truncated, kind: "current" },
    { path: malformed, kind: "current" },
    { path: noPages, kind: "current" },
    { path: SAMPLE_HISTORY, kind: "history" },
  ]);
  stats = readStats(out);
});

describe("a run with damaged inputs next to a good one", () => {
  it("completes, lists every damaged shard with its file and offset, and says it is incomplete", () => {
    expect(stats.shards.total).toBe(4);
    expect(stats.shards.ok).toBe(1);
    expect(stats.shards.missing).toEqual([]);
    expect(stats.complete).toBe(false);
    const [t, m, n] = stats.shards.corrupt;
    expect(stats.shards.corrupt).toHaveLength(3);
    expect(t).toMatchObject({ shard: "s00000-enwiki-truncated-pages-articles.xml.bz2", file: truncated, offset: 2_704_398 });
    expect(t!.error).toMatch(/^.*enwiki-truncated-pages-articles\.xml\.bz2 at decompressed byte 2704398: bz2 data is truncated or corrupt/);
    expect(m).toMatchObject({ shard: "s00001-enwiki-malformed-pages-articles.xml", file: malformed });
    expect(m!.error).toMatch(/malformed XML/);
    // the parser stops within the bad tag
    expect(m!.offset).toBeGreaterThanOrEqual(badTagOffset);
    expect(m!.offset).toBeLessThanOrEqual(badTagOffset + "</pgae>".length);
    expect(n).toMatchObject({ shard: "s00002-enwiki-no-pages.xml", file: noPages });
    expect(n!.error).toMatch(/no <page> found/);
  });

  it("uses and counts the pages read before the damage", () => {
    const shard = (id: string) => JSON.parse(readFileSync(join(out, ".work/extract", id, "_DONE.json"), "utf8")) as { status: string; counters: Record<string, number> };
    // truncated: every page closed before the damage; bzip2 (independent decoder) agrees on the count
    const t = shard("s00000-enwiki-truncated-pages-articles.xml.bz2");
    expect(t.status).toBe("corrupt");
    const prefix = bzip2Prefix(truncated);
    expect(prefix.length).toBeGreaterThan(2_600_000);
    expect(t.counters["dump.pages"]).toBe((prefix.match(/<\/page>/g) ?? []).length);
    expect(t.counters["dump.pages"]).toBe(115);
    expect([t.counters["dump.revisions.emitted"], t.counters["dump.skipped.redirect"]]).toEqual([38, 77]);
    expect(t.counters["dump.bytes"]).toBe(2_704_398);
    // malformed: the 11 pages before the misspelt tag, and the revision of the 12th (closed before it)
    const m = shard("s00001-enwiki-malformed-pages-articles.xml");
    expect(m.counters["dump.pages"]).toBe(11);
    expect(m.counters["dump.revisions"]).toBe(12);
    // and they reach the funnel: references of all three current shards are counted
    expect(stats.tiers.gold!.funnel[0]!.references).toBe(stats.counters["extract.current.references"]);
    expect(stats.counters["extract.current.revisions"]).toBe(38 + m.counters["dump.revisions.emitted"]!);
    expect(stats.counters["extract.shards.corrupt"]).toBe(3);
    expect(reconcile(stats, { gold: readPairs(out, "gold").length, bronze: readPairs(out, "bronze").length })).toEqual([]);
    // the good input is unaffected: its one bronze candidate is the golden Ideomap typo fix, counted as such
    expect(stats.tiers.bronze!.funnel.at(-1)!.filter!.reasons).toEqual({ spelling_fix: 1 });
  });

  it("reports the damage in report.md", () => {
    const report = readFileSync(join(out, "report.md"), "utf8");
    expect(report).toContain("Shards: 4; read completely: 1; damaged: 3; missing: 0. **The run is incomplete**");
    expect(report).toContain(`| \`s00000-enwiki-truncated-pages-articles.xml.bz2\` | \`${truncated}\` | 2,704,398 |`);
    expect(report).toContain("| `s00001-enwiki-malformed-pages-articles.xml` |");
  });
});

describe("a run over a bz2 dump with one flipped bit", () => {
  it("loses only the damaged block: the shard is listed with the block's offsets, the other blocks' pages are used", async () => {
    // the sample's bz2 with one bit flipped in the middle of its second 900 kB block
    const clean = readFileSync(SAMPLE_CURRENT);
    const bad = Buffer.from(clean);
    bad[Math.floor(clean.length * 0.3)]! ^= 0x08;
    const flipped = join(dir, "enwiki-flipped-pages-articles.xml.bz2");
    writeFileSync(flipped, bad);
    // the clean sample's pages: 206 (bzcat … | grep -c '<page>'; test/dump/page-reader.test.ts reads them all)
    const cleanPages = 206;
    const damaged = await run(join(dir, "out-flipped"), [{ path: flipped, kind: "current" }], { tiers: ["gold"] });
    const s = damaged.stats;
    expect(s.complete).toBe(false);
    expect(s.shards.corrupt).toHaveLength(1);
    expect(s.shards.corrupt[0]!.error).toMatch(/: 1 damaged bz2 block skipped \(\d+ compressed bytes, the first at compressed byte \d+: .*\): the pages in it are lost, the rest was read$/);
    expect(s.counters["dump.damaged_blocks"]).toBe(1);
    // one of the sample's 7 blocks: most pages come through, including those after the damage
    const pages = (x: Stats) => x.counters["dump.pages"] ?? 0;
    expect(pages(s)).toBeGreaterThan(cleanPages * 0.7);
    expect(pages(s)).toBeLessThan(cleanPages);
    expect(reconcile(s, { gold: readPairs(join(dir, "out-flipped"), "gold").length, bronze: 0 })).toEqual([]);
  });
});

describe("unusable inputs", () => {
  it("a dump without pages is a clear error, not an empty dataset", async () => {
    await expect(run(join(dir, "out-none"), [{ path: noPages, kind: "current" }], { tiers: ["gold"] })).rejects.toThrow(InputError);
    await expect(run(join(dir, "out-none2"), [{ path: noPages, kind: "current" }], { tiers: ["gold"] })).rejects.toThrow(
      /^no pages read from the input: .*enwiki-no-pages\.xml: no <page> found in 125 bytes: is this a MediaWiki XML export\?$/,
    );
    // nothing is kept to resume: the corrected command runs into the same directory without --fresh
    const fixed = await run(join(dir, "out-none"), [{ path: SAMPLE_HISTORY, kind: "history" }], { tiers: ["bronze"] });
    expect(fixed.stats.tiers.bronze!.funnel.at(-1)!.filter!.in).toBe(1);
    const r = spawnSync(process.execPath, [BIN, "run", "--quiet", "--input", noPages, "--out", join(dir, "out-none3")], { cwd: REPO, encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^paracap run: no pages read from the input: .*no <page> found.*\n$/);
    expect(r.stderr.split("\n")).toHaveLength(2);
  });

  it("a missing input exits with code 2 and one line, no stack trace", () => {
    const missing = join(dir, "enwiki-does-not-exist.xml.bz2");
    const r = spawnSync(process.execPath, [BIN, "run", "--quiet", "--input", missing, "--out", join(dir, "out-missing")], { cwd: REPO, encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`paracap run: input not found: ${missing}\n`);
    expect(r.stdout).toBe("");
  });

  it("a directory as input exits with code 2 and one line", () => {
    const r = spawnSync(process.execPath, [BIN, "run", "--quiet", "--history", dir, "--out", join(dir, "out-dir")], { cwd: REPO, encoding: "utf8" });
    expect(r.status).toBe(2);
    // one line that says what to give instead
    expect(r.stderr).toBe(`paracap run: input is a folder no source reads whole: ${dir} (name the files in it, e.g. --input ${dir}/*; a folder of images goes to --images)\n`);
  });
});
