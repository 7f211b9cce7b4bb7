/**
 * The local runner on the embedded sample: resume skips finished tasks (proved by the resumed counts and
 * untouched markers) with identical outputs; a change to a later-phase setting reuses the extracted shards, a changed input or extract-phase setting is refused unless --fresh; a run
 * killed mid-way resumes to identical outputs; several workers give the same outputs as one.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResumeConflictError } from "../../shared/runner/local-runner.ts";
import { aggregatePhase } from "../../shared/tasks/aggregate-task.ts";
import { dedupPhase } from "../../shared/tasks/dedup-task.ts";
import { extractPhase } from "../../shared/tasks/extract-task.ts";
import { groupPhase } from "../../shared/tasks/group-task.ts";
import { definePipeline } from "../../shared/tasks/phases.ts";
import { BIN, readOutputs, REPO, run, SAMPLE, tempDir, removeTempDirs } from "./helpers.ts";
import { sampleRun } from "../support/sample-run.ts";

afterAll(removeTempDirs);

/** Every file under dir (relative path → mtime in ms and size), skipping temporary files. */
function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (!e.name.includes(".tmp-")) {
        const st = statSync(p);
        out.set(relative(dir, p), `${st.mtimeMs}:${st.size}`);
      }
    }
  };
  walk(dir);
  return out;
}

let reference: Record<string, string>;
let referenceDir: string;

/** A finished default run to start from: a copy of the suite's shared sample run (the work store holds no absolute paths). */
function finishedRun(prefix: string): string {
  const dir = tempDir(prefix);
  cpSync(referenceDir, dir, { recursive: true, preserveTimestamps: true });
  return dir;
}

beforeAll(async () => {
  referenceDir = await sampleRun();
  reference = readOutputs(referenceDir);
  expect(Object.keys(reference).sort()).toEqual(["README.md", "_SUCCESS", "bronze.jsonl", "bronze.parquet", "config.json", "gold.jsonl", "gold.parquet", "report.html", "report.md", "silver.jsonl", "silver.parquet", "stats.json"]);
});

