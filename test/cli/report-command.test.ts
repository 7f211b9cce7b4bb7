/** `paracap report <out-dir>`: rewrites the publishable outputs of a folder; user mistakes exit 2 in one line. */
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../../shared/cli/main.ts";
import { removeTempDirs, run, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

async function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = "";
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    return { code: await main(args), stderr };
  } finally {
    spy.mockRestore();
  }
}

describe("paracap report", () => {
  let dir: string;
  beforeAll(async () => {
    dir = tempDir("paracap-report-cli-");
    await run(dir);
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
    // the sample's pairs carry no semantic metric: the reference map is drawn alone, with a note
    const html = readFileSync(join(dir, "report.html"), "utf8");
    expect(html).toContain("Not available for our tiers: the pairs carry no semantic metric");
    expect(html).toContain('data-chart="maps"');
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
