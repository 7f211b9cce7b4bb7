/** `paracap report <out-dir>`: rewrites the publishable outputs of a folder; user mistakes exit 2 in one line. */
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempDirs, run, tempDir } from "../runner/helpers.ts";
import { sampleRunCopy } from "../support/sample-run.ts";
import { inProcessCli } from "../support/in-process-cli.ts";

afterAll(removeTempDirs);

/** stdout apart: these checks look at the exit code and stderr only. */
async function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  const { code, stderr } = await inProcessCli(args);
  return { code, stderr };
}

describe("paracap report", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await sampleRunCopy("paracap-report-cli-");
  });

  it("rewrites report.html, the Parquet files and the card of a finished folder, with reference maps", async () => {
    for (const f of ["report.html", "gold.parquet", "README.md"]) rmSync(join(dir, f));
    const refs = join(dir, "..", `${dir.split("/").pop()}-refs.json`);
    const grid = Array.from({ length: 5 }, (_, i) => Array.from({ length: 5 }, (_, j) => (i === 4 && j === 4 ? 1 : 0)));
    writeFileSync(refs, JSON.stringify([{ corpus: "PAWS (dev)", n: 8000, semantic: "x", map: grid }]));
    const r = await cli(["report", dir, "--reference", refs]);
    rmSync(refs);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^paracap report: wrote gold\.parquet, silver\.parquet, bronze\.parquet, report\.html, README\.md in /);
    for (const f of ["report.html", "gold.parquet", "README.md"]) expect(statSync(join(dir, f)).size).toBeGreaterThan(0);
    // the default scoring is the shipped references': MSRPC and PAWS are drawn next to our tiers, then the given map,
    // whose semantic axis is said to differ
    const html = readFileSync(join(dir, "report.html"), "utf8");
    expect(html).toContain('data-chart="maps"');
    expect(html).toContain("Characteristic maps: gold (n = 1), silver (n = 1), MSRPC train (all pairs) (n = 4,076), PAWS dev (all pairs) (n = 8,000), PAWS (dev) (n = 8,000)");
    expect(html).toContain("Reference maps on a different semantic score, not comparable cell by cell: PAWS (dev) (semantic = mean(vectorCosine,wordMoverSimilarity) here, x there)");
    expect(html).toMatch(/Word-vector semantic scores bunch near 1, so most pairs of a paraphrase corpus fall in the top semantic level \[0\.8, 1\] \(share there: gold 0 %, silver 0 %, MSRPC train \(all pairs\) 83 %, PAWS dev \(all pairs\) 100 %, PAWS \(dev\) 100 %\)/);
    expect(html).not.toContain("maps are not shown");
  });

  it("leaves the shipped MSRPC and PAWS maps out, in one line, when the run's semantic score is not theirs", async () => {
    const config = JSON.parse(readFileSync(join(dir, "config.json"), "utf8")) as { scoring: { vectors: { maxWords: number | null } } };
    const original = JSON.stringify(config, null, 2);
    config.scoring.vectors.maxWords = 50_000;
    writeFileSync(join(dir, "config.json"), JSON.stringify(config, null, 2));
    try {
      expect((await cli(["report", dir])).code).toBe(0);
    } finally {
      writeFileSync(join(dir, "config.json"), original);
    }
    const html = readFileSync(join(dir, "report.html"), "utf8");
    expect(html).toContain("The MSRPC train and PAWS dev maps are not shown: they were scored differently (the 50,000 most frequent word vectors here, the 100,000 most frequent word vectors there)");
    expect(html).toContain("Characteristic maps: gold (n = 1), silver (n = 1)</figcaption>");
  });

  it("draws given reference maps alone when our pairs carry no semantic score, and says why MSRPC and PAWS are not shown", async () => {
    const plain = tempDir("paracap-report-syntactic-");
    await run(plain, undefined, { scoring: { scorers: ["syntactic"] } });
    const refs = join(tempDir("paracap-report-refs-"), "refs.json");
    const grid = Array.from({ length: 5 }, (_, i) => Array.from({ length: 5 }, (_, j) => (i === 4 && j === 4 ? 1 : 0)));
    writeFileSync(refs, JSON.stringify([{ corpus: "PAWS (dev)", n: 8000, semantic: "x", map: grid }, { name: "empty.jsonl", n: 0, map: null }]));
    const r = await cli(["report", plain, "--reference", refs]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`paracap report: ${refs}: empty.jsonl: no characteristic map (no pairs or no semantic score), not drawn\n`);
    const html = readFileSync(join(plain, "report.html"), "utf8");
    expect(html).toContain("Not available for our tiers: the pairs carry no semantic metric");
    expect(html).toContain("The MSRPC train and PAWS dev maps are not shown: our pairs carry no semantic score to compare with.");
    expect(html).toContain("Reference corpora only: PAWS (dev) (n = 8,000)");
  });

  it("a missing folder, a folder without stats.json or a bad reference file is one line, exit 2", async () => {
    expect(await cli(["report", join(dir, "nope")])).toEqual({ code: 2, stderr: `paracap report: not a directory: ${join(dir, "nope")}\n` });
    const empty = tempDir("paracap-report-empty-");
    const r = await cli(["report", empty]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^paracap report: .*: no stats\.json \(not a paracap output folder, or the run has not finished\)\n$/);
    const bad = join(empty, "refs.json");
    writeFileSync(bad, JSON.stringify({ corpus: "X", map: [[1]] }));
    const b = await cli(["report", dir, "--reference", bad]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/refs\.json: entry 1: needs "corpus" and a 5×5 "map"/);
    expect((await cli(["report"])).code).toBe(2);
  });
});