describe("local runner", () => {
  it("resumes: a second run skips every finished task, leaves its files untouched and writes identical outputs", async () => {
    const dir = finishedRun("paracap-resume-");
    const work = files(join(dir, ".work"));
    const markers = [...work.keys()].filter((k) => k.endsWith("_DONE.json"));
    expect(markers).toHaveLength(2 + 16 + 16);

    const second = await run(dir);
    expect(second.resumed).toEqual({ extract: 2, group: 16, dedup: 16 });
    // no task ran again: every work file (markers, shuffle parts) has its old mtime and size
    const after = files(join(dir, ".work"));
    for (const [name, stamp] of work) if (name !== "manifest.json") expect([name, after.get(name)]).toEqual([name, stamp]);
    expect(readOutputs(dir)).toEqual(reference);
  });

  it("runs a pipeline whose shard phase has another name: its markers are read by name, a finished run says so per phase", async () => {
    const read = { ...extractPhase, name: "read", done: (k: string) => `read/${k}/_DONE.json` };
    const pipeline = definePipeline([read, groupPhase, dedupPhase, aggregatePhase]);
    const dir = tempDir("paracap-renamed-");
    const out: string[] = [];
    const progress = { isTTY: false, write: (s: string) => (out.push(s), true) } as unknown as NodeJS.WriteStream;
    const first = await run(dir, SAMPLE, {}, { pipeline, progress });
    expect(first.resumed).toEqual({ read: 0, group: 0, dedup: 0 });
    expect(first.stats.shards).toEqual({ total: 2, ok: 2, corrupt: [], missing: [] });
    expect(readdirSync(join(dir, ".work/read")).sort()).toHaveLength(2);
    expect(out.some((l) => /\] read: 326 revisions .*shards 2\/2/.test(l))).toBe(true);
    const again = await run(dir, SAMPLE, {}, { pipeline });
    expect(again.alreadyComplete).toBe(true);
    expect(again.resumed).toEqual({ read: 2, group: 16, dedup: 16 });
    const outputs = readOutputs(dir);
    for (const name of ["gold.jsonl", "silver.jsonl", "bronze.jsonl"]) expect(outputs[name], name).toBe(reference[name]);
  });

  it("a finished run missing an output, or rerun with other report settings, writes its outputs again (its tasks all resumed)", async () => {
    const dir = finishedRun("paracap-rewrite-");
    rmSync(join(dir, "report.html"));
    rmSync(join(dir, "gold.parquet"));
    const again = await run(dir, SAMPLE);
    expect(again.alreadyComplete).toBeFalsy();
    expect(readOutputs(dir)).toEqual(reference);
    const samples = await run(dir, SAMPLE, { report: { samplesPerTier: 1 } });
    expect(samples.alreadyComplete).toBeFalsy();
    expect(samples.resumed.extract).toBe(2);
    expect(JSON.parse(readOutputs(dir)["config.json"]!).report.samplesPerTier).toBe(1);
    expect((await run(dir, SAMPLE, { report: { samplesPerTier: 1 } })).alreadyComplete).toBe(true);
  });

  it("a rerun with fewer tiers leaves none of the earlier run's other tiers behind", async () => {
    const dir = finishedRun("paracap-fewer-tiers-");
    await run(dir, SAMPLE, { tiers: ["gold"] });
    const fresh = tempDir("paracap-fewer-tiers-fresh-");
    await run(fresh, SAMPLE, { tiers: ["gold"] });
    expect(readdirSync(dir).filter((f) => /^(silver|bronze)\./.test(f))).toEqual([]);
    expect(readOutputs(dir)).toEqual(readOutputs(fresh));
  });

  it("a rerun whose aggregate fails midway leaves no _SUCCESS: going back to the first config redoes the outputs, not reuses the other's", async () => {
    const dir = finishedRun("paracap-stale-success-");
    // report.html a folder: the other config's aggregate fails after rewriting stats.json and the datasets
    rmSync(join(dir, "report.html"));
    mkdirSync(join(dir, "report.html"));
    await expect(run(dir, SAMPLE, { captions: { minWords: 10 } })).rejects.toThrow();
    expect(existsSync(join(dir, "_SUCCESS"))).toBe(false);
    rmSync(join(dir, "report.html"), { recursive: true });
    await run(dir, SAMPLE);
    expect(readOutputs(dir)).toEqual(reference);
  });

  it("a later-phase config change reuses the extracted shards and redoes group and dedup", async () => {
    const dir = finishedRun("paracap-later-");
    const extractMarkers = [...files(join(dir, ".work"))].filter(([k]) => k.startsWith("extract") && k.endsWith("_DONE.json"));
    expect(extractMarkers).toHaveLength(2);
    const changed = await run(dir, SAMPLE, { captions: { minWords: 10 } });
    // extract not redone: both shards resumed and their markers untouched; group/dedup ran again
    expect(changed.resumed).toEqual({ extract: 2, group: 0, dedup: 0 });
    const after = files(join(dir, ".work"));
    for (const [name, stamp] of extractMarkers) expect([name, after.get(name)]).toEqual([name, stamp]);
    expect(changed.stats.tiers.gold!.funnel.find((r) => r.id === "min_words_v1")!.label).toBe("caption has ≥ 10 words");
    // output follows the new setting: identical to a fresh run with it
    const freshDir = tempDir("paracap-later-fresh-");
    await run(freshDir, SAMPLE, { captions: { minWords: 10 } });
    expect(readOutputs(dir)).toEqual(readOutputs(freshDir));
    expect(readOutputs(dir)["stats.json"]).not.toEqual(reference["stats.json"]);
  });

  it("a later-phase change after which a group partition writes no pairs reads none of the earlier run's", async () => {
    const dir = finishedRun("paracap-later-stale-");
    // no image has 1000 references: every group partition now writes nothing for dedup
    const strict = { images: { minRefs: 1000, maxRefs: 1000, maxRefsHistory: 1000 } };
    const changed = await run(dir, SAMPLE, strict);
    expect(changed.resumed).toEqual({ extract: 2, group: 0, dedup: 0 });
    for (const tier of ["gold", "silver", "bronze"]) expect(changed.stats.tiers[tier]!.pairs, tier).toBe(0);
    const freshDir = tempDir("paracap-later-stale-fresh-");
    await run(freshDir, SAMPLE, strict);
    expect(readOutputs(dir)).toEqual(readOutputs(freshDir));
  });

  it("refuses to resume a run with another input or extract-phase configuration, unless fresh; --fresh always starts over (and, the runner choosing where to run, gives the same outputs)", async () => {
    const dir = finishedRun("paracap-conflict-");
    await expect(run(dir, SAMPLE, { partitions: 8 })).rejects.toThrow(ResumeConflictError);
    // a setting the extract phase reads (the sentence classifier decides caption features) conflicts
    await expect(run(dir, SAMPLE, { captions: { classifier: "paper" } })).rejects.toThrow(ResumeConflictError);
    // another input list is named as such, with both lists
    await expect(run(dir, SAMPLE.slice(0, 1), { tiers: ["gold", "silver"] })).rejects.toThrow(new RegExp(`holds a run over other inputs \\(it read .*${SAMPLE[1]!.path.split("/").pop()!.replace(/\./g, "\\.")}.*; this run names [^;]*\\); rerun with --fresh`));
    // the refused runs changed nothing
    expect(readOutputs(dir)).toEqual(reference);

    // the same files named otherwise (relative to here, through a symlink to their folder) are the same inputs: the run is
    // the finished one; a copy of a file under another name is another input
    const links = tempDir("paracap-spelling-");
    symlinkSync(dirname(resolve(SAMPLE[1]!.path)), join(links, "sample"));
    const respelled = [
      { ...SAMPLE[0]!, path: relative(process.cwd(), resolve(SAMPLE[0]!.path)) },
      { ...SAMPLE[1]!, path: join(links, "sample", basename(SAMPLE[1]!.path)) },
    ];
    expect(respelled.map((i) => i.path)).not.toEqual(SAMPLE.map((i) => i.path));
    expect((await run(dir, respelled)).alreadyComplete).toBe(true);
    cpSync(SAMPLE[1]!.path, join(links, "copy.xml.bz2"));
    await expect(run(dir, [SAMPLE[0]!, { ...SAMPLE[1]!, path: join(links, "copy.xml.bz2") }])).rejects.toThrow(/holds a run over other inputs/);
    expect(readOutputs(dir)).toEqual(reference);

    // --fresh with the same configuration redoes every task, with the runner choosing where to run:
    // the same outputs (a small run stays in this thread; this run also stands for the fresh run with
    // workers: 2, threads: "auto" that a test of its own made)
    const same = await run(dir, SAMPLE, {}, { fresh: true, workers: 2, threads: "auto" });
    expect(same.resumed).toEqual({ extract: 0, group: 0, dedup: 0 });
    expect(readOutputs(dir)).toEqual(reference);

    // (a later-phase setting after it reuses the extracted shards: the test before this one)
    const other = await run(dir, SAMPLE.slice(0, 1), { tiers: ["gold"], captions: { minWords: 10 } }, { fresh: true });
    expect(other.resumed).toEqual({ extract: 0, group: 0, dedup: 0 });
    expect(other.stats.tiers.gold!.funnel.find((r) => r.id === "min_words_v1")!.label).toBe("caption has ≥ 10 words");
    // outputs of the discarded run are gone, not left next to the new ones
    expect(Object.keys(readOutputs(dir)).sort()).toEqual(["README.md", "_SUCCESS", "config.json", "gold.jsonl", "gold.parquet", "report.html", "report.md", "stats.json"]);
  });

  it("a run killed mid-way resumes from its finished shards to identical outputs", async () => {
    const dir = tempDir("paracap-kill-");
    // one worker: the current-revision shard is extracted first, then the history shard
    const child = spawn(process.execPath, [BIN, "run", "--out", dir, "--quiet", "--workers", "1"], {
      cwd: REPO,
      // one process (no relaunch with V8 flags, shared/cli/node-flags.ts): the kill lands on the run itself
      // (test/cli/node-flags.test.ts: a killed launcher takes its child with it)
      env: { ...process.env, PARACAP_TIERS: "", PARACAP_PARTITIONS: "", PARACAP_MIN_WORDS: "", PARACAP_CLASSIFIER: "", PARACAP_NODE_FLAGS_APPLIED: "1" },
      stdio: "ignore",
    });
    const exited = new Promise<NodeJS.Signals | number | null>((res) => child.once("exit", (code, signal) => res(signal ?? code)));
    const firstShard = join(dir, ".work/extract/s00000-enwiki-2016-pages-articles1-sample.xml.bz2/_DONE.json");
    const deadline = Date.now() + 540_000;
    while (!existsSync(firstShard) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    expect(existsSync(join(dir, "_SUCCESS"))).toBe(false);
    expect(existsSync(join(dir, ".work/extract/s00001-enwiki-Anarchism-history-sample.xml.bz2/_DONE.json"))).toBe(false);

    const resumed = await run(dir);
    expect(resumed.resumed).toEqual({ extract: 1, group: 0, dedup: 0 });
    expect(readOutputs(dir)).toEqual(reference);
    // its time is this run's own, and the report says so
    expect(readFileSync(join(dir, "report.md"), "utf8")).toMatch(/^Generated \S+ in [0-9.]+ s \(this run resumed an earlier one, whose time is not counted\)\.$/m);
    expect(readFileSync(join(dir, "report.html"), "utf8")).toContain("(this run resumed an earlier one, whose time is not counted).");
    expect(readFileSync(join(referenceDir, "report.md"), "utf8")).toMatch(/^Generated \S+ in [0-9.]+ s\.$/m);
  });

  it("gives the same outputs with two worker threads as with one (documents and partitions on the threads)", async () => {
    const dir = tempDir("paracap-workers-");
    await run(dir, SAMPLE, {}, { workers: 2, threads: "always" });
    expect(readOutputs(dir)).toEqual(reference);
  });
});
