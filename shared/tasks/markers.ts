/**
 * Completion markers: written after a task's outputs, carrying its counters. A task whose marker
 * exists is done; the aggregate merges counters from markers only, so a retried task counts once.
 */
import { z } from "zod";
import { Counters, type CounterSnapshot } from "../core/counters.ts";
import type { BlobStore } from "../io/blob-store.ts";

export const TaskMarker = z.object({
  task: z.string(),
  fingerprint: z.string(),
  status: z.enum(["ok", "corrupt", "failed"]),
  error: z.string().nullable(),
  /** for a corrupt shard: the damaged file and the decompressed byte offset of the damage (when known) */
  damage: z.object({
    file: z.string(),
    offset: z.number().int().nullable(),
    /** the input could not be fetched (not damaged): a local rerun reads the shard again */
    transient: z.literal(true).optional(),
  }).optional(),
  counters: z.record(z.string(), z.number()),
  /** examples of what the task's filters dropped (core/samples.ts) */
  samples: z.record(z.string(), z.array(z.string())).optional(),
});
export type TaskMarker = z.infer<typeof TaskMarker>;

export async function readMarker(store: BlobStore, name: string): Promise<TaskMarker | null> {
  const text = await store.readText(name);
  if (text === null) return null;
  return TaskMarker.parse(JSON.parse(text));
}

export async function writeMarker(store: BlobStore, name: string, marker: TaskMarker): Promise<void> {
  await store.writeText(name, JSON.stringify(marker) + "\n");
}

export function marker(task: string, fingerprint: string, counters: Counters | CounterSnapshot, status: TaskMarker["status"] = "ok", error: string | null = null, damage?: TaskMarker["damage"]): TaskMarker {
  const m: TaskMarker = { task, fingerprint, status, error, ...(damage ? { damage } : {}), counters: counters instanceof Counters ? counters.toJSON() : counters };
  if (counters instanceof Counters) {
    const samples = counters.samples.toJSON();
    if (Object.keys(samples).length > 0) m.samples = samples;
  }
  return m;
}
