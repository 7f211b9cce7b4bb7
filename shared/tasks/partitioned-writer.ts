/** Writes records to one object per partition, opening each lazily (most partitions of a small shard stay empty). */
import type { BlobStore } from "../io/blob-store.ts";
import { JsonlWriter } from "../io/jsonl.ts";

export class PartitionedWriter {
  private readonly writers = new Map<number, JsonlWriter>();
  constructor(private readonly store: BlobStore, private readonly name: (partition: number) => string) {}

  async write(partition: number, record: unknown): Promise<void> {
    let w = this.writers.get(partition);
    if (!w) {
      w = new JsonlWriter(this.store.writer(this.name(partition)), 256 * 1024);
      this.writers.set(partition, w);
    }
    await w.write(record);
  }

  /** Publishes every partition written to; an absent partition object means "no records". */
  async close(): Promise<void> {
    for (const w of this.writers.values()) await w.close();
  }

  async abort(): Promise<void> {
    for (const w of this.writers.values()) await w.abort();
  }
}
