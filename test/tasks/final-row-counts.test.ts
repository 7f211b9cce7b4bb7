/** A tier's final row counts from sorted runs: the aggregate no longer holds a map over every final pair. */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { CandidatePair, ShuffleRef } from "../../shared/core/records.ts";
import { LocalStore } from "../../shared/io/local-store.ts";
import type { FinalRowCounts } from "../../shared/output/stats.ts";
import { useState } from "../../shared/pipeline/funnel.ts";
import { makePair } from "../../shared/pipeline/group-stage.ts";
import { sortInMemory } from "../../shared/pipeline/sorter.ts";
import { finalRowCounts } from "../../shared/tasks/final-row-counts.ts";
import { spillingSorter } from "../../shared/tasks/sorted-groups.ts";
import { features, from } from "../pipeline/stage-helpers.ts";

const CC = new URL("../../../shared/data/conceptual-captions/gcc-validation-part1-lines00001-07900.tsv", import.meta.url);
const lines = readFileSync(CC, "utf8").split("\n").filter(Boolean).map((l) => l.split("\t") as [string, string]);

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The counts as the aggregate took them before: a map over every pair's uses (the reference). */
function heldWhole(pairs: readonly CandidatePair[]): FinalRowCounts {
  const images = new Map<string, Map<string, number>>();
  const refs = new Map<string, number>();
  const captions = new Map<string, number>();
  for (const pair of pairs) {
    let imageUses = images.get(pair.image);
    if (!imageUses) images.set(pair.image, (imageUses = new Map()));
    for (const s of [pair.a, pair.b]) {
      const use = `${pair.image}\u0000${s.pageId}\u0000${s.page}\u0000${s.revisionId}\u0000${s.ordinal}`;
      refs.set(use, s.uses);
      imageUses.set(use, s.uses);
      captions.set(`${use}\u0000${pair.type}`, s.uses);
    }
  }
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  const perImage = [...images.values()].map(sum);
  return { images: images.size, images_ge2: perImage.filter((n) => n >= 2).length, images_ge5: perImage.filter((n) => n >= 5).length, references: sum(refs), captions: sum(captions), pairs: pairs.length };
}

describe("finalRowCounts", () => {
  // 400 real captions on images of 2 to 7 uses, weighing 1 to 3 references each (a history's revisions),
  // every third with an alt text (another caption) too: caption and alt pairs of one use
  const sizes = [2, 3, 5, 7, 2, 4];
  const refs: ShuffleRef[] = [];
  for (let i = 0, img = 0; i < 400; img++) {
    for (let k = 0; k < sizes[img % sizes.length]! && i < 400; k++, i++) {
      refs.push({
        image: `https://example.org/img-${img}.jpg`, kind: "history", page: `cc.tsv:${i}`, pageId: 1000 + img, revisionId: i, ordinal: k,
        source: "row", uses: 1 + (i % 3), caption: features(lines[i]![0]), alt: i % 3 === 0 ? features(lines[i + 400]![0]) : null,
      });
    }
  }
  const pairs: CandidatePair[] = [];
  const byImage = new Map<string, ShuffleRef[]>();
  for (const r of refs) byImage.set(r.image, [...(byImage.get(r.image) ?? []), r]);
  for (const [image, uses] of byImage) {
    for (const type of ["caption", "alt"] as const) {
      const typed = uses.filter((u) => u[type] !== null).map(useState);
      for (let i = 0; i < typed.length; i++) for (let j = i + 1; j < typed.length; j++) pairs.push(makePair("bronze", image, type, typed[i]!, typed[j]!));
    }
  }
  // in the order the aggregate reads them (by id): an image's pairs spread over the whole sequence
  pairs.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));

  it("counts exactly what a map over every pair counted, holding at most runRecords sides", async () => {
    const want = heldWhole(pairs);
    expect(want.images_ge5).toBeGreaterThan(0);
    expect(want.images_ge2).toBeGreaterThan(want.images_ge5);
    expect(want.captions).toBeGreaterThan(want.references);
    expect(await finalRowCounts(from(pairs), sortInMemory)).toEqual(want);
    const dir = mkdtempSync(join(tmpdir(), "final-row-counts-"));
    dirs.push(dir);
    const runs: number[] = [];
    // 2 sides a pair in runs of 20: more runs than the merge's fan-in (32), merged through a level of intermediate runs
    const bounded = await finalRowCounts(from(pairs), spillingSorter(new LocalStore(dir), "aggregate/uses/bronze", { runRecords: 20, onRun: (n) => runs.push(n) }));
    expect(runs.length).toBe(Math.ceil((2 * pairs.length) / 20));
    expect(runs.length).toBeGreaterThan(32);
    expect(bounded).toEqual(want);
    expect(readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())).toEqual([]);
  });

  it("a use met with another weight counts as its last meeting, as the map's last write did", async () => {
    // the same uses weighing more in the later half of the pairs (by then one more revision had them)
    const reweighed = pairs.map((p, i) => (i < pairs.length / 2 ? p : { ...p, a: { ...p.a, uses: p.a.uses + 1 } }));
    const want = heldWhole(reweighed);
    expect(want.references).not.toBe(heldWhole(pairs).references);
    const dir = mkdtempSync(join(tmpdir(), "final-row-counts-"));
    dirs.push(dir);
    expect(await finalRowCounts(from(reweighed), spillingSorter(new LocalStore(dir), "uses", { runRecords: 50 }))).toEqual(want);
    expect(await finalRowCounts(from(reweighed), sortInMemory)).toEqual(want);
  });

  it("no pairs: all zero", async () => {
    expect(await finalRowCounts(from([]), sortInMemory)).toEqual({ images: 0, images_ge2: 0, images_ge5: 0, references: 0, captions: 0, pairs: 0 });
  });
});
