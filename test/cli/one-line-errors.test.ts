/**
 * Mistakes with paths and files are one line on stderr, never a stack trace: a file where a folder
 * goes (and the reverse), a missing folder, an existing file a command would create, a tier file
 * with a broken line, a labels path that is a folder.
 */
import { mkdirSync, appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendRecord, labelsFile, newLabel } from "../../shared/annotate/labels.ts";
import { removeTempDirs, runCli, tempDir } from "../runner/helpers.ts";
import { annotationDataset } from "../annotate/dataset.ts";

afterAll(removeTempDirs);

function oneLine(r: { code: number | null; stderr: string }, pattern: RegExp) {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr.trimEnd().split("\n"), r.stderr).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe("one-line errors", () => {
  let dir: string;
  let labels: string;

  beforeAll(async () => {
    dir = tempDir("paracap-one-line-");
    const { gold } = annotationDataset(dir);
    labels = labelsFile(dir, "ann1");
    for (const p of gold.slice(0, 3)) await appendRecord(labels, newLabel({ pair: p.id, paraphrase: true, relation: "equivalence", syntactic: 3, semantic: 4 }, "ann1", "gold"));
  });

  it("agreement: --dataset given a tier file, --json into a missing folder or onto a folder", async () => {
    oneLine(await runCli(["agreement", labels, "--dataset", join(dir, "silver.jsonl")]), /--dataset takes a run's output folder/);
    oneLine(await runCli(["agreement", labels, "--json", join(dir, "no", "such", "a.json")]), /no such folder for --json/);
    oneLine(await runCli(["agreement", labels, "--json", dir]), /--json names a folder/);
  });

  it("a tier file with a broken line: agreement and annotate name the file and line", async () => {
    const broken = tempDir("paracap-one-line-broken-");
    annotationDataset(broken);
    appendFileSync(join(broken, "silver.jsonl"), '{"id": "cut-off\n');
    const brokenLabels = labelsFile(broken, "ann1");
    mkdirSync(join(broken, "labels"), { recursive: true });
    writeFileSync(brokenLabels, "");
    oneLine(await runCli(["annotate", broken, "--port", "0"]), /silver\.jsonl:\d+: not valid JSON/);
    oneLine(await runCli(["agreement", labels, "--dataset", broken]), /silver\.jsonl:\d+: not valid JSON/);
  });

  it("annotate with the labels path a folder", async () => {
    const d = tempDir("paracap-one-line-labels-");
    annotationDataset(d);
    mkdirSync(labelsFile(d, "ann9"), { recursive: true });
    oneLine(await runCli(["annotate", d, "--annotator", "ann9", "--port", "0"]), /the labels file .*ann9\.jsonl is a folder/);
  });

  it("minhash --evaluation onto an existing file: the file system's refusal, in one line", async () => {
    const d = tempDir("paracap-one-line-minhash-");
    writeFileSync(join(d, "a.txt"), "A man walks his dog in the park.\n\nThe sun sets over the sea.\n");
    writeFileSync(join(d, "b.txt"), "A man is walking his dog in a park.\n");
    writeFileSync(join(d, "ev"), "");
    oneLine(await runCli(["minhash", join(d, "a.txt"), join(d, "b.txt"), "--evaluation", join(d, "ev")]), /ev: it exists already|ev.*not a folder|exists/);
  });
});
