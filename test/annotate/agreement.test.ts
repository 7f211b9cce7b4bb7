/**
 * `paracap agreement` end to end. Four annotators label 12 real MSRP pairs with the values of
 * Krippendorff's (2011) worked example ("Computing Krippendorff's Alpha-Reliability", section C: 4
 * observers × 12 units, values 1–5, missing values), so the published alphas must come out of the
 * labels files: syntactic ratings = the values (α_ordinal 0.815, α_interval 0.849), semantic ratings =
 * 6 − value (both metrics are invariant under that), relation = the value-th relation (α_nominal 0.743).
 * Fleiss' κ (units 2–9, rated by all four) and Cohen's κ of A–B are computed by hand below.
 */
import { writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { computeAgreement, datasetOfLabels, tableSixAxis } from "../../shared/annotate/agreement.ts";
import { AgreementReport } from "../../shared/annotate/agreement-report.ts";
import { agreementHtmlSection, agreementSections, agreementText } from "../../shared/annotate/agreement-render.ts";
import { pearson, spearman } from "../../shared/annotate/agreement-stats.ts";
import { appendRecord, labelsFile, newLabel, newRetraction, RELATIONS } from "../../shared/annotate/labels.ts";
import { LocalStore } from "../../shared/io/local-store.ts";
import { writePublication } from "../../shared/output/publish.ts";
import type { PublishedPair } from "../../shared/output/tier-dataset.ts";
import { removeTempDirs, run, runCli, tempDir } from "../runner/helpers.ts";
import { annotationDataset } from "./dataset.ts";
import { sampleRunCopy } from "../support/sample-run.ts";

const M = null;
const OBSERVERS: Record<string, (number | null)[]> = {
  A: [1, 2, 3, 3, 2, 1, 4, 1, 2, M, M, M],
  B: [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, M, 3],
  C: [M, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, M],
  D: [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, M],
};

afterAll(removeTempDirs);

describe("paracap agreement", () => {
  let dir: string;
  let pairs: PublishedPair[];
  const files: string[] = [];

  beforeAll(async () => {
    dir = tempDir("paracap-agreement-");
    pairs = annotationDataset(dir).gold.slice(20, 32);
    for (const [who, values] of Object.entries(OBSERVERS)) {
      const file = labelsFile(dir, who);
      files.push(file);
      for (const [u, v] of values.entries()) {
        if (v === null) continue;
        const input = { pair: pairs[u]!.id, paraphrase: v >= 3, relation: RELATIONS[v - 1]!, syntactic: v, semantic: 6 - v };
        if (who === "A" && u === 0) {
          // a label taken back by undo, then the real one: only the real one counts
          const wrong = newLabel({ ...input, syntactic: 5, relation: "negation" }, who);
          await appendRecord(file, wrong);
          await appendRecord(file, newRetraction(wrong));
        }
        await appendRecord(file, newLabel(input, who, "gold"));
      }
    }
    // a hostile line in D's file is counted, not fatal
    writeFileSync(files[3]!, (await readFile(files[3]!, "utf8")) + '{"kind":"label","pair":"<b>x</b>"}\n');
  });

  it("reproduces Krippendorff's published alphas and the hand-computed kappas from the labels files", async () => {
    const r = await computeAgreement(files, dir);
    expect(r.annotators).toEqual(["A", "B", "C", "D"]);
    expect([r.pairs, r.pairsByAll]).toEqual([12, 8]);
    expect(r.files.map((f) => f.bad)).toEqual([0, 0, 0, 1]);
    const v = Object.fromEntries(r.variables.map((x) => [x.variable, x]));
    const alpha = (name: string, metric: string) => v[name]!.alpha.find((a) => a.metric === metric)!.alpha!;
    expect(alpha("relation", "nominal")).toBeCloseTo(0.743, 3);
    expect(alpha("syntactic", "ordinal")).toBeCloseTo(0.815, 3);
    expect(alpha("syntactic", "interval")).toBeCloseTo(0.849, 3);
    expect(alpha("semantic", "ordinal")).toBeCloseTo(0.815, 3);
    expect(alpha("semantic", "interval")).toBeCloseTo(0.849, 3);
    // Fleiss on units 2–9 (4 raters, categories 1–4): per-unit P = .5, 1, 1, 1, 0, 1, .5, 1 → P̄ = 0.75;
    // category totals 4, 13, 10, 5 of 32 → P̄e = 310/1024; κ = (0.75 − 310/1024)/(1 − 310/1024) = 229/357
    expect(v.syntactic!.fleiss).toEqual({ n: 8, raters: 4, kappa: expect.closeTo(229 / 357, 12) });
    expect(v.relation!.fleiss!.kappa).toBeCloseTo(229 / 357, 12);
    // Cohen A–B on units 1–9: agree on 8; marginals A (3, 3, 2, 1), B (2, 4, 2, 1) → p_e = 23/81, κ = 49/58
    const ab = v.syntactic!.cohen.find((c) => c.a === "A" && c.b === "B")!;
    expect(ab.n).toBe(9);
    expect(ab.observed).toBeCloseTo(8 / 9, 12);
    expect(ab.kappa).toBeCloseTo(49 / 58, 12);
    expect(v.syntactic!.cohen).toHaveLength(6);
    expect(() => AgreementReport.parse(r)).not.toThrow();
  });

  it("correlates every metric of the labelled pairs with the mean ratings (Table 6)", async () => {
    const r = await computeAgreement(files, dir);
    const c = r.correlation!;
    expect([c.matched, c.missing]).toEqual([12, 0]);
    expect(c.rows.slice(0, 4).map((x) => [x.metric, x.axis])).toEqual([["rouge1F", "syntactic"], ["rougeLF", "syntactic"], ["bleu4", "syntactic"], ["syntactic", "syntactic"]]);
    expect(c.rows.find((x) => x.metric === "bagOfWordsCosine")!.axis).toBe("semantic");
    // a share of words without a vector measures no similarity: correlated, never starred as Table 6's
    expect(["vectorCosine", "wordMoverSimilarity", "semantic", "vectorOov", "deltaSemSyn", "sumo"].map(tableSixAxis)).toEqual(["semantic", "semantic", "semantic", "none", "delta", "syntactic"]);
    // the mean rating per unit, from the table above; pairs are matched by id, so order by id as the report does
    const mean = pairs.map((p, u) => {
      const vs = Object.values(OBSERVERS).map((o) => o[u]).filter((x): x is number => x !== null);
      return { id: p.id, m: p.metrics, syn: vs.reduce((a, b) => a + b, 0) / vs.length };
    });
    const rouge = c.rows.find((x) => x.metric === "rouge1F")!;
    expect(rouge.n).toBe(12);
    expect(rouge.syntactic.pearson).toBeCloseTo(pearson(mean.map((x) => x.m.rouge1F!), mean.map((x) => x.syn)), 12);
    expect(rouge.syntactic.spearman).toBeCloseTo(spearman(mean.map((x) => x.m.rouge1F!), mean.map((x) => x.syn)), 12);
    // semantic = 6 − syntactic for every rating: the correlations flip sign
    expect(rouge.semantic.pearson).toBeCloseTo(-rouge.syntactic.pearson!, 12);
  });

  it("the command prints the tables and writes agreement.json into the dataset found from labels/", async () => {
    expect(datasetOfLabels(files[0]!)).toBe(dir);
    const r = await runCli(["agreement", ...files]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/4 annotators \(A, B, C, D\), 12 pairs labelled, 8 by every annotator/);
    expect(r.stdout).toMatch(/1 unreadable line\(s\) skipped: .*D\.jsonl:\d+ not a label/);
    expect(r.stdout).toMatch(/syntactic similarity \(1–5\)\s+mean [\d.]+ of 6 pairs\s+0\.641 \(n 8\)\s+ordinal 0\.815, interval 0\.849/);
    expect(r.stdout).toMatch(/A – B\s+9\s+/);
    expect(r.stdout).toMatch(/rouge1F\s+12\s+/);
    expect(r.stderr).toContain(`wrote ${join(dir, "agreement.json")}`);
    const saved = AgreementReport.parse(JSON.parse(await readFile(join(dir, "agreement.json"), "utf8")));
    expect(saved.variables.find((x) => x.variable === "syntactic")!.alpha[1]!.alpha).toBeCloseTo(0.849, 3);
    // two annotators: Cohen's κ is shown as such
    const two = await computeAgreement(files.slice(0, 2), null);
    expect(two.correlation).toBeNull();
    expect(agreementText(two)).toMatch(/syntactic similarity \(1–5\)\s+0\.845 \(n 9\)/);
    expect(agreementText(two)).toMatch(/pass --dataset/);
  });

  it("one annotator: no agreement to measure (— everywhere), but the correlation still runs", async () => {
    const r = await computeAgreement([files[1]!], dir);
    expect([r.annotators, r.pairs, r.pairsByAll]).toEqual([["B"], 11, 0]);
    for (const v of r.variables) {
      expect(v.cohen).toEqual([]);
      expect(v.fleiss).toBeNull();
      expect(v.alpha.every((a) => a.alpha === null && a.units === 0)).toBe(true);
    }
    expect(r.correlation!.matched).toBe(11);
    expect(agreementText(r)).toMatch(/syntactic similarity \(1–5\)\s+—\s+—\s+ordinal —, interval —/);
  });

  it("user mistakes exit 2 with one line", async () => {
    for (const [args, msg] of [
      [["agreement"], /usage: paracap agreement/],
      [["agreement", join(dir, "nope.jsonl")], /no such file/],
      // a folder is read for its labels (test/annotate/labels-args.test.ts); one without any says so
      [["agreement", tempDir("paracap-agreement-none-")], /no labels files \(\*\.jsonl\)/],
      [["agreement", dir, files[0]!], /given twice/],
      [["agreement", files[0]!, files[0]!], /given twice/],
    ] as const) {
      const r = await runCli([...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(msg);
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    }
  });

  it("report.html gets the section from agreement.json, escaped; a broken agreement.json is a note", async () => {
    // a run on the embedded sample and its publication: the slow part, so a generous bound (not a speed check)
    const out = await sampleRunCopy("paracap-agreement-report-");
    const report = await computeAgreement(files, dir);
    report.correlation!.rows[0]!.metric = '<img src=x onerror="alert(1)">';
    writeFileSync(join(out, "agreement.json"), JSON.stringify(report));
    await writePublication(new LocalStore(out));
    const html = await readFile(join(out, "report.html"), "utf8");
    expect(html).toContain('<a href="#agreement">Human judgements</a>');
    expect(html).toContain('<section id="agreement"><h2>Human judgements</h2>');
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(html).not.toContain("<img");
    expect(agreementHtmlSection(report)).toMatch(/<td class="n"><b>-?0\.\d\d<\/b><\/td>/);

    writeFileSync(join(out, "agreement.json"), "{broken");
    expect((await agreementSections(new LocalStore(out)))[0]!.html).toMatch(/not an agreement report/);
    expect(await agreementSections(new LocalStore(tempDir()))).toEqual([]);
  });
});
