/**
 * Datasets between phases. A phase declares the datasets it produces (name, record schema, optional
 * parts such as tiers) and the names it consumes; the pipeline wires each consumed name to the
 * latest earlier phase that produced it, so a phase inserted between two others (`pairs → pairs`)
 * is read by the next one without either knowing it. Tasks reach their data only through the
 * handles made here, never through another phase's file names.
 *
 * Records of a dataset are hash-partitioned by the producer: each producing task (a shard or a
 * partition) writes one object per partition (and part) it has records for, under
 * `data/<producer phase>/<dataset>/q-<partition>/<task>[.<part>].jsonl`. A consuming task of
 * partition q lists one folder and reads its objects in the producer's task order.
 */
import type { z } from "zod";
import type { ParacapConfig } from "../core/config.ts";
import type { BlobStore } from "../io/blob-store.ts";
import { JsonlWriter, readJsonl } from "../io/jsonl.ts";
import { PartitionedWriter } from "./partitioned-writer.ts";

export interface DatasetSpec<T = unknown> {
  /** lowercase letters, digits and hyphens: it names a folder */
  readonly name: string;
  readonly schema: z.ZodType<T>;
  /**
   * named sub-streams each task writes separately (the tiers of scored pairs), so a consumer can read
   * one without the others; every part gets an object even when empty ("no records" ≠ "missing")
   */
  parts?(config: ParacapConfig): readonly string[];
}

/** A summary a phase computes once, after its last task (a run-wide bound), for later phases. */
export interface SummarySpec<T = unknown> {
  readonly name: string;
  readonly schema: z.ZodType<T>;
}

/** Work-store folder of every dataset a phase produces (cleared with the phase when it must be redone). */
export const phaseDataRoot = (phase: string) => `data/${phase}/`;

const pad = (n: number) => String(n).padStart(5, "0");

/** Object of one producing task's records of one partition (and part). */
export function datasetObject(producer: string, dataset: string, partition: number, task: string, part?: string): string {
  return `${phaseDataRoot(producer)}${dataset}/q-${pad(partition)}/${task}${part === undefined ? "" : `.${part}`}.jsonl`;
}

/** A task's name in object names: its shard id, or `p-<partition>`. */
export function taskFileName(unit: { unit: "shard"; key: string } | { unit: "partition"; partition: number }): string {
  return unit.unit === "shard" ? unit.key : `p-${pad(unit.partition)}`;
}

/** Object of a phase summary. */
export function summaryObject(producer: string, name: string): string {
  return `${phaseDataRoot(producer)}_summary/${name}.json`;
}

/** Reads one consumed dataset: partition by partition, each in the producer's task order. */
export class DatasetReader<T> {
  constructor(
    private readonly work: BlobStore,
    private readonly producer: string,
    private readonly spec: DatasetSpec<T>,
    /** file names of the producer's tasks in task order */
    private readonly producerTasks: readonly string[],
  ) {}

  /** the objects of partition `q` (and `part`) that exist, in the producer's task order */
  async objects(q: number, part?: string): Promise<string[]> {
    const folder = `${phaseDataRoot(this.producer)}${this.spec.name}/q-${pad(q)}/`;
    const present = new Set(await this.work.list(folder));
    return this.producerTasks.map((t) => datasetObject(this.producer, this.spec.name, q, t, part)).filter((n) => present.has(n));
  }

  async *read(q: number, part?: string): AsyncGenerator<T> {
    for (const name of await this.objects(q, part)) yield* readJsonl(this.work, name, this.spec.schema);
  }
}

/** Writes one produced dataset for one task: records by partition (and part), buffers bounded. */
export class DatasetWriter<T> {
  private readonly byPart = new Map<string, PartitionedWriter>();
  private readonly written = new Set<string>();

  constructor(
    private readonly work: BlobStore,
    private readonly producer: string,
    private readonly spec: DatasetSpec<T>,
    private readonly task: string,
  ) {}

  private writer(part?: string): PartitionedWriter {
    const key = part ?? "";
    let w = this.byPart.get(key);
    if (!w) this.byPart.set(key, (w = new PartitionedWriter(this.work, (q) => datasetObject(this.producer, this.spec.name, q, this.task, part))));
    return w;
  }

  write(partition: number, record: T, part?: string): Promise<void> {
    this.written.add(`${part ?? ""}\u0000${partition}`);
    return this.writer(part).write(partition, record);
  }

  /** writes empty objects for `parts` of partition q not yet written (parts promise an object each) */
  async touch(partition: number, parts: readonly string[]): Promise<void> {
    for (const part of parts) {
      const name = datasetObject(this.producer, this.spec.name, partition, this.task, part);
      if (!this.written.has(`${part}\u0000${partition}`)) {
        const w = new JsonlWriter(this.work.writer(name));
        await w.close();
      }
    }
  }

  async close(): Promise<void> {
    for (const w of this.byPart.values()) await w.close();
  }

  async abort(): Promise<void> {
    for (const w of this.byPart.values()) await w.abort();
  }
}

/**
 * Runs `body` with a writer that is closed when it returns and aborted (nothing published) when it
 * throws: the one place a task's try/abort/close lives.
 */
export async function withWriter<W extends { close(): Promise<void>; abort(): Promise<void> }, R>(writer: W, body: (w: W) => Promise<R>): Promise<R> {
  let result: R;
  try {
    result = await body(writer);
  } catch (err) {
    await writer.abort();
    throw err;
  }
  await writer.close();
  return result;
}
