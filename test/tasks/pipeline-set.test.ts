/**
 * One deployment serves every built-in pipeline: the union of their phases (one function per name,
 * the plain-data tables infra reads agreeing with the task definitions) and, per run, the pipeline
 * its config needs, as `pipelineFor` chooses locally.
 */
import { describe, expect, it } from "vitest";
import { PIVOT_NAMES } from "../../shared/core/plugin-names.ts";
import { DEPLOYED_PIPELINE_SHAPES, PIXEL_PHASE_SHAPES, BUILTIN_PHASE_SHAPES, publishTargets, servedPhases, type PhaseShape } from "../../shared/core/phase-names.ts";
import { BUILTIN_PIPELINE, PIXEL_PIPELINE, pipelineFor } from "../../shared/tasks/phases.ts";
import { asPipelineSet, BUILTIN_PIPELINES, servePipelines } from "../../shared/tasks/pipeline-set.ts";

const shape = (p: PhaseShape) => ({ name: p.name, unit: p.unit, next: p.next, reads: [...p.reads], writes: [...p.writes], memory: p.memory });

describe("the pipelines a deployment serves", () => {
  it("the phase tables infra reads are the pipelines' phases", () => {
    expect(BUILTIN_PIPELINE.phases.map(shape)).toEqual(BUILTIN_PHASE_SHAPES.map(shape));
    expect(PIXEL_PIPELINE.phases.map(shape)).toEqual(PIXEL_PHASE_SHAPES.map(shape));
    expect(BUILTIN_PIPELINES.pipelines).toEqual([BUILTIN_PIPELINE, PIXEL_PIPELINE]);
  });

  it("the union has one phase per name, upstream first; extract may start group or hash-index", () => {
    const served = servedPhases(DEPLOYED_PIPELINE_SHAPES);
    expect(served.map((p) => [p.name, p.unit, p.nexts])).toEqual([
      ["extract", "shard", ["group", "hash-index"]],
      ["hash-index", "partition", ["rekey"]],
      ["rekey", "partition", ["group"]],
      ["group", "partition", ["dedup"]],
      ["dedup", "partition", ["aggregate"]],
      ["aggregate", "once", []],
    ]);
    expect(BUILTIN_PIPELINES.phases.map((p) => p.name)).toEqual(served.map((p) => p.name));
    expect(publishTargets(DEPLOYED_PIPELINE_SHAPES)).toEqual({
      plan: ["extract"],
      extract: ["group", "hash-index"],
      "hash-index": ["rekey"],
      rekey: ["group"],
      group: ["dedup"],
      dedup: ["aggregate"],
      aggregate: [],
      deadletter: ["group", "hash-index", "rekey", "dedup", "aggregate"],
    });
  });

  it("a name shared by pipelines gets every bucket and the largest memory; a unit clash or a cycle is refused", () => {
    const a: PhaseShape[] = [
      { name: "read", unit: "shard", next: "sum", reads: ["input"], writes: ["work"], memory: "512Mi" },
      { name: "sum", unit: "once", next: null, reads: ["work"], writes: ["output"], memory: "1Gi" },
    ];
    const b: PhaseShape[] = [
      { name: "read", unit: "shard", next: "sum", reads: [], writes: ["work", "output"], memory: "2Gi" },
      { name: "sum", unit: "once", next: null, reads: [], writes: ["output"], memory: "512Mi" },
    ];
    const [read, sum] = servedPhases([a, b]);
    expect(read).toMatchObject({ reads: ["input"], writes: ["work", "output"], memory: "2Gi" });
    expect(sum).toMatchObject({ memory: "1Gi" });
    expect(() => servedPhases([a, [{ ...a[0]!, unit: "partition" }, a[1]!]])).toThrow(/shard phase in one pipeline and a partition phase/);
    const loop: PhaseShape[] = [
      { name: "sum", unit: "shard", next: "read", reads: [], writes: ["work"], memory: "1Gi" },
      { name: "read", unit: "partition", next: "end", reads: [], writes: ["work"], memory: "1Gi" },
      { name: "end", unit: "once", next: null, reads: [], writes: ["output"], memory: "1Gi" },
    ];
    const other: PhaseShape[] = [
      { name: "read", unit: "partition", next: "sum", reads: [], writes: ["work"], memory: "1Gi" },
      { name: "sum", unit: "partition", next: "end", reads: [], writes: ["work"], memory: "1Gi" },
      { name: "end", unit: "once", next: null, reads: [], writes: ["output"], memory: "1Gi" },
    ];
    expect(() => servedPhases([loop.map((p) => (p.name === "sum" ? { ...p, unit: "partition" as const } : p)), other])).toThrow(/cycle/);
  });

  it("each run gets the pipeline its config needs, exactly as pipelineFor chooses", () => {
    for (const pivot of PIVOT_NAMES) expect(BUILTIN_PIPELINES.choose({ pivot })).toBe(pipelineFor({ pivot }));
  });

  it("one pipeline served alone refuses the other kind of pivot with the reason", () => {
    expect(asPipelineSet(BUILTIN_PIPELINE).choose({ pivot: "resource" })).toBe(BUILTIN_PIPELINE);
    expect(asPipelineSet(BUILTIN_PIPELINE).choose({ pivot: "phash" })).toEqual({ refused: expect.stringMatching(/needs the pixel pipeline/) });
    expect(servePipelines([PIXEL_PIPELINE]).choose({ pivot: "url" })).toEqual({ refused: expect.stringMatching(/needs a pixel pivot/) });
  });
});
