/**
 * `cloud status` reads the shard markers of the pipeline's shard phase, whatever it is named: a run
 * whose shard phase is renamed shows its finished and damaged shards.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatStatus, runStatus } from "../../shared/cloud/run-status.ts";
import { resolveConfig } from "../../shared/core/config.ts";
import { LocalStore } from "../../shared/io/local-store.ts";
import { aggregatePhase } from "../../shared/tasks/aggregate-task.ts";
import { dedupPhase } from "../../shared/tasks/dedup-task.ts";
import { extractPhase } from "../../shared/tasks/extract-task.ts";
import { groupPhase } from "../../shared/tasks/group-task.ts";
import { layout } from "../../shared/tasks/layout.ts";
import { createManifest } from "../../shared/tasks/manifest.ts";
import type { ShardSpec } from "../../shared/sources/shard-spec.ts";
import { marker, writeMarker } from "../../shared/tasks/markers.ts";
import { doneObject } from "../../shared/tasks/phase-task.ts";
import { definePipeline, PIXEL_PIPELINE } from "../../shared/tasks/phases.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const shard = (id: string): ShardSpec => ({ id, uri: `${id}.xml`, source: "mediawiki", kind: "current", start: null, end: null, fragment: false });

describe("run status", () => {
  it("counts the shards by the markers of the pipeline's shard phase", async () => {
    const dir = tempDir("paracap-status-");
    const work = new LocalStore(join(dir, "work"));
    const output = new LocalStore(join(dir, "out"));
    const read = { ...extractPhase, name: "read" };
    const pipeline = definePipeline([read, groupPhase, dedupPhase, aggregatePhase]);
    const manifest = createManifest("r1", resolveConfig({ partitions: 2 }), [shard("s0"), shard("s1"), shard("s2")], pipeline.phases);
    await work.writeText(layout.manifest(), JSON.stringify(manifest));
    await writeMarker(work, "read/s0/_DONE.json", marker("read:s0", manifest.phaseFingerprints.read!, {}));
    await writeMarker(work, "read/s1/_DONE.json", marker("read:s1", manifest.phaseFingerprints.read!, {}, "corrupt", "truncated"));
    const s = await runStatus("r1", work, output, pipeline);
    expect(s.shards).toEqual({ total: 3, done: 2, corrupt: ["s1: truncated"], failed: [], pending: ["s2"] });
    expect(Object.keys(s.partitions)).toEqual(["group", "dedup"]);
    expect(formatStatus(s)).toContain("\n  read shards: 2/3 done, 0 failed, 1 pending\n");
  });

  it("without a pipeline given, a run's status follows the pipeline its config chose: a pixel run lists its index and rekey partitions", async () => {
    const dir = tempDir("paracap-status-pixels-");
    const work = new LocalStore(join(dir, "work"));
    const manifest = createManifest("px", resolveConfig({ partitions: 2, pivot: "phash" }), [shard("s0")], PIXEL_PIPELINE.phases);
    await work.writeText(layout.manifest(), JSON.stringify(manifest));
    await writeMarker(work, doneObject("hash-index", { unit: "partition", key: "0", partition: 0 }), marker("hash-index:0", manifest.phaseFingerprints["hash-index"]!, {}));
    const s = await runStatus("px", work, new LocalStore(join(dir, "out")));
    expect(Object.keys(s.partitions)).toEqual(["hash-index", "rekey", "group", "dedup"]);
    expect(s.partitions["hash-index"]).toEqual({ total: 2, done: 1 });
  });
});
