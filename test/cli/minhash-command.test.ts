/**
 * `paracap minhash` as a user runs it, on the two real translations of Twenty Thousand Leagues
 * (Latin-1 and ASCII Gutenberg files, CRLF): cross pairs, near-duplicates within one file,
 * --exact, --one-to-one, --exact-only, and user errors.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { encodeCorpus } from "../../shared/minhash/corpus.ts";
import { exactPairs } from "../../shared/minhash/jaccard.ts";
import { splitParagraphs, stripGutenberg } from "../../shared/minhash/paragraphs.ts";
import { MERCIER, WALTER } from "../minhash/verne.ts";
import { MinhashEvaluation } from "../../shared/output/minhash-chart.ts";
import { removeTempDirs, runCli, tempDir } from "../runner/helpers.ts";
import { readFileSync } from "node:fs";

afterAll(removeTempDirs);

interface PairLine { a: number; b: number; estimate?: number; exact?: number }
interface Summary { mode: string; method: string; paragraphsA: number; paragraphsB: number | null; perms: number | null; threshold: number; pairs: number; oneToOne: boolean; bucketsCapped: number }

function parse(stdout: string): { pairs: PairLine[]; summary: Summary } {
  const lines = stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
  const last = lines.pop() as { summary: Summary };
  return { pairs: lines as unknown as PairLine[], summary: last.summary };
}

/** A readable excerpt of both books: the first chapters after the Gutenberg header, as UTF-8 files. */
function excerpts(): [string, string, string[], string[]] {
  const dir = tempDir("paracap-minhash-");
  const a = splitParagraphs(stripGutenberg(readFileSync(MERCIER, "latin1"))).slice(0, 200);
  const b = splitParagraphs(stripGutenberg(readFileSync(WALTER, "latin1"))).slice(0, 300);
  writeFileSync(join(dir, "a.txt"), a.join("\n\n"));
  writeFileSync(join(dir, "b.txt"), b.join("\r\n\r\n") + "\r\n");
  return [join(dir, "a.txt"), join(dir, "b.txt"), a, b];
}

