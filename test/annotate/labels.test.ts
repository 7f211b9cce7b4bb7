/**
 * The labels file: append-only records, undo by retraction, hostile content counted and never fatal,
 * and concurrent writers (two processes, and many appends in one) losing nothing.
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  appendRecord,
  effectiveLabels,
  labelsFile,
  lastLiveLabel,
  LabelRecord,
  MAX_LINE_BYTES,
  newLabel,
  newRetraction,
  readLabelsFile,
  thesisRelation,
} from "../../shared/annotate/labels.ts";
import { REPO, removeTempDirs, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const label = (pair: string, annotator = "ann1", over: Partial<LabelRecord> = {}) =>
  ({ ...newLabel({ pair, paraphrase: true, relation: "equivalence", syntactic: 3, semantic: 4 }, annotator), ...over });

describe("labels file", () => {
  it("lives next to the dataset, one file per annotator; ids that could leave the folder are refused", () => {
    expect(labelsFile("/data/out", "maria_1")).toBe("/data/out/labels/maria_1.jsonl");
    for (const bad of ["../x", "a/b", ".hidden", "", "x".repeat(65), "a b"]) expect(() => labelsFile("/d", bad)).toThrow();
  });

  it("round-trips records; a retraction takes back its label and the pair's earlier label is in force again", async () => {
    const file = join(tempDir("paracap-labels-"), "labels", "ann1.jsonl");
    const first = label("p1", "ann1", { syntactic: 2 });
    const second = label("p1", "ann1", { syntactic: 5 });
    const other = label("p2");
    for (const r of [first, other, second]) await appendRecord(file, r);
    let read = await readLabelsFile(file);
    expect(read.bad).toBe(0);
    expect(effectiveLabels(read.records).map((l) => [l.pair, l.syntactic])).toEqual([["p1", 5], ["p2", 3]]);
    expect(lastLiveLabel(read.records, "ann1")?.id).toBe(second.id);

    await appendRecord(file, newRetraction(second));
    read = await readLabelsFile(file);
    expect(effectiveLabels(read.records).map((l) => [l.pair, l.syntactic])).toEqual([["p1", 2], ["p2", 3]]);
    expect(lastLiveLabel(read.records, "ann1")?.id).toBe(other.id);
    // a retraction by another annotator does not touch ann1's label
    await appendRecord(file, { ...newRetraction(other), annotator: "ann2" });
    expect(effectiveLabels((await readLabelsFile(file)).records)).toHaveLength(2);
    // append-only: 5 lines, the first three unchanged
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(5);
    expect(JSON.parse(lines[0]!)).toEqual(first);
  });

  it("a missing file is empty; the thesis merges the two entailment directions", async () => {
    expect(await readLabelsFile(join(tempDir(), "none.jsonl"))).toEqual({ records: [], bad: 0, badExamples: [] });
    expect(thesisRelation("forward_entailment")).toBe("entailment");
    expect(thesisRelation("reverse_entailment")).toBe("entailment");
    expect(thesisRelation("negation")).toBe("negation");
  });

  it("a hostile file: bad lines are counted with their line numbers, good ones kept, nothing thrown; the next append still reads", async () => {
    const file = join(tempDir("paracap-labels-hostile-"), "ann1.jsonl");
    const good1 = label("p1");
    const good2 = label("p2");
    const huge = JSON.stringify({ ...label("p3"), pad: "x".repeat(3 * MAX_LINE_BYTES) });
    const content = [
      JSON.stringify(good1), // 1
      "{not json", // 2
      JSON.stringify({ ...label("p4"), syntactic: 9 }), // 3: out of range
      JSON.stringify({ ...label("p5"), relation: "<script>alert(1)</script>" }), // 4: unknown relation
      "", // 5: blank, ignored
      huge, // 6: too long (never held whole)
      "\u0000\u0001\u00ff", // 7
      JSON.stringify([1, 2, 3]), // 8
      JSON.stringify(good2), // 9
      JSON.stringify(label("p6")).slice(0, 40), // 10: cut by a crash, no final newline
    ].join("\n");
    writeFileSync(file, content);
    const read = await readLabelsFile(file);
    expect(read.records.map((r) => r.pair)).toEqual(["p1", "p2"]);
    expect(read.bad).toBe(7);
    expect(read.badExamples.map((b) => b.line)).toEqual([2, 3, 4, 6, 7]);
    expect(read.badExamples[3]!.why).toMatch(/longer than/);
    // appending after the cut line starts a new line: the cut line stays one bad line
    const after = label("p7");
    await appendRecord(file, after);
    const again = await readLabelsFile(file);
    expect(again.records.map((r) => r.pair)).toEqual(["p1", "p2", "p7"]);
    expect(again.bad).toBe(7);
  });

  it("a file that is one endless line without a newline is one bad line", async () => {
    const file = join(tempDir(), "ann1.jsonl");
    writeFileSync(file, "[".repeat(5 * MAX_LINE_BYTES));
    const read = await readLabelsFile(file);
    expect([read.records.length, read.bad]).toEqual([0, 1]);
  });

  it("many appends at once in one process lose nothing", async () => {
    const file = join(tempDir("paracap-labels-burst-"), "ann1.jsonl");
    const records = Array.from({ length: 200 }, (_, i) => label(`p${i}`));
    await Promise.all(records.map((r) => appendRecord(file, r)));
    const read = await readLabelsFile(file);
    expect(read.bad).toBe(0);
    expect(new Set(read.records.map((r) => r.id))).toEqual(new Set(records.map((r) => r.id)));
  });

  it("two processes appending to the same file at the same time lose nothing", async () => {
    const dir = tempDir("paracap-labels-two-");
    const file = join(dir, "labels", "shared.jsonl");
    const go = join(dir, "go");
    const N = 150;
    const writers = ["ann1", "ann2"].map((who) => {
      const child = spawn(process.execPath, ["--import", "tsx", "test/annotate/append-writer.ts", file, who, String(N), go], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
      let err = "";
      child.stderr.on("data", (d) => (err += d));
      const ready = new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
      const done = new Promise<void>((resolve, reject) => child.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`writer ${who} exited ${code}: ${err}`)))));
      return { ready, done };
    });
    await Promise.all(writers.map((w) => w.ready));
    writeFileSync(go, ""); // both start together
    await Promise.all(writers.map((w) => w.done));
    const read = await readLabelsFile(file);
    expect(read.bad).toBe(0);
    expect(read.records).toHaveLength(2 * N);
    for (const who of ["ann1", "ann2"]) {
      const mine = read.records.filter((r) => r.annotator === who).map((r) => r.pair);
      // each writer's lines are whole and in its own order
      expect(mine).toEqual(Array.from({ length: N }, (_, i) => `pair-${i}`));
    }
    expect(effectiveLabels(read.records)).toHaveLength(2 * N);
  });
});
