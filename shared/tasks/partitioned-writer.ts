/**
 * Writes records to one object per partition, opening each lazily (most partitions of a small shard
 * stay empty). Buffers are bounded in total, not only per partition, so memory does not grow with the
 * partition count; the store's writers hold no file handle between writes.
 */
import type { BlobStore } from "../io/blob-store.ts";
import { JsonlWriter } from "../io/jsonl.ts";

const PER_PARTITION_BYTES = 256 * 1024;
const TOTAL_BUFFER_BYTES = 32 * 1024 * 1024;

export class PartitionedWriter {
  private readonly writers = new Map<number, JsonlWriter>();
  private buffered = 0;
  constructor(private readonly store: BlobStore, private readonly name: (partition: number) => string) {}

  async write(partition: number, record: unknown): Promise<void> {
    let w = this.writers.get(partition);
    if (!w) {
      w = new JsonlWriter(this.store.writer(this.name(partition)), PER_PARTITION_BYTES);
      this.writers.set(partition, w);
    }
    const before = w.buffered;
    await w.write(record);
    this.buffered += w.buffered - before;
    if (this.buffered > TOTAL_BUFFER_BYTES) {
      for (const x of this.writers.values()) await x.flush();
      this.buffered = 0;
    }
  }

  /** Publishes every partition written to; an absent partition object means "no records". */
  async close(): Promise<void> {
    for (const w of this.writers.values()) await w.close();
  }

  async abort(): Promise<void> {
    for (const w of this.writers.values()) await w.abort();
  }
}