// each case spawns paracap one to six times: generous timeouts, as the machine may be busy. The method's pairs are
// compared with the library's over every paragraph, so chapter headings are paired too (--keep-headings; that they
// are not by default is test/minhash/gutenberg-variants.test.ts's)
describe("paracap minhash", () => {
  it("matches paragraphs of one translation against the other; --exact adds exact Jaccard close to the estimate; --paper keeps the raw estimate", async () => {
    const [fa, fb, a, b] = excerpts();
    const r = await runCli(["minhash", fa, fb, "--perms", "512", "--threshold", "0.25", "--exact", "--paper", "--keep-headings"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const { pairs, summary } = parse(r.stdout);
    expect(summary).toMatchObject({ mode: "cross", method: "minhash", paragraphsA: a.length, paragraphsB: b.length, perms: 512, threshold: 0.25, verify: "estimate", pairs: pairs.length });
    expect(pairs.length).toBeGreaterThan(30);
    for (const p of pairs) {
      expect(p.estimate).toBeGreaterThanOrEqual(0.25);
      expect(Math.abs(p.estimate! - p.exact!)).toBeLessThan(0.12);
    }
    // the opening paragraphs of the two translations pair up (exact Jaccard 26/94 = 0.277)
    const first = a.findIndex((p) => p.startsWith("The year 1866"));
    const firstB = b.findIndex((p) => p.startsWith("THE YEAR 1866"));
    expect(pairs.some((p) => p.a === first && p.b === firstB)).toBe(true);
    // recall against the exact method's pairs: what the exact method finds well above t is found
    const c = encodeCorpus(a, b);
    const sure: string[] = [];
    exactPairs(c, 0.45, (i, j) => sure.push(`${i},${j}`));
    const found = new Set(pairs.map((p) => `${p.a},${p.b}`));
    expect(sure.length).toBeGreaterThan(10);
    for (const k of sure) expect(found.has(k)).toBe(true);

    // the default verifies each candidate (estimate ≥ t − slack) by its exact Jaccard: no pair under t
    const evalDir = tempDir("paracap-minhash-eval-");
    const v = await runCli(["minhash", fa, fb, "--perms", "512", "--threshold", "0.25", "--exact", "--evaluation", evalDir, "--keep-headings"]);
    expect(v.stderr).toContain("minhash.json");
    const verified = parse(v.stdout);
    expect(verified.summary).toMatchObject({ verify: "exact", pairs: verified.pairs.length });
    const exactSet = new Set<string>();
    exactPairs(c, 0.25, (i, j) => exactSet.add(`${i},${j}`));
    for (const p of verified.pairs) {
      expect(p.exact).toBeGreaterThanOrEqual(0.25);
      expect(p.estimate).toBeGreaterThanOrEqual(0.15);
      expect(exactSet.has(`${p.a},${p.b}`)).toBe(true);
    }
    // nearly all of the exact method's pairs are found (the rest have an estimate more than 0.1 under t)
    expect(verified.pairs.length).toBeGreaterThanOrEqual(0.97 * exactSet.size);
    // --evaluation: the report's data, verified precision 1 at every threshold, the paper's rule below it somewhere
    const evaluation = MinhashEvaluation.parse(JSON.parse(readFileSync(join(evalDir, "minhash.json"), "utf8")));
    expect(evaluation.corpus).toBe("a.txt × b.txt");
    expect(evaluation.scatter.length).toBeGreaterThan(100);
    for (const p of evaluation.scatter) expect(p.perms).toBe(512);
    const at = (method: string, t: number) => evaluation.prfExact.find((r) => r.method === method && r.threshold === t)!;
    expect(at("verified m = 512", 0.3).precision).toBe(1);
    expect(evaluation.prfExact.filter((r) => r.method === "verified m = 512").every((r) => r.precision === 1)).toBe(true);
    expect(evaluation.prfExact.filter((r) => r.method === "paper m = 512").some((r) => r.precision < 1)).toBe(true);
  });

  it("--exact-only gives the exact method's pairs, --one-to-one at most one pair per paragraph", async () => {
    const [fa, fb, a, b] = excerpts();
    const exact = await runCli(["minhash", fa, fb, "--threshold", "0.3", "--exact-only", "--keep-headings"]);
    expect(exact.code).toBe(0);
    const e = parse(exact.stdout);
    const expected: string[] = [];
    exactPairs(encodeCorpus(a, b), 0.3, (i, j) => expected.push(`${i},${j}`));
    expect(e.pairs.map((p) => `${p.a},${p.b}`)).toEqual(expected);
    expect(e.summary).toMatchObject({ method: "exact", perms: null, pairs: expected.length });
    for (const p of e.pairs) expect(p.estimate).toBeUndefined();

    const one = await runCli(["minhash", fa, fb, "--threshold", "0.2", "--one-to-one", "--perms", "128", "--keep-headings"]);
    const o = parse(one.stdout);
    expect(o.summary).toMatchObject({ oneToOne: true, pairs: o.pairs.length });
    expect(o.pairs.length).toBeGreaterThan(20);
    expect(new Set(o.pairs.map((p) => p.a)).size).toBe(o.pairs.length);
    expect(new Set(o.pairs.map((p) => p.b)).size).toBe(o.pairs.length);
  });

  it("finds near-duplicate paragraphs within one Latin-1 Gutenberg file", async () => {
    const r = await runCli(["minhash", WALTER, "--gutenberg", "--threshold", "0.9", "--exact", "--perms", "64"]);
    expect(r.code).toBe(0);
    const { pairs, summary } = parse(r.stdout);
    expect(summary).toMatchObject({ mode: "within", paragraphsB: null, pairs: pairs.length });
    expect(summary.paragraphsA).toBeGreaterThan(3500);
    expect(pairs.length).toBeGreaterThan(0);
    for (const p of pairs) {
      expect(p.a).toBeLessThan(p.b);
      expect(p.exact).toBeGreaterThan(0.7);
    }
  });

  it("is listed in paracap --help and has its own --help", async () => {
    expect((await runCli(["--help"])).stdout).toContain("paracap minhash <a.txt> [<b.txt>]");
    const r = await runCli(["minhash", "--help"]);
    expect(r.code).toBe(0);
    for (const flag of ["--perms", "--threshold", "--one-to-one", "--exact", "--bucket-cap", "--gutenberg"]) expect(r.stdout).toContain(`  ${flag}`);
  });

  it("user errors: exit 2 with one line", async () => {
    const [fa] = excerpts();
    for (const [args, message] of [
      [["minhash"], /usage: paracap minhash/],
      [["minhash", "/no/such/file.txt"], /no such file/],
      [["minhash", fa, "--perms", "0"], /--perms: .*>=1/],
      [["minhash", fa, "--threshold", "1.5"], /--threshold/],
      [["minhash", fa, "--threshold", "x"], /--threshold takes a number/],
      [["minhash", fa, fa, fa], /usage/],
    ] as const) {
      const r = await runCli([...args]);
      expect(r.stdout).toBe("");
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    }
  });
});
