/**
 * `paracap agreement` given the labels as a user has them at hand: the labels folder, or the dataset
 * folder holding labels/, or the README's `out/labels/*.jsonl` left unexpanded (Windows' cmd and
 * PowerShell pass a pattern as it is written). Each reads the same files as the expanded list;
 * a folder without labels says where annotate writes them. Called in process.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendRecord, labelsFile, newLabel } from "../../shared/annotate/labels.ts";
import { inProcessCli } from "../support/in-process-cli.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";
import { annotationDataset } from "./dataset.ts";

afterAll(removeTempDirs);

describe("agreement's labels arguments", () => {
  let dir: string;
  let files: string[];
  beforeAll(async () => {
    dir = tempDir("paracap-labels-args-");
    const pairs = annotationDataset(dir).gold.slice(0, 6);
    files = [];
    for (const [who, shift] of [["ann", 0], ["bob", 1]] as const) {
      const file = labelsFile(dir, who);
      files.push(file);
      for (const [i, p] of pairs.entries()) {
        const v = ((i + shift) % 5) + 1;
        await appendRecord(file, newLabel({ pair: p.id, paraphrase: v >= 3, relation: "equivalence", syntactic: v, semantic: v }, who, "gold"));
      }
    }
  });

  it("the labels folder, the dataset folder and an unexpanded pattern read what the file list reads", async () => {
    const listed = await inProcessCli(["agreement", ...files, "--json", join(dir, "a.json")]);
    expect(listed.code, listed.stderr).toBe(0);
    for (const args of [[join(dir, "labels")], [dir], [join(dir, "labels", "*.jsonl")]]) {
      const r = await inProcessCli(["agreement", ...args, "--json", join(dir, "b.json")]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(listed.stdout);
    }
  });

  it("a folder with no labels names where annotate writes them", async () => {
    const empty = tempDir("paracap-labels-args-");
    mkdirSync(join(empty, "labels"));
    const r = await inProcessCli(["agreement", empty]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no labels files \(\*\.jsonl\) in .*labels/);
    const pattern = await inProcessCli(["agreement", join(empty, "labels", "*.jsonl")]);
    expect(pattern.code).toBe(2);
    expect(pattern.stderr).toMatch(/no file matches/);
  });
});
