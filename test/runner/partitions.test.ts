/**
 * Partition counts scale: the CLI on the sample with 300 partitions under a 256 open-file limit (the
 * macOS default) finishes with the outputs of the default run (ids and funnel); a dedup task's store
 * operations do not grow with the partition count; the aggregate's merge reads at most its fan-in of
 * files at once and gives the same sequence as one merge of everything.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { resolveConfig } from "../../shared/core/config.ts";
import type { BlobStore } from "../../shared/io/blob-store.ts";
import { JsonlWriter, readJsonl } from "../../shared/io/jsonl.ts";
import { LocalStore } from "../../shared/io/local-store.ts";
import { mergeSorted } from "../../shared/tasks/bounded-merge.ts";
import { runPartitionTask } from "../../shared/tasks/run-task.ts";
import { datasetObject } from "../../shared/tasks/datasets.ts";
import { BUILTIN_PIPELINE } from "../../shared/tasks/phases.ts";
import { createManifest } from "../../shared/tasks/manifest.ts";
import { marker, writeMarker } from "../../shared/tasks/markers.ts";
import { BIN, DATASETS, readOutputs, REPO, run, tempDir, removeTempDirs } from "./helpers.ts";
import { sampleRun } from "../support/sample-run.ts";

afterAll(removeTempDirs);

let reference: Record<string, string>;
beforeAll(async () => {
  reference = readOutputs(await sampleRun());
});

/** stats.json without the two counters that record the partition count itself */
const withoutPartitionCounts = (statsJson: string) => {
  const s = JSON.parse(statsJson) as { counters: Record<string, number> };
  delete s.counters["group.partitions"];
  delete s.counters["dedup.partitions"];
  return s;
};

describe("many partitions under a low open-file limit", () => {
  it("--partitions 300 at `ulimit -n 256` finishes with the default run's pairs and funnel", () => {
    const out = tempDir("paracap-p300-");
    const cmd = `ulimit -n 256 && exec "${process.execPath}" "${BIN}" run --out "${out}" --quiet --workers 2 --partitions 300`;
    const r = spawnSync("bash", ["-c", cmd], { cwd: REPO, encoding: "utf8", env: { ...process.env, PARACAP_TIERS: "", PARACAP_PARTITIONS: "", PARACAP_MIN_WORDS: "", PARACAP_CLASSIFIER: "" } });
    expect(r.stderr).not.toMatch(/EMFILE|too many open files/i);
    expect(r.status).toBe(0);
    const got = readOutputs(out);
    for (const name of DATASETS) expect([name, got[name]]).toEqual([name, reference[name]]);
    expect(withoutPartitionCounts(got["stats.json"]!)).toEqual(withoutPartitionCounts(reference["stats.json"]!));
    expect(JSON.parse(readFileSync(join(out, "stats.json"), "utf8")).counters["dedup.partitions"]).toBe(300);
  });
});

/** A LocalStore that counts the calls a task makes (the real store does the work). */
class CountingStore implements BlobStore {
  calls = 0;
  constructor(private readonly inner: LocalStore) {}
  get description() { return this.inner.description; }
  exists(n: string) { this.calls++; return this.inner.exists(n); }
  readText(n: string) { this.calls++; return this.inner.readText(n); }
  readStream(n: string) { this.calls++; return this.inner.readStream(n); }
  writeText(n: string, t: string) { this.calls++; return this.inner.writeText(n, t); }
  createIfAbsent(n: string, t: string) { this.calls++; return this.inner.createIfAbsent(n, t); }
  writer(n: string) { this.calls++; return this.inner.writer(n); }
  list(p: string) { this.calls++; return this.inner.list(p); }
  delete(n: string) { this.calls++; return this.inner.delete(n); }
}

describe("work per task does not grow with the partition count", () => {
  it("a dedup task makes the same number of store calls with 4 or 4,096 partitions", async () => {
    const callsWith = async (P: number) => {
      const dir = tempDir("paracap-dedupwork-");
      const work = new LocalStore(dir);
      const manifest = createManifest("t", resolveConfig({ tiers: ["gold"], partitions: P }), [{ id: "s0", uri: "x.xml", source: "mediawiki", kind: "current", start: null, end: null, fragment: false }], BUILTIN_PIPELINE.phases);
      // two group partitions wrote candidate pairs for dedup partition 1 (none of them pass: counts only)
      for (const p of [0, 2]) {
        await writeMarker(work, `group/p-0000${p}/_DONE.json`, marker(`group:${p}`, manifest.phaseFingerprints.group!, {}));
        const w = new JsonlWriter(work.writer(datasetObject("group", "pairs", 1, `p-0000${p}`)));
        await w.close();
      }
      const counting = new CountingStore(work);
      await runPartitionTask("dedup", manifest, 1, counting);
      return counting.calls;
    };
    const small = await callsWith(4);
    expect(await callsWith(4096)).toBe(small);
  });
});

describe("bounded merge", () => {
  const Rec = z.object({ id: z.string(), src: z.number() });
  it("merges 50 sorted objects reading at most 4 at a time into the sequence one merge gives, and cleans up", async () => {
    const dir = tempDir("paracap-merge-");
    const store = new LocalStore(dir);
    const names: string[] = [];
    const all: { id: string; src: number }[] = [];
    for (let i = 0; i < 50; i++) {
      const recs = Array.from({ length: i % 7 }, (_, k) => ({ id: ((i * 7919 + k * 104729) % 100_003).toString(16).padStart(6, "0"), src: i })).sort((a, b) => (a.id < b.id ? -1 : 1));
      const name = `in/${i}.jsonl`;
      const w = new JsonlWriter(store.writer(name));
      for (const r of recs) await w.write(r);
      await w.close();
      names.push(name);
      all.push(...recs);
    }
    names.push("in/absent.jsonl"); // a missing object is an empty input
    let open = 0;
    let peak = 0;
    const tracking: BlobStore = Object.assign(Object.create(store) as LocalStore, {
      async readStream(n: string) {
        const s = await store.readStream(n);
        if (s) {
          peak = Math.max(peak, ++open);
          s.once("close", () => open--);
        }
        return s;
      },
    });
    const merged = [];
    for await (const r of mergeSorted(tracking, names, { schema: Rec, key: (r) => r.id, compare: (a, b) => (a < b ? -1 : a > b ? 1 : 0), scratch: (l, i) => `scratch/${l}-${i}.jsonl`, fanIn: 4 })) merged.push(r);
    expect(merged).toEqual([...all].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.src - b.src)));
    expect(peak).toBeLessThanOrEqual(4);
    expect(peak).toBeGreaterThan(0);
    expect(await store.list("scratch/")).toEqual([]);
    // sanity: the inputs are still there
    let n = 0;
    for await (const _ of readJsonl(store, names[6]!, Rec)) n++;
    expect(n).toBe(6);
  });
});
